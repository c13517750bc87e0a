package main

import (
	"bytes"
	"encoding/json"

	"github.com/spf13/cobra"
	"github.com/vkgen/vkgen/layer/memreport/tracesummary"
)

// summaries is `vkgen trace summary` of several traces: the roll-up, then
// each summary.
func summaries(cmd *cobra.Command, paths []string, format, out string, force bool, o tracesummary.Options, jobs int) error {
	ins, infos, err := traceInputs(cmd, paths)
	if err != nil {
		return usageErr(err)
	}
	outs, err := traceOutputs(infos, force, map[string]string{"o": out})
	if err != nil {
		return usageErr(err)
	}
	results, err := readTraces(ins, o, jobs)
	if err != nil {
		return usageErr(err)
	}
	set := tracesummary.NewSet(ins, results)
	var b bytes.Buffer
	if format == "json" {
		enc := json.NewEncoder(&b)
		enc.SetIndent("", "  ")
		if err := enc.Encode(set); err != nil {
			return usageErr(err)
		}
	} else {
		b.WriteString(set.Text())
	}
	if err := writeOut(cmd, outs["o"], b.Bytes()); err != nil {
		return usageErr(err)
	}
	return traceExit(results)
}
