package tracesummary

import (
	"bytes"
	"cmp"
	_ "embed"
	"encoding/json"
	"fmt"
	"html"
	"slices"
	"strings"
)

// The page's style and script, inlined: the page is one file that needs
// no network.
var (
	//go:embed report.css
	reportCSS string
	//go:embed report.js
	reportJS string
)

// maxRows bounds a table of the page and a list of the text summary; the
// JSON summary has every row.
const maxRows = 100

// knownKeys are the summary's JSON fields the page lays out itself; any
// other field (a later version's) is shown as a table of its own, so that
// the page shows what the JSON model holds without knowing it.
var knownKeys = map[string]bool{
	"objects": true, "objects_total": true, "events": true, "clusters": true, "leaks": true, "alive_at_end": true,
	"allocation_failures": true, "failed_bytes": true, "dropped_events": true, "late_events": true, "groups": true,
	"groups_folded": true, "frames": true, "growths": true, "budget_thresholds": true, "heap_budgets": true,
}

// HTML is a self-contained page: per heap the memory over time stacked by
// cluster against the heap's size and budget, the objects that held the
// most, unnamed memory grouped by call site and descriptor, the groups,
// leaks, failures and memory over time, and every other part of the JSON
// summary as a table. The tables are made from the summary's JSON, so a
// field added to the model shows without a change here. Every string from
// the trace is escaped; the charts' data is JSON inside a script element
// (encoding/json escapes <, > and &). The script (report.js) adds the
// charts' read-outs and writes a self-check into #vkgen-check.
func (s *Summary) HTML(title string) string { return s.page(title, summaryModel(s)) }

// page is the HTML page of s whose tables come from model, s's JSON.
func (s *Summary) page(title string, model map[string]any) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<h1>%s</h1>\n", html.EscapeString(title))
	s.factsHTML(&b)
	b.WriteString("<h2>Memory per heap over time, stacked by cluster</h2>\n")
	b.WriteString(s.ChartsHTML())
	// Unknown top-level fields (totals, blocks, ...) come right after the
	// charts: they are what a newer model adds about the heaps.
	// The shorter first: a summary (totals) before its detail (blocks).
	extra := slices.DeleteFunc(sortedKeys(model), func(k string) bool { return knownKeys[k] })
	slices.SortStableFunc(extra, func(a, b string) int { return cmp.Compare(rowCount(model[a]), rowCount(model[b])) })
	for _, k := range extra {
		fmt.Fprintf(&b, "<h2>%s</h2>\n", html.EscapeString(titleOf(k)))
		valueHTML(&b, k, model[k], 0)
	}
	objectsHTML(&b, model, s.ObjectsTotal)
	groupsHTML(&b, model["groups"], s.GroupsFolded)
	leakHTML(&b, fmt.Sprintf("Leaks: %d", len(s.Leaks)), model["leaks"])
	if len(s.AliveAtEnd) > 0 {
		leakHTML(&b, fmt.Sprintf("Alive at the end of the trace (no teardown, or the recording stopped first): %d", len(s.AliveAtEnd)), model["alive_at_end"])
	}
	fmt.Fprintf(&b, "<h2>Failed allocations: %d</h2>\n<p>%s bytes requested in all.</p>\n", s.AllocationFailures, plainNumber(model["failed_bytes"]))
	s.overTimeHTML(&b)
	return Page(title, b.String())
}

// Page is a self-contained HTML page of body under title, with the
// report's style and script (the charts' read-outs and the self-check in
// #vkgen-check); `vkgen trace diff --html` shares it. The script is in a
// CDATA section, so that the page also reads as XML.
func Page(title, body string) string {
	return fmt.Sprintf("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>%s</title>\n<style>%s</style></head><body>\n%s"+
		"<pre id=\"vkgen-check\">{\"done\":false}</pre>\n<script>//<![CDATA[\n%s//]]>\n</script>\n</body></html>\n", html.EscapeString(title), reportCSS, body, reportJS)
}

// ChartsHTML is the heap charts of s as figures of inline SVG, each with
// its columns as JSON for the script's read-outs.
func (s *Summary) ChartsHTML() string {
	charts := s.heapCharts()
	if len(charts) == 0 {
		return "<p>No memory counters in this trace.</p>\n"
	}
	var b strings.Builder
	for i := range charts {
		c := &charts[i]
		g, h := heapSVG(c)
		data, _ := json.Marshal(c)
		fmt.Fprintf(&b, "<figure class=\"heap\"><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\" data-plot=\"%d %d %d %d\">\n%s</svg>\n<div class=\"tip\" hidden></div>\n<script type=\"application/json\" class=\"cols\">%s</script></figure>\n",
			chartWidth, h, chartWidth, h, plotLeft, plotTop, chartWidth-plotLeft-plotRight, plotHeight, g, data)
	}
	b.WriteString("<p class=\"note\">Each column of a chart is the moment in it when the heap held the most. The clusters are the layer's counters: a byte bound to two resources counts in both clusters.</p>\n")
	return b.String()
}

// rowCount is how many rows v makes: a list's length, else 1.
func rowCount(v any) int {
	if l, ok := v.([]any); ok {
		return len(l)
	}
	return 1
}

// summaryModel is s as its JSON (what `--format json` writes), decoded
// generically, numbers exact.
func summaryModel(s *Summary) map[string]any {
	data, err := json.Marshal(s)
	if err != nil {
		return map[string]any{}
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var m map[string]any
	if d.Decode(&m) != nil {
		return map[string]any{}
	}
	return m
}

// factsHTML writes the line of facts under the title, and the warnings.
func (s *Summary) factsHTML(b *strings.Builder) {
	fmt.Fprintf(b, "<p class=\"facts\">%d objects, %d events, %d frames, %d leaks, %d failed allocations.</p>\n",
		s.ObjectsTotal, s.Events, s.Frames.Count, len(s.Leaks), s.AllocationFailures)
	if s.DroppedEvents > 0 {
		fmt.Fprintf(b, "<p class=\"warn\">The trace writer dropped %d events (its buffers were full): the tables miss them.</p>\n", s.DroppedEvents)
	}
	if s.LateEvents > 0 {
		fmt.Fprintf(b, "<p class=\"warn\">%d events reached the file more than the reordering window late and were applied out of order; raise --window.</p>\n", s.LateEvents)
	}
}

// plainNumber is a number of the model as it is (a sum of bytes may pass
// 2^64), else "?".
func plainNumber(v any) string {
	if n, ok := v.(json.Number); ok {
		return html.EscapeString(n.String())
	}
	return "?"
}

// objectsHTML writes the objects that held the most, each labelled by its
// name, else its descriptor, with its call site when the model has them.
func objectsHTML(b *strings.Builder, model map[string]any, total int) {
	objs, _ := model["objects"].([]any)
	fmt.Fprintf(b, "<h2>Objects that held the most: %d of %d</h2>\n", len(objs), total)
	rows := make([]map[string]any, 0, len(objs))
	for _, o := range objs {
		if m, ok := o.(map[string]any); ok {
			rows = append(rows, withLabel(m))
		}
	}
	tableHTML(b, rows, []string{"object", "type", "bytes", "final_bytes", "cluster", "created_ns", "destroyed_ns"}, len(objs))
}

// The keys an object's descriptor and call site may come under.
var (
	descriptorKeys = []string{"descriptor", "description", "create_info", "info", "attributes"}
	callSiteKeys   = []string{"call_site", "callsite", "site", "call_stack", "callstack", "stack"}
)

// withLabel is m with an "object" column: its name and descriptor (else
// "(unnamed)"), then " — " and its call site, then its handle; the fields
// used leave m's other columns.
func withLabel(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	label, _ := m["name"].(string)
	delete(out, "name")
	desc, site := take(out, descriptorKeys), take(out, callSiteKeys)
	switch {
	case label == "" && desc == "":
		label = "(unnamed)"
	case label == "":
		label = desc
	case desc != "":
		label += ": " + desc
	}
	if site != "" {
		label += " — " + site
	}
	if h, ok := m["handle"].(json.Number); ok {
		label += " " + hexNumber(h)
		delete(out, "handle")
	}
	out["object"] = label
	return out
}

// take removes the first of keys m has and returns its value as text.
func take(m map[string]any, keys []string) string {
	for _, k := range keys {
		if v, ok := m[k]; ok && v != nil {
			delete(m, k)
			return plainText(v)
		}
	}
	return ""
}

// plainText is v as one line: strings as they are, maps as their values
// in key order, lists joined by " < " (a call stack, innermost first).
func plainText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case json.Number:
		return v.String()
	case map[string]any:
		if f, ok := v["function"].(string); ok { // a stack frame
			if file, _ := v["file"].(string); file != "" {
				return fmt.Sprintf("%s (%s:%s)", f, file, plainText(v["line"]))
			}
			return f
		}
		var parts []string
		for _, k := range sortedKeys(v) {
			if t := plainText(v[k]); t != "" {
				parts = append(parts, t)
			}
		}
		return strings.Join(parts, " ")
	case []any:
		var parts []string
		for _, x := range v {
			parts = append(parts, plainText(x))
		}
		return strings.Join(parts, " < ")
	case bool:
		if v {
			return "yes"
		}
		return "no"
	}
	return ""
}

// groupsHTML writes the groups: unnamed memory by call site and descriptor
// (every object kind that is not a name), named memory, then the types,
// clusters, heaps and totals.
func groupsHTML(b *strings.Builder, groups any, folded int) {
	list, _ := groups.([]any)
	var unnamed, named, rollup []map[string]any
	for _, g := range list {
		m, ok := g.(map[string]any)
		if !ok {
			continue
		}
		switch m["kind"] {
		case KindName:
			n := map[string]any{}
			for k, v := range m {
				if k != "kind" {
					n[k] = v
				}
			}
			named = append(named, n)
		case KindType, KindCluster, KindHeap, KindTotal:
			rollup = append(rollup, m)
		default:
			unnamed = append(unnamed, m)
		}
	}
	b.WriteString("<h2>Unnamed memory by call site and descriptor</h2>\n")
	tableHTML(b, unnamed, []string{"key", "kind", "peak_bytes", "final_bytes", "objects"}, len(unnamed))
	b.WriteString("<h2>Named memory</h2>\n")
	tableHTML(b, named, []string{"key", "peak_bytes", "final_bytes", "objects"}, len(named))
	if folded > 0 {
		fmt.Fprintf(b, "<p class=\"note\">%d more names and descriptors counted together as %s.</p>\n", folded, html.EscapeString(OtherNames))
	}
	b.WriteString("<h2>Memory per type, cluster, heap and in all</h2>\n")
	tableHTML(b, rollup, []string{"kind", "key", "peak_bytes", "final_bytes", "objects"}, len(rollup))
}

func leakHTML(b *strings.Builder, heading string, leaks any) {
	fmt.Fprintf(b, "<h2>%s</h2>\n", html.EscapeString(heading))
	list, _ := leaks.([]any)
	var rows []map[string]any
	for _, l := range list {
		if m, ok := l.(map[string]any); ok {
			rows = append(rows, withLabel(m))
		}
	}
	tableHTML(b, rows, []string{"object", "type", "bytes", "heap", "at", "ns", "cluster"}, len(rows))
}
