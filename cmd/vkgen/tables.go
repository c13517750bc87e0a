package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/vkgen/vkgen/gen/tablefmt"
)

func init() {
	var reg, format string
	cmd := &cobra.Command{
		Use:   "tables [--registry PATH] [--format text|markdown|json|csv]",
		Short: "Print the debug-report -> object-type mapping",
		Long: `tables prints every VkDebugReportObjectTypeEXT value of the registry with the
VkObjectType it maps to and both numeric values. The mapping follows the
naming rule (the enumerant minus VK_DEBUG_REPORT_OBJECT_TYPE_ and its final
_EXT names the VkObjectType); values the rule cannot resolve are shown as
unmapped and warned about on stderr.`,
		Args: cobra.NoArgs,
		PreRunE: func(*cobra.Command, []string) error {
			return checkFormat(format, tablefmt.Formats)
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			t, err := loadTables(cmd, reg)
			if err != nil {
				return err
			}
			for _, u := range t.Unmapped() {
				fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s = %d names no VkObjectType\n", u.Name, u.Value)
			}
			return tablefmt.Write(cmd.OutOrStdout(), t, format)
		},
	}
	registryFlag(cmd, &reg)
	formatFlag(cmd, &format, tablefmt.Formats)
	rootCmd.AddCommand(cmd)
}
