package tracesummary

import (
	"fmt"
	"strings"
)

// SetSchema names the version of the JSON document of several summaries;
// SummarySchema that of one summary (Summary.Schema). Version 2 added the
// objects' descriptors, totals, blocks and the exact failed_bytes (a JSON
// number that may exceed 64 bits).
const (
	SetSchema     = "vkgen.trace.summaries/2"
	SummarySchema = "vkgen.trace.summary/2"
)

// Set is the summaries of several traces with a roll-up row each.
type Set struct {
	Schema string       `json:"schema"`
	Rollup []RollupRow  `json:"rollup"`
	Traces []SetSummary `json:"traces"`
}

// SetSummary is one trace of a Set: its summary, or the error that kept
// it from being read (both for a cut or damaged trace).
type SetSummary struct {
	Trace   string   `json:"trace"`
	Error   string   `json:"error,omitempty"`
	Summary *Summary `json:"summary"`
}

// RollupRow is a trace's headline figures.
type RollupRow struct {
	Trace              string `json:"trace"`
	PeakApp            int64  `json:"peak_app_bytes"`
	FinalApp           int64  `json:"final_app_bytes"`
	PeakDriver         int64  `json:"peak_driver_bytes"`
	Objects            int    `json:"objects"`
	Leaks              int    `json:"leaks"`
	AliveAtEnd         int    `json:"alive_at_end"`
	AllocationFailures int    `json:"allocation_failures"`
	DroppedEvents      int64  `json:"dropped_events"`
	Error              string `json:"error,omitempty"`
}

// NewSet puts together what ReadMany returned for ins.
func NewSet(ins []Input, results []Result) *Set {
	set := &Set{Schema: SetSchema}
	for i, r := range results {
		row := RollupRow{Trace: ins[i].Name}
		ss := SetSummary{Trace: ins[i].Name, Summary: r.Summary}
		if r.Err != nil {
			row.Error, ss.Error = r.Err.Error(), r.Err.Error()
		}
		if s := r.Summary; s != nil {
			row.Objects, row.Leaks, row.AliveAtEnd = s.ObjectsTotal, len(s.Leaks), len(s.AliveAtEnd)
			row.AllocationFailures, row.DroppedEvents = s.AllocationFailures, s.DroppedEvents
			for _, g := range s.Groups {
				switch {
				case g.Kind == KindTotal && g.Key == "app":
					row.PeakApp, row.FinalApp = g.Peak, g.Final
				case g.Kind == KindTotal && g.Key == "driver":
					row.PeakDriver = g.Peak
				}
			}
		}
		set.Rollup = append(set.Rollup, row)
		set.Traces = append(set.Traces, ss)
	}
	return set
}

// Text is the roll-up table, then each trace's summary.
func (s *Set) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-40s %14s %14s %14s %9s %6s %6s %7s\n", "TRACE", "PEAK APP", "FINAL APP", "PEAK DRIVER", "OBJECTS", "LEAKS", "ALIVE", "FAILED")
	for i, r := range s.Rollup {
		if s.Traces[i].Summary == nil {
			fmt.Fprintf(&b, "%-40s error: %s\n", r.Trace, r.Error)
			continue
		}
		fmt.Fprintf(&b, "%-40s %14d %14d %14d %9d %6d %6d %7d\n", r.Trace, r.PeakApp, r.FinalApp, r.PeakDriver, r.Objects, r.Leaks, r.AliveAtEnd, r.AllocationFailures)
	}
	for _, t := range s.Traces {
		if t.Summary != nil {
			fmt.Fprintf(&b, "\n== %s ==\n%s", t.Trace, t.Summary.Text())
		}
	}
	return b.String()
}
