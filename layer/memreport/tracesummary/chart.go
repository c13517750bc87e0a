package tracesummary

import (
	"fmt"
	"html"
	"strings"
)

// palette cycles through distinguishable colours for the tracks.
var palette = []string{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"}

// SVG draws every counter track as a step line over time (x: time since the
// first sample, y: bytes) with a legend.
func (s *Summary) SVG() string { return svgChart(s.Series) }

// svgChart draws series as step lines with a legend.
func svgChart(series []Series) string {
	const w, h, left, right, top, bottom = 900, 420, 80, 20, 20, 40
	var tmax uint64
	var vmax int64
	for _, sr := range series {
		for _, p := range sr.Samples {
			tmax, vmax = max(tmax, p.Timestamp), max(vmax, p.Value)
		}
	}
	tmax, vmax = max(tmax, 1), max(vmax, 1)
	legendH := 16 * len(series)
	div, unit := timeUnit(tmax)
	x := func(t uint64) float64 { return left + float64(t)/float64(tmax)*(w-left-right) }
	y := func(v int64) float64 { return top + (1-float64(v)/float64(vmax))*(h-top-bottom) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">`+"\n", w, h+legendH)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>`+"\n", left, h-bottom, w-right, h-bottom)
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>`+"\n", left, top, left, h-bottom)
	for i := 0; i <= 4; i++ {
		v := vmax * int64(i) / 4
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", left-4, y(v)+4, humanBytes(v))
		t := tmax * uint64(i) / 4
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%.4g %s</text>`+"\n", x(t), h-bottom+16, float64(t)/div, unit)
	}
	for i, sr := range series {
		c := palette[i%len(palette)]
		var pts []string
		prev := int64(0)
		for j, p := range sr.Samples {
			if j > 0 {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(p.Timestamp), y(prev)))
			}
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(p.Timestamp), y(p.Value)))
			prev = p.Value
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"><title>%s</title></polyline>`+"\n", c, strings.Join(pts, " "), html.EscapeString(sr.Track))
		ly := h + 16*i + 4
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="10" height="10" fill="%s"/><text x="%d" y="%d">%s</text>`+"\n", left, ly, c, left+16, ly+9, html.EscapeString(sr.Track))
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// HTML is a self-contained page with the chart, the object, cluster and
// leak tables and the failed allocations.
func (s *Summary) HTML(title string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>%s</title>\n", html.EscapeString(title))
	b.WriteString("<style>body{font-family:sans-serif}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}td:first-child,th:first-child{text-align:left}</style></head><body>\n")
	fmt.Fprintf(&b, "<h1>%s</h1>\n<h2>Counters over time</h2>\n%s", html.EscapeString(title), s.SVG())
	b.WriteString("<h2>Memory per object</h2>\n<table><tr><th>name</th><th>type</th><th>handle</th><th>peak bytes</th><th>final bytes</th><th>cluster</th></tr>\n")
	for _, o := range s.Objects {
		fmt.Fprintf(&b, "<tr><td>%s</td><td>%s</td><td>%#x</td><td>%d</td><td>%d</td><td>%s</td></tr>\n",
			html.EscapeString(o.Name), o.Type, o.Handle, o.Bytes, o.Final, html.EscapeString(o.Cluster))
	}
	b.WriteString("</table>\n<h2>Memory per cluster</h2>\n<table><tr><th>track</th><th>peak bytes</th><th>final bytes</th></tr>\n")
	for _, c := range s.Clusters {
		fmt.Fprintf(&b, "<tr><td>%s</td><td>%d</td><td>%d</td></tr>\n", html.EscapeString(c.Track), c.Peak, c.Final)
	}
	b.WriteString("</table>\n")
	leakTable(&b, fmt.Sprintf("Leaks: %d", len(s.Leaks)), s.Leaks)
	if len(s.AliveAtEnd) > 0 {
		leakTable(&b, fmt.Sprintf("Alive at the end of the trace (no teardown, or the recording stopped first): %d", len(s.AliveAtEnd)), s.AliveAtEnd)
	}
	fmt.Fprintf(&b, "<p>Failed allocations: %d (%s bytes)</p>\n", s.AllocationFailures, s.FailedBytes)
	s.overTimeHTML(&b)
	b.WriteString("</body></html>\n")
	return b.String()
}

// leakTable writes a heading and a table of leaks.
func leakTable(b *strings.Builder, heading string, leaks []Leak) {
	fmt.Fprintf(b, "<h2>%s</h2>\n<table><tr><th>name</th><th>type</th><th>handle</th><th>bytes</th><th>heap</th><th>at</th><th>cluster</th></tr>\n", html.EscapeString(heading))
	for _, l := range leaks {
		fmt.Fprintf(b, "<tr><td>%s</td><td>%s</td><td>%#x</td><td>%d</td><td>%d</td><td>%s</td><td>%s</td></tr>\n",
			html.EscapeString(l.Name), html.EscapeString(l.Type), l.Handle, l.Bytes, l.Heap, html.EscapeString(l.At), html.EscapeString(l.Cluster))
	}
	b.WriteString("</table>\n")
}

// timeUnit picks the unit in which the longest time on the axis reads 1 to
// 1000, so that every tick label has the same unit and distinct values.
func timeUnit(maxNs uint64) (div float64, unit string) {
	switch {
	case maxNs >= 1e9:
		return 1e9, "s"
	case maxNs >= 1e6:
		return 1e6, "ms"
	case maxNs >= 1e3:
		return 1e3, "µs"
	}
	return 1, "ns"
}

func humanBytes(v int64) string {
	switch {
	case v >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(v)/(1<<30))
	case v >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(v)/(1<<20))
	case v >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(v)/(1<<10))
	}
	return fmt.Sprintf("%d B", v)
}
