// Package tracediff compares the memory of two traces written by
// VK_LAYER_VKGEN_DeviceMemoryReport, as their summaries
// (tracesummary.Summary) give it: per name (else descriptor), type,
// cluster, heap and total, the change in peak and final bytes and in
// object counts, largest change first. It backs `vkgen trace diff`.
//
// Objects are matched across runs by what identifies them in the program,
// never by handle (drivers hand out handles as they like): their name,
// else their descriptor and where the program made them (a call site:
// tracesummary.CallSiteKey), else their descriptor "TYPE cluster bytes"
// alone (tracesummary.Descriptor).
package tracediff

import (
	"cmp"
	"slices"

	"github.com/vkgen/vkgen/layer/memreport/tracesummary"
)

// Schema names the JSON document's version: a reader checks it and a
// change that removes or retypes a field gets a new one (fields may be
// added within a version).
const Schema = "vkgen.trace.diff/1"

// Side is a group in one trace.
type Side struct {
	Peak    int64 `json:"peak_bytes"`
	Final   int64 `json:"final_bytes"`
	Objects int   `json:"objects"`
	// Present is false when the trace has no such group (the values are
	// then 0).
	Present bool `json:"present"`
}

// Row is one group in both traces.
type Row struct {
	Kind         string `json:"kind"` // tracesummary.Kind*
	Key          string `json:"key"`
	Base         Side   `json:"base"`
	New          Side   `json:"new"`
	DeltaPeak    int64  `json:"delta_peak_bytes"`
	DeltaFinal   int64  `json:"delta_final_bytes"`
	DeltaObjects int    `json:"delta_objects"`
}

// Totals are a trace's figures that are no group.
type Totals struct {
	Objects            int                `json:"objects"`
	Leaks              int                `json:"leaks"`
	LeakedBytes        tracesummary.Bytes `json:"leaked_bytes"`
	AliveAtEnd         int                `json:"alive_at_end"`
	AliveBytes         tracesummary.Bytes `json:"alive_at_end_bytes"`
	AllocationFailures int                `json:"allocation_failures"`
	FailedBytes        tracesummary.Bytes `json:"failed_bytes"`
	DroppedEvents      int64              `json:"dropped_events"`
	LateEvents         int                `json:"late_events"`
	GroupsFolded       int                `json:"groups_folded"`
}

// Diff is the comparison of a new trace with a base.
type Diff struct {
	Trace      string `json:"trace"` // the new trace
	BaseTotals Totals `json:"base_totals"`
	NewTotals  Totals `json:"new_totals"`
	// Rows are the groups that changed (every group with Options.All),
	// largest change of peak or final bytes first.
	Rows []Row `json:"rows"`
	// Unchanged counts the groups equal in both traces and not in Rows.
	Unchanged int `json:"unchanged"`
	// Warnings say what makes the comparison less than exact (dropped or
	// late events, folded names).
	Warnings []string `json:"warnings"`
	// charts are the base's and the new trace's heap charts, for the HTML
	// page.
	charts [2]string
}

// Options tune Compare.
type Options struct {
	All bool // list unchanged groups too
}

// Compare compares summary n of trace name with base.
func Compare(base, n *tracesummary.Summary, name string, o Options) *Diff {
	d := &Diff{Trace: name, BaseTotals: totals(base), NewTotals: totals(n), Rows: []Row{}}
	type key struct{ kind, key string }
	rows := map[key]*Row{}
	var order []key
	side := func(s *tracesummary.Summary, set func(*Row, Side)) {
		for _, g := range s.Groups {
			k := key{g.Kind, g.Key}
			r := rows[k]
			if r == nil {
				r = &Row{Kind: g.Kind, Key: g.Key}
				rows[k] = r
				order = append(order, k)
			}
			set(r, Side{Peak: g.Peak, Final: g.Final, Objects: g.Objects, Present: true})
		}
	}
	side(base, func(r *Row, s Side) { r.Base = s })
	side(n, func(r *Row, s Side) { r.New = s })
	for _, k := range order {
		r := rows[k]
		r.DeltaPeak, r.DeltaFinal, r.DeltaObjects = r.New.Peak-r.Base.Peak, r.New.Final-r.Base.Final, r.New.Objects-r.Base.Objects
		if !o.All && r.DeltaPeak == 0 && r.DeltaFinal == 0 && r.DeltaObjects == 0 && r.Base.Present == r.New.Present {
			d.Unchanged++
			continue
		}
		d.Rows = append(d.Rows, *r)
	}
	slices.SortFunc(d.Rows, compareRows)
	d.Warnings = append(warnings("base", d.BaseTotals), warnings("new", d.NewTotals)...)
	d.charts = [2]string{base.ChartsHTML(), n.ChartsHTML()}
	return d
}

// kindOrder puts the broad groups before the narrow ones among equal
// changes.
var kindOrder = map[string]int{tracesummary.KindTotal: 0, tracesummary.KindHeap: 1, tracesummary.KindType: 2,
	tracesummary.KindCluster: 3, tracesummary.KindName: 4, tracesummary.KindCallSite: 5, tracesummary.KindDescriptor: 6}

// compareRows sorts by size of change: the larger of the peak's and the
// final's, then the object count's.
func compareRows(a, b Row) int {
	size := func(r Row) int64 { return max(abs(r.DeltaPeak), abs(r.DeltaFinal)) }
	return cmp.Or(cmp.Compare(size(b), size(a)), cmp.Compare(abs(int64(b.DeltaObjects)), abs(int64(a.DeltaObjects))),
		cmp.Compare(kindOrder[a.Kind], kindOrder[b.Kind]), cmp.Compare(a.Key, b.Key))
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

func totals(s *tracesummary.Summary) Totals {
	t := Totals{Objects: s.ObjectsTotal, Leaks: len(s.Leaks), AliveAtEnd: len(s.AliveAtEnd), AllocationFailures: s.AllocationFailures,
		FailedBytes: s.FailedBytes, DroppedEvents: s.DroppedEvents, LateEvents: s.LateEvents, GroupsFolded: s.GroupsFolded}
	for _, l := range s.Leaks {
		t.LeakedBytes = t.LeakedBytes.Add(l.Bytes)
	}
	for _, l := range s.AliveAtEnd {
		t.AliveBytes = t.AliveBytes.Add(l.Bytes)
	}
	return t
}
