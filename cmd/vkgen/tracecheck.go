package main

import (
	"fmt"
	"slices"

	"github.com/spf13/cobra"
	"github.com/vkgen/vkgen/layer/memreport/tracecheck"
	"github.com/vkgen/vkgen/layer/memreport/tracesummary"
)

// read stands for a summary that was read and checked, once its figures are
// no longer needed (traceExit tells a read trace from an unreadable one).
var read = &tracesummary.Summary{}

func init() {
	var rulesPath, baseline, junitOut, out string
	var force bool
	var jobs int
	opts := tracesummary.Options{Top: 1, NoTotals: true} // neither the objects nor the heap totals and block layouts are compared
	check := &cobra.Command{
		Use:   "check --rules FILE [--baseline TRACE] [--junit OUT.xml] [-o OUT] [--force] TRACE...",
		Short: "Check the device memory of traces against rules, for CI",
		Long: `check evaluates the rules of --rules FILE on every TRACE written by
VK_LAYER_VKGEN_DeviceMemoryReport: limits on peak and final bytes and
object counts per total, heap, cluster, type or name pattern, on growth
while the program ran (bytes and growth events per total, type or name
pattern), on leaks, objects alive at the end and failed allocations,
absolute or relative to the --baseline trace (docs/memreport.md, "vkgen trace check"; an example
is configs/memory.rules). A rule the trace cannot answer (growth on a
trace with no frame end, a pattern matching no name, a trace with no
memory event) is an error, never a pass.

The traces (and the baseline) are read side by side, one per core
(--jobs). The report lists per trace the errors, failures and passes;
--junit also writes JUnit XML (a test suite per trace, a test case per
rule) for CI systems.

Exit status: 0 when every rule passed on every trace, 1 when one failed or
could not be evaluated (or a trace is cut or damaged), 2 on usage or input
errors (a bad rules file names its line and column; a trace that cannot
be read).`,
		Args: cobra.MinimumNArgs(1),
		PreRunE: func(*cobra.Command, []string) error {
			if rulesPath == "" {
				return usageErr(fmt.Errorf("--rules FILE is required"))
			}
			if out != "" && out == junitOut {
				return usageErr(errSameOutput(out))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			rin, rinfo, err := openInput(cmd, rulesPath)
			if err != nil {
				return usageErr(err)
			}
			rules, err := tracecheck.Parse(rin, inputName(rulesPath))
			rin.Close()
			if err != nil {
				return usageErr(err)
			}
			paths := args
			if rulesPath == "-" && slices.Contains(args, "-") {
				return usageErr(fmt.Errorf("- (standard input) given for both --rules and a trace"))
			}
			if baseline != "" {
				paths = append([]string{baseline}, args...)
			}
			ins, infos, err := traceInputs(cmd, paths)
			if err != nil {
				return usageErr(err)
			}
			outs, err := traceOutputs(append(infos, rinfo...), force, map[string]string{"o": out, "junit": junitOut})
			if err != nil {
				return usageErr(err)
			}
			if err := checkReadFlags(opts, jobs); err != nil {
				return usageErr(err)
			}
			limitTraceHeap(len(ins), jobs)
			var base *tracesummary.Summary
			if baseline != "" {
				b := tracesummary.ReadMany(ins[:1], opts, 1)[0]
				if b.Summary == nil || b.Err != nil {
					return usageErr(fmt.Errorf("baseline: %w", b.Err))
				}
				base, ins = b.Summary, ins[1:]
			}
			// Each trace is checked as soon as it is read and only its
			// outcome kept: memory stays that of --jobs summaries however
			// many traces there are.
			checked := make([]tracecheck.Result, len(ins))
			results := make([]tracesummary.Result, len(ins))
			tracesummary.ReadEach(ins, opts, jobs, func(i int, r tracesummary.Result) {
				checked[i] = tracecheck.Check(rules, ins[i].Name, r.Summary, r.Err, base)
				if r.Summary != nil {
					r.Summary = read
				}
				results[i] = r
			})
			if o := outs["junit"]; o != nil {
				if err := o.write(tracecheck.JUnit(checked)); err != nil {
					return usageErr(err)
				}
			}
			if err := writeOut(cmd, outs["o"], []byte(tracecheck.Text(checked))); err != nil {
				return usageErr(err)
			}
			if err := traceExit(results); err != nil {
				return err
			}
			if c := tracecheck.Count(checked); c.Failed+c.Errors > 0 {
				return &exitError{code: 1, err: fmt.Errorf("%d rules failed, %d could not be evaluated", c.Failed, c.Errors)}
			}
			return nil
		},
	}
	check.Flags().StringVar(&rulesPath, "rules", "", "the rules `FILE` (- for standard input)")
	check.Flags().StringVar(&baseline, "baseline", "", "the `TRACE` that rules relative to baseline compare with")
	check.Flags().StringVar(&junitOut, "junit", "", "also write JUnit XML to `FILE`")
	check.Flags().StringVarP(&out, "output", "o", "", "write the report to `FILE` instead of standard output")
	check.Flags().BoolVar(&force, "force", false, "replace existing -o and --junit files")
	traceReadFlags(check, &opts, &jobs)
	traceCmd.AddCommand(check)
}
