package main

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/vkgen/vkgen/audit"
)

var auditFormats = []string{"text", "json"}

func init() {
	var reg, format string
	maxSize := byteSize(audit.DefaultMaxSize)
	cmd := &cobra.Command{
		Use:   "audit [--registry PATH] [--format text|json] [--max-size N] FILE...",
		Short: "Check hand-written debug-report <-> object-type tables against the registry",
		Long: `audit reads hand-written tables that map VkDebugReportObjectTypeEXT to
VkObjectType, or back, in C, C++, Go, Rust or Zig source, and reports every
row that is missing, wrong, renamed or not in the registry, with file:line.

Shapes read:
  - ` + strings.Join(audit.ShapesRead, "\n  - ") + `
A pair of enumerants is a row only inside one of them; function-call
arguments are not rows. Names may be C enumerants, Go constants
(generated/, vulkan-go), enum-qualified members (vk::ObjectType::eBuffer,
vk::ObjectType::BUFFER, vk.ObjectType.buffer) or Zig inferred literals
(.buffer) of a switch whose operand is declared with the enum type.
Each construct is one table; one with a single pair is a special case whose
row is checked but not held to completeness. A value the registry maps to
VK_OBJECT_TYPE_UNKNOWN may be left to the default branch.

A missing row names the value, the feature or extension that added it and
where it belongs; a value renamed between registry versions is one finding
naming both spellings; a name not in the registry comes with what to do.

Each FILE gets its own result. FILE may be - for standard input. An input
larger than --max-size (default 4MiB; suffixes KiB, MiB, GiB, K, M, G) or
that is not a regular file (a device, a FIFO) or is binary is refused with
a message naming it, and the other files are still audited.

Exit status: the worst of the files: 0 when every table is complete,
1 when there are findings, 2 on usage errors and for a file that cannot be
read or has no table.`,
		Args: cobra.MinimumNArgs(1),
		PreRunE: func(*cobra.Command, []string) error {
			return checkFormat(format, auditFormats)
		},
		RunE: func(cmd *cobra.Command, files []string) error {
			t, err := loadTables(cmd, reg)
			if err != nil {
				return err
			}
			write := audit.WriteText
			if format == "json" {
				write = audit.WriteJSON
			}
			rep, err := write(cmd.OutOrStdout(), t, files, audit.Options{MaxSize: int64(maxSize), Stdin: cmd.InOrStdin()})
			if err != nil {
				return err
			}
			if rep.Status != 0 {
				return &exitError{code: rep.Status}
			}
			return nil
		},
	}
	registryFlag(cmd, &reg)
	formatFlag(cmd, &format, auditFormats)
	cmd.Flags().Var(&maxSize, "max-size", "largest input file read, in bytes (suffixes KiB, MiB, GiB)")
	rootCmd.AddCommand(cmd)
}
