package tracesummary

import (
	"cmp"
	"encoding/json"
	"fmt"
	"html"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Tables of the HTML page, made from the summary's JSON decoded generically
// (report.go): the columns are the rows' fields, so fields a later model
// adds show up as columns of their own.

// maxDepth bounds how deep nested values are drawn as tables.
const maxDepth = 3

func sortedKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// titleOf makes a heading of a JSON key: "alive_at_end" -> "Alive at end".
func titleOf(key string) string {
	t := strings.ReplaceAll(key, "_", " ")
	if t == "" {
		return t
	}
	return strings.ToUpper(t[:1]) + t[1:]
}

// tableHTML writes rows as a table: the lead columns the rows have, in
// that order, then every other field in name order; at most maxRows rows,
// total being how many the model holds.
func tableHTML(b *strings.Builder, rows []map[string]any, lead []string, total int) {
	tableDepth(b, rows, lead, total, 0)
}

func tableDepth(b *strings.Builder, rows []map[string]any, lead []string, total, depth int) {
	if len(rows) == 0 {
		b.WriteString("<p class=\"none\">none</p>\n")
		return
	}
	rows = withLayouts(flatten(rows))
	seen := map[string]bool{}
	var cols []string
	for _, k := range lead {
		for _, r := range rows {
			if _, ok := r[k]; ok {
				cols, seen[k] = append(cols, k), true
				break
			}
		}
	}
	var extra []string
	for _, r := range rows {
		for k := range r {
			if !seen[k] {
				extra, seen[k] = append(extra, k), true
			}
		}
	}
	// by name, what is at the end ("final...") after the rest (peaks)
	slices.SortFunc(extra, func(a, b string) int {
		return cmp.Or(cmp.Compare(endKey(a), endKey(b)), cmp.Compare(a, b))
	})
	cols = append(cols, extra...)
	b.WriteString("<table class=\"sortable\"><tr>")
	for _, c := range cols {
		fmt.Fprintf(b, "<th>%s</th>", html.EscapeString(columnTitle(c)))
	}
	b.WriteString("</tr>\n")
	for _, r := range rows[:min(len(rows), maxRows)] {
		b.WriteString("<tr>")
		for _, c := range cols {
			v, ok := r[c]
			if !ok {
				b.WriteString("<td></td>")
				continue
			}
			if n, num := v.(json.Number); num {
				// data-v: the exact value, which the script sorts by
				fmt.Fprintf(b, "<td class=\"n\" data-v=\"%s\">", html.EscapeString(n.String()))
			} else {
				b.WriteString("<td class=\"t\">")
			}
			valueHTML(b, c, v, depth+1)
			b.WriteString("</td>")
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</table>\n")
	if total > maxRows {
		fmt.Fprintf(b, "<p class=\"note\">%d more rows in the JSON summary (--format json).</p>\n", total-min(len(rows), maxRows))
	}
}

// flatten makes the fields of a row's flat objects (whose fields are all
// numbers or strings: totals at peak and at the end) columns of their own,
// "peak.bound_bytes", so that a table of them reads across.
func flatten(rows []map[string]any) []map[string]any {
	out := make([]map[string]any, len(rows))
	for i, r := range rows {
		var c map[string]any
		for k, v := range r {
			m, ok := v.(map[string]any)
			if !ok || !flat(m) {
				continue
			}
			if c == nil {
				c = maps.Clone(r)
			}
			delete(c, k)
			for sub, x := range m {
				if y, dup := r[sub]; !dup || y != x {
					c[k+"."+sub] = x
				}
			}
		}
		if c == nil {
			c = r
		}
		out[i] = c
	}
	return out
}

func flat(m map[string]any) bool {
	for _, v := range m {
		switch v.(type) {
		case json.Number, string, bool, nil:
		default:
			return false
		}
	}
	return len(m) > 0
}

func endKey(k string) int {
	if strings.HasPrefix(k, "final") {
		return 1
	}
	return 0
}

// columnTitle is how a column of field key is headed.
func columnTitle(key string) string {
	switch key {
	case "bytes", "peak_bytes":
		return "peak"
	case "final_bytes":
		return "final"
	case "created_ns":
		return "created"
	case "destroyed_ns":
		return "destroyed"
	case "ns":
		return "time"
	}
	if t, ok := strings.CutSuffix(key, "_ns"); ok {
		return strings.ReplaceAll(t, "_", " ") + " at"
	}
	return strings.NewReplacer("_", " ", ".", " ").Replace(strings.TrimSuffix(key, "_bytes"))
}

// valueHTML writes v, the value of field key: numbers by what the key
// says they are (bytes, times, handles), lists of objects and objects as
// nested tables (collapsed), everything escaped.
func valueHTML(b *strings.Builder, key string, v any, depth int) {
	switch v := v.(type) {
	case nil:
	case string:
		// flags (a|b|c) may break after each bar
		b.WriteString(strings.ReplaceAll(html.EscapeString(v), "|", "|<wbr>"))
	case bool:
		b.WriteString(plainText(v))
	case json.Number:
		b.WriteString(numberHTML(key, v))
	case blockLayout:
		b.WriteString(v.svg())
	case map[string]any:
		if depth > maxDepth {
			b.WriteString(html.EscapeString(plainText(v)))
			return
		}
		rows := []map[string]any{v}
		if depth > 0 {
			fmt.Fprintf(b, "<details><summary>%s</summary>", html.EscapeString(shorten(plainText(v))))
			defer b.WriteString("</details>")
		}
		tableDepth(b, rows, nil, 1, depth)
	case []any:
		var rows []map[string]any
		for _, x := range v {
			if m, ok := x.(map[string]any); ok {
				rows = append(rows, m)
			}
		}
		if len(rows) < len(v) || depth > maxDepth {
			b.WriteString(html.EscapeString(plainText(v)))
			return
		}
		if depth > 0 {
			fmt.Fprintf(b, "<details><summary>%d</summary>", len(rows))
			defer b.WriteString("</details>")
		}
		tableDepth(b, rows, []string{"heap", "kind", "key", "name", "handle", "descriptor", "offset", "size", "layout"}, len(rows), depth)
	}
}

func shorten(s string) string {
	if r := []rune(s); len(r) > 60 {
		return string(r[:59]) + "…"
	}
	return s
}

// numberHTML writes a number: bytes readable with the exact count on
// hover, times in seconds, handles in hex, anything else as it is.
func numberHTML(key string, n json.Number) string {
	i, err := n.Int64()
	switch {
	case err != nil:
		return html.EscapeString(n.String())
	case bytesKey(key):
		return fmt.Sprintf("<span title=\"%d bytes\">%s</span>", i, humanBytes(i))
	case key == "ns" || strings.HasSuffix(key, "_ns"):
		if i < 0 {
			return "—"
		}
		return fmt.Sprintf("%.6f s", float64(i)/1e9)
	case key == "handle" || strings.HasSuffix(key, "_handle"):
		return hexNumber(n)
	}
	return html.EscapeString(n.String())
}

// bytesKey says whether a field holds bytes.
func bytesKey(key string) bool {
	if strings.Contains(key, "bytes") {
		return true
	}
	switch strings.TrimPrefix(strings.TrimPrefix(key, "peak_"), "final_") {
	case "size", "budget", "usage", "allocated", "freed", "bound", "unbound", "aliased", "free", "hole", "holes", "overlap", "used":
		return true
	}
	return false
}

// hexNumber is an integer in JSON written in hex (handles are uint64).
func hexNumber(n json.Number) string {
	u, err := strconv.ParseUint(n.String(), 10, 64)
	if err != nil {
		return html.EscapeString(n.String())
	}
	return fmt.Sprintf("%#x", u)
}
