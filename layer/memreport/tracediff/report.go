package tracediff

import (
	"fmt"
	"html"
	"strings"

	"github.com/vkgen/vkgen/layer/memreport/tracesummary"
)

// Report is the document of `vkgen trace diff BASE NEW...`: one Diff per
// new trace, in argument order. Its JSON form is the versioned schema
// (Schema; docs/memreport.md).
type Report struct {
	Schema string  `json:"schema"`
	Base   string  `json:"base"`
	Diffs  []*Diff `json:"diffs"`
}

// NewReport makes the report of base's diffs.
func NewReport(base string, diffs []*Diff) *Report {
	return &Report{Schema: Schema, Base: base, Diffs: diffs}
}

// Text renders the report: with several new traces a roll-up line per
// trace first, then each diff's top rows (every row when top is 0).
func (r *Report) Text(top int) string {
	var b strings.Builder
	if len(r.Diffs) > 1 {
		fmt.Fprintf(&b, "Against %s (app memory, every cluster)\n", r.Base)
		fmt.Fprintf(&b, "%-40s %14s %14s %8s %8s %8s\n", "TRACE", "Δ PEAK", "Δ FINAL", "Δ LEAKS", "Δ FAILED", "CHANGED")
		for _, d := range r.Diffs {
			t := d.total()
			fmt.Fprintf(&b, "%-40s %14s %14s %8s %8s %8d\n", d.Trace, signed(t.DeltaPeak), signed(t.DeltaFinal),
				signed(int64(d.NewTotals.Leaks-d.BaseTotals.Leaks)), signed(int64(d.NewTotals.AllocationFailures-d.BaseTotals.AllocationFailures)), len(d.Rows))
		}
		b.WriteString("\n")
	}
	for _, d := range r.Diffs {
		d.text(&b, r.Base, top)
	}
	return b.String()
}

func (d *Diff) text(b *strings.Builder, base string, top int) {
	bt, nt := d.BaseTotals, d.NewTotals
	fmt.Fprintf(b, "%s -> %s\n", base, d.Trace)
	fmt.Fprintf(b, "objects %d -> %d, leaks %d -> %d (%s -> %s bytes), alive at the end %d -> %d, failed allocations %d -> %d\n",
		bt.Objects, nt.Objects, bt.Leaks, nt.Leaks, bt.LeakedBytes, nt.LeakedBytes, bt.AliveAtEnd, nt.AliveAtEnd, bt.AllocationFailures, nt.AllocationFailures)
	for _, w := range d.Warnings {
		fmt.Fprintf(b, "warning: %s\n", w)
	}
	if len(d.Rows) == 0 {
		fmt.Fprintf(b, "No change in memory (%d groups compared).\n\n", d.Unchanged)
		return
	}
	fmt.Fprintf(b, "%-10s %-36s %12s %12s %12s %12s %12s\n", "KIND", "KEY", "PEAK BASE", "PEAK NEW", "Δ PEAK", "Δ FINAL", "OBJECTS")
	rows := d.Rows
	if top > 0 && len(rows) > top {
		rows = rows[:top]
	}
	for _, r := range rows {
		fmt.Fprintf(b, "%-10s %-36s %12s %12s %12s %12s %12s\n", r.Kind, r.Key, side(r.Base, r.Base.Peak), side(r.New, r.New.Peak),
			signed(r.DeltaPeak), signed(r.DeltaFinal), fmt.Sprintf("%d -> %d", r.Base.Objects, r.New.Objects))
	}
	if n := len(d.Rows) - len(rows); n > 0 {
		fmt.Fprintf(b, "... %d more changed groups (--top 0 lists every one)\n", n)
	}
	fmt.Fprintf(b, "%d groups unchanged\n\n", d.Unchanged)
}

// total is the row of the app total, zero when neither trace has one.
func (d *Diff) total() Row {
	for _, r := range d.Rows {
		if r.Kind == tracesummary.KindTotal && r.Key == "app" {
			return r
		}
	}
	return Row{}
}

// side is v, or "-" when the trace lacks the group.
func side(s Side, v int64) string {
	if !s.Present {
		return "-"
	}
	return fmt.Sprint(v)
}

func signed(v int64) string {
	if v > 0 {
		return fmt.Sprintf("+%d", v)
	}
	return fmt.Sprint(v)
}

// HTML is a self-contained page (tracesummary.Page: its style, script
// and self-check) with every diff's rows and both traces' heap charts.
func (r *Report) HTML(title string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<h1>%s</h1>\n<p>Base: %s</p>\n", html.EscapeString(title), html.EscapeString(r.Base))
	for _, d := range r.Diffs {
		fmt.Fprintf(&b, "<h2>%s</h2>\n", html.EscapeString(d.Trace))
		bt, nt := d.BaseTotals, d.NewTotals
		fmt.Fprintf(&b, "<p>objects %d &rarr; %d, leaks %d &rarr; %d, alive at the end %d &rarr; %d, failed allocations %d &rarr; %d</p>\n",
			bt.Objects, nt.Objects, bt.Leaks, nt.Leaks, bt.AliveAtEnd, nt.AliveAtEnd, bt.AllocationFailures, nt.AllocationFailures)
		for _, w := range d.Warnings {
			fmt.Fprintf(&b, "<p class=\"warn\">warning: %s</p>\n", html.EscapeString(w))
		}
		b.WriteString("<table><tr><th>kind</th><th>key</th><th>peak base</th><th>peak new</th><th>&Delta; peak</th><th>final base</th><th>final new</th><th>&Delta; final</th><th>objects base</th><th>objects new</th></tr>\n")
		for _, x := range d.Rows {
			fmt.Fprintf(&b, "<tr><td>%s</td><td>%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td>%s<td class=\"n\">%s</td><td class=\"n\">%s</td>%s<td class=\"n\">%d</td><td class=\"n\">%d</td></tr>\n",
				html.EscapeString(x.Kind), html.EscapeString(x.Key), side(x.Base, x.Base.Peak), side(x.New, x.New.Peak), deltaCell(x.DeltaPeak),
				side(x.Base, x.Base.Final), side(x.New, x.New.Final), deltaCell(x.DeltaFinal), x.Base.Objects, x.New.Objects)
		}
		fmt.Fprintf(&b, "</table>\n<p>%d groups unchanged</p>\n", d.Unchanged)
		fmt.Fprintf(&b, "<h3>Memory per heap: base, %s</h3>\n%s<h3>Memory per heap: new, %s</h3>\n%s", html.EscapeString(r.Base), d.charts[0], html.EscapeString(d.Trace), d.charts[1])
	}
	return tracesummary.Page(title, b.String())
}

func deltaCell(v int64) string {
	class := ""
	switch {
	case v > 0:
		class = " up"
	case v < 0:
		class = " down"
	}
	return fmt.Sprintf("<td class=\"n%s\">%s</td>", class, signed(v))
}
