package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/vkgen/vkgen/layer/memreport/tracediff"
	"github.com/vkgen/vkgen/layer/memreport/tracesummary"
)

func init() {
	var format, htmlOut, out string
	var force, all bool
	var top, jobs int
	opts := tracesummary.Options{Top: 1, NoTotals: true} // neither the objects nor the heap totals and block layouts are compared
	diff := &cobra.Command{
		Use:   "diff [--format text|json] [-o OUT] [--html OUT.html] [--force] [--top N] [--all] BASE NEW...",
		Short: "Compare the device memory of traces with a base trace, per name, type, cluster and heap",
		Long: `diff compares each NEW trace written by VK_LAYER_VKGEN_DeviceMemoryReport
with BASE: per object name (else per descriptor "TYPE cluster bytes" of
unnamed objects), per type, cluster, heap and total, the change in peak
and final bytes and in object counts, largest change first. Objects are
matched across runs by name or descriptor, never by handle.

The traces are read side by side, one per core (--jobs), each in one pass
in bounded memory. --format json writes the versioned document of
docs/memreport.md ("schema": "vkgen.trace.diff/1"); --html also writes a
page with the rows and both traces' heap charts. With several NEW traces, the text starts with a roll-up line per
trace.

Exit status: 0 on success, 1 when a trace ends inside a packet or has
damaged packets (its figures cover the other packets), 2 on usage or
input errors.`,
		Args: cobra.MinimumNArgs(2),
		PreRunE: func(*cobra.Command, []string) error {
			if out != "" && filepath.Clean(out) == filepath.Clean(htmlOut) {
				return usageErr(errSameOutput(out))
			}
			return checkFormat(format, []string{"text", "json"})
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			ins, infos, err := traceInputs(cmd, args)
			if err != nil {
				return usageErr(err)
			}
			outs, err := traceOutputs(infos, force, map[string]string{"o": out, "html": htmlOut})
			if err != nil {
				return usageErr(err)
			}
			results, err := readTraces(ins, opts, jobs)
			if err != nil {
				return usageErr(err)
			}
			if err := traceExit(results); err != nil && results[0].Summary == nil {
				return err
			}
			var diffs []*tracediff.Diff
			for i, r := range results[1:] {
				if r.Summary != nil {
					diffs = append(diffs, tracediff.Compare(results[0].Summary, r.Summary, ins[i+1].Name, tracediff.Options{All: all}))
				}
			}
			rep := tracediff.NewReport(ins[0].Name, diffs)
			if o := outs["html"]; o != nil {
				if err := o.write([]byte(rep.HTML("vkgen memory diff: " + filepath.Base(ins[0].Name)))); err != nil {
					return usageErr(err)
				}
			}
			var b bytes.Buffer
			if format == "json" {
				enc := json.NewEncoder(&b)
				enc.SetIndent("", "  ")
				if err := enc.Encode(rep); err != nil {
					return usageErr(err)
				}
			} else {
				b.WriteString(rep.Text(top))
			}
			if err := writeOut(cmd, outs["o"], b.Bytes()); err != nil {
				return usageErr(err)
			}
			return traceExit(results)
		},
	}
	diff.Flags().StringVar(&format, "format", "text", "output `format`: text or json")
	diff.Flags().StringVarP(&out, "output", "o", "", "write the diff to `FILE` instead of standard output")
	diff.Flags().StringVar(&htmlOut, "html", "", "also write an HTML page to `FILE`")
	diff.Flags().BoolVar(&force, "force", false, "replace existing -o and --html files")
	diff.Flags().IntVar(&top, "top", 50, "list the `N` largest changes per trace in the text; 0 lists every one")
	diff.Flags().BoolVar(&all, "all", false, "list unchanged groups too")
	traceReadFlags(diff, &opts, &jobs)
	traceCmd.AddCommand(diff)
}
