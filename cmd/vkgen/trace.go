package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/vkgen/vkgen/layer/memreport/tracesummary"
)

func init() {
	traceCmd := &cobra.Command{
		Use:   "trace",
		Short: "Read traces written by the vkgen layers",
	}
	var format, svgOut, htmlOut string
	var opts tracesummary.Options
	summary := &cobra.Command{
		Use:   "summary [--format text|json] [--svg OUT.svg | --html OUT.html] [--top N] [--window BYTES] FILE",
		Short: "Print the device memory held per named object and per cluster from a DeviceMemoryReport trace",
		Long: `summary reads a Perfetto trace written by VK_LAYER_VKGEN_DeviceMemoryReport
(VK_VKGEN_TRACE_FILE) and prints the memory held per object (name, type,
handle, peak and final bytes, creation time, cluster) and per counter
track vulkan.mem.{app|driver}.usage.<cluster> its peak and final value.
An object is one lifetime, from its first memory event to the DESTROY
that releases it, and a VulkanObjectName names the lifetime it was given
in: a handle the driver reuses is a new object with its own name, bytes
and cluster. --svg or --html also writes a chart of the counters over
time.

The trace is read in one pass (FILE may be a pipe) in memory bounded by
the live objects, --window and --top, whatever the trace's size. Input
that is not a Perfetto trace is an error naming the file and byte offset.
A trace that ends inside a packet (one still being written, or cut short)
is summarised up to that packet, and the error says where it stops.

Exit status: 0 on success, 1 when the trace ends inside a packet (the
summary covers every packet before it), 2 on usage or input errors.`,
		Args: cobra.ExactArgs(1),
		PreRunE: func(*cobra.Command, []string) error {
			if svgOut != "" && htmlOut != "" {
				return usageErr(fmt.Errorf("--svg and --html are exclusive"))
			}
			return checkFormat(format, []string{"text", "json"})
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			s, cut := readSummary(args[0], opts)
			if s == nil {
				return usageErr(cut)
			}
			if err := writeSummary(cmd.OutOrStdout(), s, args[0], format, svgOut, htmlOut); err != nil {
				return usageErr(err)
			}
			if cut != nil {
				return &exitError{code: 1, err: fmt.Errorf("%w; the summary covers every packet before it", cut)}
			}
			return nil
		},
	}
	summary.Flags().StringVar(&format, "format", "text", "output `format`: text or json")
	summary.Flags().IntVar(&opts.Top, "top", 100, "list the `N` objects that held the most; 0 lists every one (memory then grows with the number of objects)")
	summary.Flags().Int64Var(&opts.Window, "window", tracesummary.DefaultWindow, "how many `BYTES` of trace an event may reach the file after younger ones (the writer's buffered bytes plus one flush interval's output)")
	summary.Flags().StringVar(&svgOut, "svg", "", "also write an SVG chart of the counters to `FILE`")
	summary.Flags().StringVar(&htmlOut, "html", "", "also write an HTML page (chart and tables) to `FILE`")
	traceCmd.AddCommand(summary)
	rootCmd.AddCommand(traceCmd)
}

// writeSummary writes s as format to out, and the chart file asked for.
func writeSummary(out io.Writer, s *tracesummary.Summary, path, format, svgOut, htmlOut string) error {
	var err error
	switch {
	case svgOut != "":
		err = os.WriteFile(svgOut, []byte(s.SVG()), 0o644)
	case htmlOut != "":
		err = os.WriteFile(htmlOut, []byte(s.HTML("vkgen memory report: "+filepath.Base(path))), 0o644)
	}
	if err != nil {
		return err
	}
	if format == "json" {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	}
	_, err = fmt.Fprint(out, s.Text())
	return err
}

// readSummary summarises the trace at path; errors name the file and the
// byte offset. A trace cut inside a packet gives both its summary so far
// and the error.
func readSummary(path string, o tracesummary.Options) (*tracesummary.Summary, error) {
	if o.Top < 0 || o.Window <= 0 {
		return nil, fmt.Errorf("--top must be >= 0 and --window > 0")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return tracesummary.Read(f, path, o)
}
