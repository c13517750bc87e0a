package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"github.com/spf13/cobra"
	"github.com/vkgen/vkgen/layer/memreport/blocktrace"
	"github.com/vkgen/vkgen/layer/memreport/tracesummary"
	"github.com/vkgen/vkgen/perfetto/decode"
)

// traceCmd holds the trace subcommands (summary here, diff and check in
// their files).
var traceCmd = &cobra.Command{
	Use:   "trace",
	Short: "Read traces written by the vkgen layers",
}

func init() {
	var format, svgOut, htmlOut, out, blocksOut string
	var force bool
	var jobs int
	var opts tracesummary.Options
	summary := &cobra.Command{
		Use:   "summary [--format text|json] [-o OUT] [--svg OUT.svg | --html OUT.html] [--force] [--top N] [--window BYTES] FILE...",
		Short: "Print the device memory held per named object and per cluster from a DeviceMemoryReport trace",
		Long: `summary reads a Perfetto trace written by VK_LAYER_VKGEN_DeviceMemoryReport
(VK_VKGEN_TRACE_FILE) and prints the memory held per object (name, type,
handle, peak and final bytes, creation time, cluster) and per counter
track vulkan.mem.{app|driver}.usage.<cluster> its peak and final value.
An object is one lifetime, from its first memory event to the DESTROY
that releases it, and a VulkanObjectName names the lifetime it was given
in: a handle the driver reuses is a new object with its own name, bytes
and cluster. --svg also writes, per heap, its memory over time stacked
by cluster against the heap's size and budget; --html a self-contained
page with those charts and the summary's tables (docs/memreport.md).

The trace is read in one pass (FILE may be a pipe, or - for standard
input) in memory bounded by the live objects, --window and --top,
whatever the trace's size. Traces that traced compressed
(compression_type DEFLATE) and gzip'd traces are read as they are. Input
that is not a Perfetto trace is an error naming the file, the byte offset
and what it is. A trace that ends inside a packet (one still being
written, or cut short) is summarised up to that packet, and the error
says where it stops. A damaged packet (one that does not decode, or
framing that does not parse) is skipped: the summary covers the others,
and the error names the first damage and counts them.

Several FILEs are read side by side, one per core (--jobs): the text
starts with a roll-up line per trace (peak and final app memory, leaks,
failures), then each summary; the JSON is the roll-up and every summary
("schema": "vkgen.trace.summaries/2"). --svg and --html take one FILE.

-o, --svg and --html write files of mode 0600, like the trace: whole or
not at all, never over FILE, never through a symbolic link, and over an
existing file only with --force.

Exit status: 0 on success, 1 when the trace ends inside a packet or has
damaged packets (the summary covers every other packet), 2 on usage or
input errors.`,
		Args: cobra.MinimumNArgs(1),
		PreRunE: func(_ *cobra.Command, args []string) error {
			if len(args) > 1 && svgOut+htmlOut+blocksOut != "" {
				return usageErr(fmt.Errorf("--svg, --html and --blocks-trace take one trace"))
			}
			if blocksOut != "" && slices.Contains([]string{out, svgOut, htmlOut}, blocksOut) {
				return usageErr(fmt.Errorf("--blocks-trace and another output name the same file %s", blocksOut))
			}
			if svgOut != "" && htmlOut != "" {
				return usageErr(fmt.Errorf("--svg and --html are exclusive"))
			}
			if out != "" && filepath.Clean(out) == filepath.Clean(svgOut+htmlOut) {
				return usageErr(fmt.Errorf("-o and --svg or --html name the same file %s", out))
			}
			return checkFormat(format, []string{"text", "json"})
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return summaries(cmd, args, format, out, force, opts, jobs)
			}
			in, info, err := openInput(cmd, args[0])
			if err != nil {
				return usageErr(err)
			}
			defer in.Close()
			outs := map[string]*output{}
			for flag, path := range map[string]string{"o": out, "svg": svgOut, "html": htmlOut, "blocks-trace": blocksOut} {
				if path != "" {
					outs[flag] = &output{path: path, mode: 0o600, replace: force, inputs: info}
					if err := outs[flag].check(); err != nil {
						return usageErr(err)
					}
				}
			}
			limitTraceHeap(1, 1)
			s, cut := readSummary(in, args[0], opts)
			if s == nil {
				return usageErr(cut)
			}
			if err := writeSummary(cmd.OutOrStdout(), s, args[0], format, outs); err != nil {
				return usageErr(err)
			}
			var damage *decode.DamageError
			switch {
			case errors.As(cut, &damage):
				return &exitError{code: 1, err: fmt.Errorf("%w; the summary covers every other packet", cut)}
			case cut != nil:
				return &exitError{code: 1, err: fmt.Errorf("%w; the summary covers every packet before it", cut)}
			}
			return nil
		},
	}
	summary.Flags().StringVar(&format, "format", "text", "output `format`: text or json")
	summary.Flags().StringVarP(&out, "output", "o", "", "write the summary to `FILE` instead of standard output")
	summary.Flags().IntVar(&opts.Top, "top", 100, "list the `N` objects that held the most; 0 lists every one (memory then grows with the number of objects)")
	traceReadFlags(summary, &opts, &jobs)
	summary.Flags().StringVar(&svgOut, "svg", "", "also write an SVG chart of the counters to `FILE`")
	summary.Flags().StringVar(&htmlOut, "html", "", "also write an HTML page (chart and tables) to `FILE`")
	summary.Flags().IntVar(&opts.Blocks, "blocks", 20, "lay out the `N` largest VkDeviceMemory blocks (bound ranges, holes, aliasing); 0 lays out every one")
	summary.Flags().StringVar(&blocksOut, "blocks-trace", "", "also write the block layouts as a Perfetto trace to `FILE`: a track per block, its ranges and holes as slices whose time is their byte offset")
	summary.Flags().BoolVar(&force, "force", false, "replace existing -o, --svg, --html and --blocks-trace files")
	traceCmd.AddCommand(summary)
	rootCmd.AddCommand(traceCmd)
}

// writeSummary writes s as format to stdout or outs["o"], and the chart
// file asked for.
func writeSummary(stdout io.Writer, s *tracesummary.Summary, path, format string, outs map[string]*output) error {
	if o := outs["svg"]; o != nil {
		if err := o.write([]byte(s.SVG())); err != nil {
			return err
		}
	}
	if o := outs["html"]; o != nil {
		if err := o.write([]byte(s.HTML("vkgen memory report: " + filepath.Base(inputName(path))))); err != nil {
			return err
		}
	}
	if o := outs["blocks-trace"]; o != nil {
		b, err := blocktrace.Write(s.Blocks)
		if err == nil {
			err = o.write(b)
		}
		if err != nil {
			return err
		}
	}
	var b bytes.Buffer
	if format == "json" {
		enc := json.NewEncoder(&b)
		enc.SetIndent("", "  ")
		if err := enc.Encode(s); err != nil {
			return err
		}
	} else {
		b.WriteString(s.Text())
	}
	if o := outs["o"]; o != nil {
		return o.write(b.Bytes())
	}
	_, err := stdout.Write(b.Bytes())
	return err
}

// readSummary summarises the trace read from in; errors name the file
// and the byte offset. A trace cut inside a packet or with damaged packets
// gives both its summary and the error.
func readSummary(in io.Reader, path string, o tracesummary.Options) (*tracesummary.Summary, error) {
	if o.Top < 0 || o.Window <= 0 || o.MaxGroups <= 0 {
		return nil, fmt.Errorf("--top must be >= 0, --window and --max-groups > 0")
	}
	return tracesummary.Read(in, inputName(path), o)
}
