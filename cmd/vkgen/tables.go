package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/vkgen/vkgen/gen/objtypes"
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
			r, err := loadRegistry(cmd, reg)
			if err != nil {
				return err
			}
			t, err := objtypes.Derive(r)
			if err != nil {
				return usageErr(err)
			}
			if err := checkMappable(r.Path, t); err != nil {
				return err
			}
			for _, u := range t.Unmapped() {
				fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s = %d names no VkObjectType\n", u.Name, u.Value)
			}
			return tablefmt.Write(cmd.OutOrStdout(), t, format)
		},
	}
	registryFlag(cmd, &reg)
	cmd.Flags().StringVarP(&format, "format", "f", "text", "output format: "+strings.Join(tablefmt.Formats, ", "))
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(tablefmt.Formats, cobra.ShellCompDirectiveNoFileComp))
	rootCmd.AddCommand(cmd)
}

// checkFormat rejects a --format value outside allowed as a usage error.
func checkFormat(format string, allowed []string) error {
	for _, a := range allowed {
		if format == a {
			return nil
		}
	}
	return usageErr(fmt.Errorf("unknown --format %q (want one of %s)", format, strings.Join(allowed, ", ")))
}

// checkMappable rejects registries without both enums of the mapping.
func checkMappable(path string, t *objtypes.Tables) error {
	switch {
	case len(t.DebugReport) == 0:
		return usageErr(fmt.Errorf("%s has no %s (VK_EXT_debug_report)", path, objtypes.DebugReportEnum))
	case !t.HasObjectType():
		return usageErr(fmt.Errorf("%s has no %s (it appeared in Vulkan 1.1); nothing to map to", path, objtypes.ObjectTypeEnum))
	}
	return nil
}
