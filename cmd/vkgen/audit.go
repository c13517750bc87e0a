package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/vkgen/vkgen/audit"
)

var auditFormats = []string{"text", "json"}

func init() {
	var reg, format string
	cmd := &cobra.Command{
		Use:   "audit [--registry PATH] [--format text|json] FILE...",
		Short: "Check hand-written debug-report -> object-type tables against the registry",
		Long: `audit reads hand-written VkDebugReportObjectTypeEXT -> VkObjectType tables in
C, C++ or Go (switch cases, fallthrough groups, {D, O} initialisers, [D] = O
designated initialisers, Go map literals; C names or the constants of
generated/) and reports every row that is missing, wrong or not in the
registry, with file:line. Each FILE is one table. A value the registry maps
to VK_OBJECT_TYPE_UNKNOWN may be left to the default branch.

Exit status: 0 when every table is complete, 1 when there are findings,
2 on usage or input errors (unreadable file, no table in a file).`,
		Args: cobra.MinimumNArgs(1),
		PreRunE: func(*cobra.Command, []string) error {
			return checkFormat(format, auditFormats)
		},
		RunE: func(cmd *cobra.Command, files []string) error {
			t, err := loadTables(cmd, reg)
			if err != nil {
				return err
			}
			rep, err := audit.AuditFiles(t, files)
			if err != nil {
				return usageErr(err)
			}
			out := cmd.OutOrStdout()
			if format == "json" {
				if err := writeJSON(out, rep); err != nil {
					return err
				}
			} else {
				for _, f := range rep.Findings {
					fmt.Fprintln(out, f)
				}
				fmt.Fprintf(out, "%d finding(s) in %d row(s) of %d file(s) against VK_HEADER_VERSION %d\n",
					len(rep.Findings), rep.Rows, len(rep.Files), rep.HeaderVersion)
			}
			if len(rep.Findings) > 0 {
				return &exitError{code: 1}
			}
			return nil
		},
	}
	registryFlag(cmd, &reg)
	formatFlag(cmd, &format, auditFormats)
	rootCmd.AddCommand(cmd)
}
