package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/spf13/cobra"
	"github.com/vkgen/vkgen/layer/memreport/tracesummary"
	"github.com/vkgen/vkgen/perfetto/decode"
)

// traceInputs are the traces a command reads, each opened when its turn
// comes (so many traces hold few files open), with what they are, for
// output.inputs. A missing file is an error before anything is read; "-"
// (standard input) may come once.
func traceInputs(cmd *cobra.Command, paths []string) ([]tracesummary.Input, []fs.FileInfo, error) {
	var ins []tracesummary.Input
	var infos []fs.FileInfo
	stdin := false
	for _, p := range paths {
		if p == "-" {
			if stdin {
				return nil, nil, fmt.Errorf("- (standard input) given twice")
			}
			stdin = true
			r, fi, _ := openInput(cmd, p) // standard input opens whatever it is
			infos = append(infos, fi...)
			ins = append(ins, tracesummary.Input{Name: inputName(p), Open: func() (io.ReadCloser, error) { return r, nil }})
			continue
		}
		fi, err := os.Stat(p)
		if err != nil {
			return nil, nil, err
		}
		infos = append(infos, fi)
		ins = append(ins, tracesummary.Input{Name: p, Open: func() (io.ReadCloser, error) { return os.Open(p) }})
	}
	return ins, infos, nil
}

// readTraces summarises ins side by side on every core (--jobs) with o.
func readTraces(ins []tracesummary.Input, o tracesummary.Options, jobs int) ([]tracesummary.Result, error) {
	if err := checkReadFlags(o, jobs); err != nil {
		return nil, err
	}
	limitTraceHeap(len(ins), jobs)
	return tracesummary.ReadMany(ins, o, jobs), nil
}

// checkReadFlags range-checks the flags of traceReadFlags.
func checkReadFlags(o tracesummary.Options, jobs int) error {
	if o.Top < 0 || o.Window <= 0 || o.MaxGroups <= 0 || jobs < 0 {
		return fmt.Errorf("--top and --jobs must be >= 0, --window and --max-groups > 0")
	}
	return nil
}

// traceExit is the exit status of results: 2 when a trace could not be
// read at all, 1 when one was cut or damaged (its figures cover the other
// packets), with the errors joined.
func traceExit(results []tracesummary.Result) error {
	code := 0
	var errs []error
	for _, r := range results {
		var damage *decode.DamageError
		switch {
		case r.Err == nil:
			continue
		case r.Summary == nil:
			code = 2
			errs = append(errs, r.Err)
		case errors.As(r.Err, &damage):
			code = max(code, 1)
			errs = append(errs, fmt.Errorf("%w; the figures cover every other packet", r.Err))
		default:
			code = max(code, 1)
			errs = append(errs, fmt.Errorf("%w; the figures cover every packet before it", r.Err))
		}
	}
	if code == 0 {
		return nil
	}
	return &exitError{code: code, err: errors.Join(errs...)}
}

// traceReadFlags adds the flags of reading traces to cmd.
func traceReadFlags(cmd *cobra.Command, o *tracesummary.Options, jobs *int) {
	cmd.Flags().Int64Var(&o.Window, "window", tracesummary.DefaultWindow, "how many `BYTES` of trace an event may reach the file after younger ones (the writer's buffered bytes plus one flush interval's output)")
	cmd.Flags().IntVar(&o.MaxGroups, "max-groups", tracesummary.DefaultMaxGroups, "keep at most `N` object names (and descriptors) per trace; later ones are counted together")
	cmd.Flags().IntVar(jobs, "jobs", 0, "read at most `N` traces at once (0: one per core)")
}

func errSameOutput(path string) error {
	return fmt.Errorf("two outputs name the same file %s", path)
}

// traceOutputs checks the output files of a trace command (flag -> path,
// "" for none) before anything is read.
func traceOutputs(inputs []fs.FileInfo, force bool, paths map[string]string) (map[string]*output, error) {
	outs := map[string]*output{}
	for flag, path := range paths {
		if path == "" {
			continue
		}
		outs[flag] = &output{path: path, mode: 0o600, replace: force, inputs: inputs}
		if err := outs[flag].check(); err != nil {
			return nil, err
		}
	}
	return outs, nil
}

// writeOut writes data to o, or to standard output when o is nil.
func writeOut(cmd *cobra.Command, o *output, data []byte) error {
	if o != nil {
		return o.write(data)
	}
	_, err := cmd.OutOrStdout().Write(data)
	return err
}
