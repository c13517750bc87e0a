package tracesummary

import (
	"fmt"
	"html"
	"strings"
)

// overTimeText writes the frames, growths and budget sections.
func (s *Summary) overTimeText(b *strings.Builder) {
	f := s.Frames
	fmt.Fprintf(b, "\nFrames: %d (%d with memory activity; allocated %d, freed %d, bound %d, unbound %d bytes in them", f.Count, f.Active, f.Allocated, f.Freed, f.Bound, f.Unbound)
	if f.BusiestAllocated > 0 {
		fmt.Fprintf(b, "; most allocated: frame %d, %d bytes", f.BusiestFrame, f.BusiestAllocated)
	}
	b.WriteString(")\n")
	fmt.Fprintf(b, "\nGrowth while the program ran: %d\n", len(s.Growths))
	for _, g := range s.Growths {
		fmt.Fprintf(b, "%-13s %-28s %12d -> %12d bytes over %d frames from %.6f s, found at %.6f s: %d bytes/s; %d objects, %d bytes:",
			g.Type, displayName(g.Name), g.StartBytes, g.Bytes, g.Frames, float64(g.StartNs)/1e9, float64(g.Ns)/1e9, g.BytesPerSecond, g.ObjectCount, g.ObjectBytes)
		for _, o := range g.Objects {
			fmt.Fprintf(b, " %#x (%d)", o.Handle, o.Bytes)
		}
		if uint64(len(g.Objects)) < g.ObjectCount {
			fmt.Fprintf(b, " ...")
		}
		b.WriteString("\n")
	}
	if len(s.HeapBudgets) > 0 {
		b.WriteString("\nHeap budgets (bytes)\n")
		fmt.Fprintf(b, "%4s %14s %14s  %s\n", "HEAP", "BUDGET", "PEAK USAGE", "SOURCE")
	}
	for _, h := range s.HeapBudgets {
		src := h.Source
		if src == sourceHeapSize {
			src = "heap size (no VK_EXT_memory_budget; usage: the bytes the layer saw allocated)"
		}
		fmt.Fprintf(b, "%4d %14d %14d  %s\n", h.Heap, h.Budget, h.PeakUsage, src)
	}
	fmt.Fprintf(b, "\nBudget thresholds crossed: %d\n", len(s.BudgetThresholds))
	for _, t := range s.BudgetThresholds {
		fmt.Fprintf(b, "heap %d at %.6f s: %d of %d bytes (threshold %d%%, %s); grew most: %s %+d bytes; largest new: %s %s %#x %d bytes; largest live: %s\n",
			t.Heap, float64(t.Ns)/1e9, t.Usage, t.Budget, t.Percent, t.Source, t.GrewCluster, t.GrewBytes,
			t.LargestType, displayName(t.LargestName), t.LargestHandle, t.LargestBytes, t.LargestLive)
	}
}

// overTimeHTML writes the frames' and growths' curves and the budget
// tables (the heap charts draw the budget lines).
func (s *Summary) overTimeHTML(b *strings.Builder) {
	f := &s.Frames
	fmt.Fprintf(b, "<h2>Frames: %d</h2>\n<p>%d with memory activity; in them allocated %s, freed %s, bound %s, unbound %s</p>\n",
		f.Count, f.Active, humanBytes(int64(min(f.Allocated, 1<<62))), humanBytes(int64(min(f.Freed, 1<<62))), humanBytes(int64(min(f.Bound, 1<<62))), humanBytes(int64(min(f.Unbound, 1<<62))))
	if len(f.Series) > 0 {
		b.WriteString(svgChart(f.Series, s.chartEnd(), true))
	}
	fmt.Fprintf(b, "<h2>Growth while the program ran: %d</h2>\n", len(s.Growths))
	if len(s.Growths) > 0 {
		var curves []Series
		for _, g := range s.Growths {
			curves = append(curves, Series{Track: g.Type + " " + displayName(g.Name), Samples: g.Samples})
		}
		b.WriteString(svgChart(curves, s.chartEnd(), false))
		b.WriteString("<table><tr><th>type</th><th>name</th><th>from bytes</th><th>to bytes</th><th>frames</th><th>bytes/s</th><th>objects</th></tr>\n")
		for _, g := range s.Growths {
			var objs []string
			for _, o := range g.Objects {
				objs = append(objs, fmt.Sprintf("%#x (%d)", o.Handle, o.Bytes))
			}
			fmt.Fprintf(b, "<tr><td>%s</td><td>%s</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%d: %s</td></tr>\n", html.EscapeString(g.Type),
				html.EscapeString(displayName(g.Name)), g.StartBytes, g.Bytes, g.Frames, g.BytesPerSecond, g.ObjectCount, html.EscapeString(strings.Join(objs, " ")))
		}
		b.WriteString("</table>\n")
	}
	if len(s.HeapBudgets) == 0 {
		return
	}
	b.WriteString("<h2>Heap budgets</h2>\n<table><tr><th>heap</th><th>size</th><th>budget</th><th>peak usage</th><th>source</th></tr>\n")
	for _, h := range s.HeapBudgets {
		fmt.Fprintf(b, "<tr><td>%d</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td>%s</td></tr>\n", h.Heap,
			humanBytes(h.Size), humanBytes(h.Budget), humanBytes(h.PeakUsage), html.EscapeString(h.Source))
	}
	fmt.Fprintf(b, "</table>\n<p>Budget thresholds crossed: %d</p>\n<ul>\n", len(s.BudgetThresholds))
	for _, t := range s.BudgetThresholds {
		fmt.Fprintf(b, "<li>heap %d: %d of %d bytes (%d%%, %s); grew most: %s; largest new: %s %s; largest live: %s</li>\n", t.Heap, t.Usage, t.Budget, t.Percent,
			html.EscapeString(t.Source), html.EscapeString(t.GrewCluster), html.EscapeString(t.LargestType), html.EscapeString(displayName(t.LargestName)), html.EscapeString(t.LargestLive))
	}
	b.WriteString("</ul>\n")
}
