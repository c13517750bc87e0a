package tracesummary

import (
	"encoding/json"
	"fmt"
	"html"
	"strconv"
	"strings"
)

// A memory block's address space drawn as a bar, the way Radeon Memory
// Visualizer shows one: for any row of the JSON model with a "size" and a
// list of "ranges" ({offset, size}), with "overlaps" drawn over them.

const (
	layoutWidth     = 360
	maxLayoutRanges = 500 // rectangles drawn per bar; a bar is 360 pixels wide
)

// blockLayout is the "layout" cell of a block's row.
type blockLayout struct {
	size             uint64
	ranges, overlaps []span
}

type span struct {
	off, size uint64
	label     string
}

// withLayouts adds a "layout" column to the rows that describe a block.
func withLayouts(rows []map[string]any) []map[string]any {
	for i, r := range rows {
		size, ok := uintOf(r["size"])
		ranges, isList := r["ranges"].([]any)
		if !ok || !isList || size == 0 {
			continue
		}
		l := blockLayout{size: size, ranges: spans(ranges), overlaps: spans(asList(r["overlaps"]))}
		c := make(map[string]any, len(r)+1)
		for k, v := range r {
			c[k] = v
		}
		c["layout"] = l
		rows[i] = c
	}
	return rows
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func spans(list []any) []span {
	var out []span
	for _, x := range list {
		m, ok := x.(map[string]any)
		if !ok {
			continue
		}
		off, ok1 := uintOf(m["offset"])
		size, ok2 := uintOf(m["size"])
		if ok1 && ok2 {
			label := plainText(map[string]any{"a": m["type"], "b": m["name"], "c": m["descriptor"]})
			out = append(out, span{off, size, label})
		}
	}
	return out
}

func uintOf(v any) (uint64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	u, err := strconv.ParseUint(n.String(), 10, 64)
	return u, err == nil
}

// svg draws the bar: the block's bytes grey, each range blue (alternating
// shades, so that neighbours show), overlaps red on top.
func (l blockLayout) svg() string {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="block" width="%d" height="14" data-points="%d"><rect width="%d" height="14" fill="#eee" stroke="#999"/>`, layoutWidth, 2*(len(l.ranges)+len(l.overlaps)), layoutWidth)
	x := func(v uint64) float64 { return float64(v) / float64(l.size) * layoutWidth }
	draw := func(spans []span, fill func(int) string, what string) {
		for i, s := range spans[:min(len(spans), maxLayoutRanges)] {
			fmt.Fprintf(&b, `<rect x="%.2f" y="1" width="%.2f" height="12" fill="%s"><title>%s at %d, %s %s</title></rect>`,
				x(s.off), max(x(s.off+s.size)-x(s.off), 0.5), fill(i), what, s.off, humanBytes(int64(min(s.size, 1<<62))), html.EscapeString(s.label))
		}
	}
	draw(l.ranges, func(i int) string { return [...]string{"#1f77b4", "#6baed6"}[i%2] }, "bound")
	draw(l.overlaps, func(int) string { return "#d62728" }, "aliased")
	b.WriteString("</svg>")
	if n := len(l.ranges) + len(l.overlaps); n > 2*maxLayoutRanges {
		fmt.Fprintf(&b, " (%d ranges; the first drawn)", n)
	}
	return b.String()
}
