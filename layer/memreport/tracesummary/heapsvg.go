package tracesummary

import (
	"fmt"
	"hash/fnv"
	"html"
	"slices"
	"strconv"
	"strings"
)

// The heap chart's geometry, in pixels.
const (
	chartWidth  = 900
	plotLeft    = 80
	plotRight   = 30
	plotTop     = 58
	plotHeight  = 200
	legendRow   = 16
	legendCols  = 3
	offScaleMul = 4 // a line more than this times the stack's peak is left off the plot, named in the legend
)

// clusterColours are the accounting's clusters' colours, in clusterOrder's
// order: every chart gives a cluster the same colour.
var clusterColours = []string{
	"#8c564b", "#e377c2", "#ff7f0e", "#d62728", "#bcbd22", "#2ca02c", "#98df8a", "#1f77b4",
	"#c5b0d5", "#9467bd", "#17becf", "#393b79", "#ffbb78", "#c49c94", "#f7b6d2", "#c7c7c7",
}

func clusterColour(cluster string) string {
	if i := slices.Index(clusterOrder, cluster); i >= 0 && i < len(clusterColours) {
		return clusterColours[i]
	}
	h := fnv.New32a()
	h.Write([]byte(cluster))
	return palette[h.Sum32()%uint32(len(palette))]
}

// colour is the layer's fill: its cluster's, paler for the driver's.
func (l *stackLayer) colour() string {
	c := clusterColour(l.Cluster)
	v, err := strconv.ParseUint(strings.TrimPrefix(c, "#"), 16, 32)
	if !l.Driver || err != nil {
		return c
	}
	pale := func(shift uint) uint64 { return (v>>shift&0xff + 2*0xff) / 3 }
	return fmt.Sprintf("#%02x%02x%02x", pale(16), pale(8), pale(0))
}

// lineStyles draw each kind of heapLine.
var lineStyles = map[string]string{
	lineSize:        `stroke="black" stroke-dasharray="8 4"`,
	lineBudget:      `stroke="#d00" stroke-width="2"`,
	lineBudgetUsage: `stroke="#444" stroke-dasharray="2 3"`,
}

// heapTitle names a chart's heap.
func (c *heapChart) title() string {
	if c.Heap < 0 {
		return "all heaps"
	}
	return fmt.Sprintf("heap %d", c.Heap)
}

// heapSVG draws c as SVG elements for a chart of chartWidth and the height
// it returns: a heading, a gauge of the peak against the heap's size and
// budget, the stack over time with the lines on scale, and a legend. Every
// drawn series carries data-points, its vertex count, which the HTML
// page's self-check reads.
func heapSVG(c *heapChart) (string, int) {
	var b strings.Builder
	plotW := float64(chartWidth - plotLeft - plotRight)
	x := func(col int) float64 { return plotLeft + float64(col)/chartColumns*plotW }
	var size, budget int64
	ymax := c.Peak
	var offScale []heapLine
	for _, l := range c.Lines {
		switch l.Kind {
		case lineSize:
			size = l.Max
		case lineBudget:
			budget = l.Values[len(l.Values)-1]
		}
		if c.Peak > 0 && l.Max > offScaleMul*c.Peak {
			offScale = append(offScale, l)
		} else {
			ymax = max(ymax, l.Max)
		}
	}
	step := tickStep(ymax)
	ymax = (ymax/step + 1) * step
	y := func(v int64) float64 { return plotTop + (1-float64(v)/float64(ymax))*plotHeight }
	div, unit := timeUnit(c.End)
	head := fmt.Sprintf("peak %s at %.4g %s", humanBytes(c.Peak), float64(c.PeakAt)/div, unit)
	if size > 0 {
		head += fmt.Sprintf(" = %s of the heap's %s", percent(c.Peak, size), humanBytes(size))
	}
	if budget > 0 {
		head += fmt.Sprintf("; budget %s (last)", humanBytes(budget))
	}
	fmt.Fprintf(&b, `<text x="%d" y="14"><tspan font-weight="bold" font-size="13">%s</tspan>  %s</text>`+"\n", plotLeft, c.title(), html.EscapeString(head))
	// The gauge: the peak against the heap's size (or the budget, or the
	// peak) at full scale, so that a heap much larger than its use still
	// shows how full it got.
	full := max(size, budget, c.Peak, 1)
	gx := func(v int64) float64 { return plotLeft + float64(v)/float64(full)*plotW }
	fmt.Fprintf(&b, `<rect x="%d" y="24" width="%.1f" height="10" fill="#eee" stroke="#999"><title>full scale: %s</title></rect>`+"\n", plotLeft, plotW, html.EscapeString(humanBytes(full)))
	fmt.Fprintf(&b, `<rect x="%d" y="24" width="%.1f" height="10" fill="#1f77b4"><title>peak %s</title></rect>`+"\n", plotLeft, max(gx(c.Peak)-plotLeft, 1), html.EscapeString(humanBytes(c.Peak)))
	if budget > 0 {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="20" x2="%.1f" y2="38" stroke="#d00" stroke-width="2"><title>budget %s</title></line>`+"\n", gx(budget), gx(budget), html.EscapeString(humanBytes(budget)))
	}
	fmt.Fprintf(&b, `<text x="%d" y="33" text-anchor="end" font-size="10">0</text><text x="%d" y="48" text-anchor="end" font-size="10">%s</text>`+"\n", plotLeft-4, chartWidth-plotRight, html.EscapeString(humanBytes(full)))
	// Axes and ticks.
	bottom := plotTop + plotHeight
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/><line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>`+"\n",
		plotLeft, bottom, chartWidth-plotRight, bottom, plotLeft, plotTop, plotLeft, bottom)
	for v := int64(0); v <= ymax; v += step {
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%s</text><line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#eee"/>`+"\n",
			plotLeft-4, y(v)+4, humanBytes(v), plotLeft+1, y(v), chartWidth-plotRight, y(v))
	}
	for i := 0; i <= 4; i++ {
		col := chartColumns * i / 4
		t := c.End * uint64(i) / 4
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%.3g %s</text>`+"\n", x(col), bottom+14, float64(t)/div, unit)
	}
	// The stack: each layer filled from its top down to the axis, the
	// highest first, so a polygon needs only its top edge.
	tops := make([][]int64, len(c.Layers))
	for i, l := range c.Layers {
		tops[i] = make([]int64, chartColumns)
		for col, v := range l.Values {
			tops[i][col] = v
			if i > 0 {
				tops[i][col] += tops[i-1][col]
			}
		}
	}
	for i := len(c.Layers) - 1; i >= 0; i-- {
		l := &c.Layers[i]
		pts := stepPoints(tops[i], x, y)
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(chartColumns), y(0)), fmt.Sprintf("%.1f,%.1f", x(0), y(0)))
		fill := l.colour()
		fmt.Fprintf(&b, `<polygon class="layer" data-points="%d" fill="%s" stroke="%s" stroke-width="0.5" points="%s"><title>%s: peak %s</title></polygon>`+"\n",
			len(pts), fill, fill, strings.Join(pts, " "), html.EscapeString(l.label()), humanBytes(l.Peak))
	}
	for _, l := range c.Lines {
		if slices.ContainsFunc(offScale, func(o heapLine) bool { return o.Kind == l.Kind }) {
			continue
		}
		pts := stepPoints(l.Values, x, y)
		fmt.Fprintf(&b, `<polyline class="line" data-points="%d" fill="none" %s points="%s"><title>%s: %s</title></polyline>`+"\n",
			len(pts), lineStyles[l.Kind], strings.Join(pts, " "), l.Kind, humanBytes(l.Max))
	}
	if c.Peak > 0 {
		px := x(column(c.PeakAt, c.End))
		fmt.Fprintf(&b, `<path d="M%.1f,%.1f l-4,-7 h8 z" fill="black"/>`+"\n", px, y(c.Peak)-1)
	}
	// The legend: the stack top down, then the lines.
	var items []string
	for i := len(c.Layers) - 1; i >= 0; i-- {
		l := &c.Layers[i]
		items = append(items, fmt.Sprintf(`<rect width="10" height="10" fill="%s"/><text x="14" y="9">%s  %s</text>`,
			l.colour(), html.EscapeString(l.label()), humanBytes(l.Peak)))
	}
	for _, l := range c.Lines {
		note := humanBytes(l.Max)
		if slices.ContainsFunc(offScale, func(o heapLine) bool { return o.Kind == l.Kind }) {
			note += " (off scale: see the gauge)"
		}
		items = append(items, fmt.Sprintf(`<line x1="0" y1="5" x2="10" y2="5" %s/><text x="14" y="9">%s  %s</text>`, lineStyles[l.Kind], l.Kind, note))
	}
	ly := bottom + 24
	colW := (chartWidth - plotLeft) / legendCols
	for i, it := range items {
		fmt.Fprintf(&b, `<g class="legend" transform="translate(%d,%d)">%s</g>`+"\n", plotLeft+colW*(i%legendCols), ly+legendRow*(i/legendCols), it)
	}
	return b.String(), ly + legendRow*((len(items)+legendCols-1)/legendCols) + 8
}

// tickStep is a round step of bytes (1, 2 or 5 times a power of ten of
// B, KiB, MiB or GiB) that divides [0, v] into at most 6 ticks.
func tickStep(v int64) int64 {
	unit := int64(1)
	for _, u := range []int64{1 << 30, 1 << 20, 1 << 10} {
		if v >= u {
			unit = u
			break
		}
	}
	for p := int64(1); ; p *= 10 {
		for _, m := range []int64{1, 2, 5} {
			if step := m * p * unit; v/step < 6 {
				return step
			}
		}
	}
}

// stepPoints is a step line through one value per column, as SVG points,
// with a vertex only where the value changes.
func stepPoints(vals []int64, x func(int) float64, y func(int64) float64) []string {
	var pts []string
	for i, v := range vals {
		if i == 0 || v != vals[i-1] {
			if i > 0 {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(i), y(vals[i-1])))
			}
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(i), y(v)))
		}
	}
	return append(pts, fmt.Sprintf("%.1f,%.1f", x(len(vals)), y(vals[len(vals)-1])))
}

// percent is part of whole as a short percentage.
func percent(part, whole int64) string {
	p := float64(part) / float64(whole) * 100
	switch {
	case p >= 10:
		return fmt.Sprintf("%.0f %%", p)
	case p >= 0.1:
		return fmt.Sprintf("%.1f %%", p)
	}
	return fmt.Sprintf("%.2g %%", p)
}
