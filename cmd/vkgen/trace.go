package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/vkgen/vkgen/layer/memreport/tracesummary"
	"github.com/vkgen/vkgen/perfetto/decode"
)

func init() {
	traceCmd := &cobra.Command{
		Use:   "trace",
		Short: "Read traces written by the vkgen layers",
	}
	var format, svgOut, htmlOut string
	summary := &cobra.Command{
		Use:   "summary [--format text|json] [--svg OUT.svg | --html OUT.html] FILE",
		Short: "Print the device memory held per named object and per cluster from a DeviceMemoryReport trace",
		Long: `summary reads a Perfetto trace written by VK_LAYER_VKGEN_DeviceMemoryReport
(VK_VKGEN_TRACE_FILE) and prints the memory held per object (name, type,
handle, peak and final bytes, cluster), joining VulkanObjectName events to
VulkanMemoryAllocation events by handle, and per counter track
vulkan.mem.{app|driver}.usage.<cluster> its peak and final value.
--svg or --html also writes a chart of the counters over time.

Exit status: 0 on success, 2 on usage or input errors.`,
		Args: cobra.ExactArgs(1),
		PreRunE: func(*cobra.Command, []string) error {
			if svgOut != "" && htmlOut != "" {
				return usageErr(fmt.Errorf("--svg and --html are exclusive"))
			}
			return checkFormat(format, []string{"text", "json"})
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := decode.ReadFile(args[0])
			if err != nil {
				return usageErr(err)
			}
			s := tracesummary.Summarize(t)
			switch {
			case svgOut != "":
				err = os.WriteFile(svgOut, []byte(s.SVG()), 0o644)
			case htmlOut != "":
				err = os.WriteFile(htmlOut, []byte(s.HTML("vkgen memory report: "+filepath.Base(args[0]))), 0o644)
			}
			if err != nil {
				return usageErr(err)
			}
			out := cmd.OutOrStdout()
			if format == "json" {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(s)
			}
			_, err = fmt.Fprint(out, s.Text())
			return err
		},
	}
	summary.Flags().StringVar(&format, "format", "text", "output `format`: text or json")
	summary.Flags().StringVar(&svgOut, "svg", "", "also write an SVG chart of the counters to `FILE`")
	summary.Flags().StringVar(&htmlOut, "html", "", "also write an HTML page (chart and tables) to `FILE`")
	traceCmd.AddCommand(summary)
	rootCmd.AddCommand(traceCmd)
}
