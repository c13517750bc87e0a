package tracesummary

import (
	"fmt"
	"html"
	"strings"
)

// palette cycles through distinguishable colours for the tracks.
var palette = []string{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"}

// SVG draws each heap's memory over time stacked by cluster, with the
// heap's size, budget and the driver's usage, one chart under the other.
func (s *Summary) SVG() string {
	var body strings.Builder
	y := 0
	for _, c := range s.heapCharts() {
		g, h := heapSVG(&c)
		fmt.Fprintf(&body, `<g transform="translate(0,%d)">%s</g>`+"\n", y, g)
		y += h
	}
	if y == 0 {
		body.WriteString(`<text x="10" y="14">no memory counters in this trace</text>` + "\n")
		y = 20
	}
	return fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">`+"\n"+
		`<rect width="100%%" height="100%%" fill="white"/>`+"\n%s</svg>\n", chartWidth, y, body.String())
}

// svgChart draws series over [0, end) ns with a legend: as step lines, or
// with impulses as a vertical line per sample (values that belong to one
// moment, such as a frame's allocations).
func svgChart(series []Series, end uint64, impulses bool) string {
	const w, h, left, right, top, bottom = chartWidth, 260, plotLeft, plotRight, 20, 40
	tmax := max(end, 1)
	var vmax int64
	for _, sr := range series {
		for _, p := range sr.Samples {
			tmax, vmax = max(tmax, p.Timestamp), max(vmax, p.Value)
		}
	}
	step := tickStep(max(vmax, 1))
	vmax = (vmax/step + 1) * step
	legendH := 16 * len(series)
	div, unit := timeUnit(tmax)
	x := func(t uint64) float64 { return left + float64(t)/float64(tmax)*(w-left-right) }
	y := func(v int64) float64 { return top + (1-float64(v)/float64(vmax))*(h-top-bottom) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">`+"\n", w, h+legendH)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>`+"\n", left, h-bottom, w-right, h-bottom)
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>`+"\n", left, top, left, h-bottom)
	for v := int64(0); v <= vmax; v += step {
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", left-4, y(v)+4, humanBytes(v))
	}
	for i := 0; i <= 4; i++ {
		t := tmax * uint64(i) / 4
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%.3g %s</text>`+"\n", x(t), h-bottom+16, float64(t)/div, unit)
	}
	for i, sr := range series {
		c := palette[i%len(palette)]
		var pts []string
		prev := int64(0)
		for j, p := range sr.Samples {
			switch {
			case impulses:
				pts = append(pts, fmt.Sprintf("M%.1f,%.1fV%.1f", x(p.Timestamp)+float64(i), y(0), y(p.Value)))
			case j > 0:
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(p.Timestamp), y(prev)))
				fallthrough
			default:
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(p.Timestamp), y(p.Value)))
			}
			prev = p.Value
		}
		if impulses {
			fmt.Fprintf(&b, `<path fill="none" stroke="%s" stroke-width="1.5" d="%s"><title>%s</title></path>`+"\n", c, strings.Join(pts, ""), html.EscapeString(sr.Track))
		} else {
			fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"><title>%s</title></polyline>`+"\n", c, strings.Join(pts, " "), html.EscapeString(sr.Track))
		}
		ly := h + 16*i + 4
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="10" height="10" fill="%s"/><text x="%d" y="%d">%s</text>`+"\n", left, ly, c, left+16, ly+9, html.EscapeString(sr.Track))
	}
	b.WriteString("</svg>\n")
	return b.String()
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
