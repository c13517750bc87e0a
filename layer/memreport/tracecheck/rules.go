// Package tracecheck checks traces written by
// VK_LAYER_VKGEN_DeviceMemoryReport against a rules file, for CI: limits on
// peak and final bytes and object counts per total, heap, cluster, type or
// name pattern, on growth while the program ran (bytes and growth events
// per name pattern, type or total), on leaks and failed allocations,
// absolute or relative to a baseline trace. A rule whose metric a trace lacks is an error, never a
// pass. It backs `vkgen trace check`; the syntax is in docs/memreport.md.
package tracecheck

import (
	"bufio"
	"fmt"
	"io"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/vkgen/vkgen/layer/memreport/accounting"
	"github.com/vkgen/vkgen/layer/memreport/tracesummary"
)

// Limits on a rules file: it is read whole into memory.
const (
	MaxRulesBytes = 1 << 20
	MaxRules      = 10000
)

// Rule is one line of a rules file.
type Rule struct {
	File string
	Line int
	Text string // the line as written, trimmed
	// Metric is one of the metric names below; Kind and Key select a group
	// (Kind "" for the per-trace metrics, Key a glob for KindName).
	Metric    string
	Kind, Key string
	Op        string
	// The limit is Limit, or with Relative the baseline's value plus Add
	// bytes plus Percent of it.
	Limit    float64
	Relative bool
	Add      float64
	Percent  float64
}

// Metrics of a group and of a whole trace.
var (
	groupMetrics = []string{"peak", "final", "objects", "growth", "growth_events"}
	traceMetrics = []string{"leaks", "leaked_bytes", "alive_at_end", "alive_bytes", "failed_allocations", "failed_bytes"}
	ops          = []string{"<=", "<", "==", ">=", ">"}
	types        = []string{"BUFFER", "IMAGE", "VIDEO_SESSION", "DEVICE_MEMORY", "DRIVER"}
	totals       = []string{"app", "driver"}
)

// growthMetric says whether metric is one of growth while the program ran
// (the layer's VulkanMemoryGrowth events).
func growthMetric(metric string) bool { return metric == "growth" || metric == "growth_events" }

// maxHeap is the largest heap index the layer writes (VK_MAX_MEMORY_HEAPS - 1).
const maxHeap = 15

// clusters are the names a cluster selector may take.
var clusters = func() []string {
	var out []string
	for _, n := range accounting.TrackNames() {
		if c, ok := strings.CutPrefix(n, "vulkan.mem.app.usage."); ok {
			out = append(out, c)
		}
	}
	return append(out, accounting.SwapchainMemoryType)
}()

// ParseError is a rules file's error at a line and column.
type ParseError struct {
	File      string
	Line, Col int
	Msg       string
}

func (e *ParseError) Error() string { return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg) }

// Parse reads a rules file: one rule a line, '#' starts a comment.
//
//	METRIC [SELECTOR] OP LIMIT
//	peak total app <= 512MiB
//	final name "leak.*" == 0
//	peak heap 0 <= baseline+5%
//	leaks == 0
func Parse(r io.Reader, file string) ([]Rule, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxRulesBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(data) > MaxRulesBytes {
		return nil, fmt.Errorf("%s: larger than %d bytes; a rules file is a few lines", file, MaxRulesBytes)
	}
	var rules []Rule
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	sc.Buffer(nil, MaxRulesBytes+1)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if i := commentStart(line); i >= 0 {
			line = line[:i]
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		if len(rules) == MaxRules {
			return nil, &ParseError{file, n, 1, fmt.Sprintf("more than %d rules", MaxRules)}
		}
		rule, err := parseLine(line, file, n)
		if err != nil {
			return nil, err
		}
		rules = append(rules, rule)
	}
	if len(rules) == 0 {
		return nil, fmt.Errorf("%s: no rules (a check of nothing would always pass)", file)
	}
	return rules, nil
}

// commentStart is the index of a '#' outside quotes, -1 when none.
func commentStart(line string) int {
	quoted := false
	for i, c := range line {
		switch {
		case c == '"':
			quoted = !quoted
		case c == '#' && !quoted:
			return i
		}
	}
	return -1
}

// token is a word of a line and the column it starts at.
type token struct {
	s   string
	col int
}

// tokens splits a line at blanks; "..." is one token (no escapes) and an
// operator is a token even without blanks around it.
func tokens(line, file string, n int) ([]token, error) {
	var out []token
	for i := 0; i < len(line); {
		switch c := line[i]; {
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '"':
			j := strings.IndexByte(line[i+1:], '"')
			if j < 0 {
				return nil, &ParseError{file, n, i + 1, "unterminated quote"}
			}
			out = append(out, token{line[i+1 : i+1+j], i + 1})
			i += j + 2
		case c == '<' || c == '>' || c == '=':
			j := i + 1
			if j < len(line) && line[j] == '=' {
				j++
			}
			out = append(out, token{line[i:j], i + 1})
			i = j
		default:
			j := i
			for j < len(line) && !strings.ContainsRune(" \t\r\"<>=", rune(line[j])) {
				j++
			}
			out = append(out, token{line[i:j], i + 1})
			i = j
		}
	}
	return out, nil
}

func parseLine(line, file string, n int) (Rule, error) {
	toks, err := tokens(line, file, n)
	if err != nil {
		return Rule{}, err
	}
	fail := func(t token, format string, a ...any) (Rule, error) {
		return Rule{}, &ParseError{file, n, t.col, fmt.Sprintf(format, a...)}
	}
	r := Rule{File: file, Line: n, Text: strings.TrimSpace(line), Metric: toks[0].s}
	opAt := slices.IndexFunc(toks, func(t token) bool { return slices.Contains(ops, t.s) })
	if opAt < 0 {
		return fail(toks[len(toks)-1], "no comparison (want one of %s)", strings.Join(ops, " "))
	}
	switch {
	case slices.Contains(traceMetrics, r.Metric):
		if opAt != 1 {
			return fail(toks[min(1, len(toks)-1)], "%s takes no selector: %s OP LIMIT", r.Metric, r.Metric)
		}
	case slices.Contains(groupMetrics, r.Metric):
		if opAt < 3 {
			return fail(toks[min(1, len(toks)-1)], "%s needs a selector (total, heap, cluster, type or name) and a value: %s SELECTOR OP LIMIT", r.Metric, r.Metric)
		}
		if opAt > 3 {
			return fail(toks[3], "unexpected %q after the selector (quote a name pattern with blanks)", toks[3].s)
		}
		if growthMetric(r.Metric) && !slices.Contains([]string{tracesummary.KindName, tracesummary.KindType, tracesummary.KindTotal}, toks[1].s) {
			return fail(toks[1], "%s is measured per name, type or total, not %q", r.Metric, toks[1].s)
		}
		if err, inKind := r.selector(toks[1].s, toks[2].s); inKind {
			return fail(toks[1], "%s", err)
		} else if err != "" {
			return fail(toks[2], "%s", err)
		}
		if r.Kind == tracesummary.KindName {
			if _, err := path.Match(r.Key, ""); err != nil {
				return fail(toks[2], "bad name pattern %q: %v", r.Key, err)
			}
		}
	default:
		return fail(toks[0], "unknown metric %q (want one of %s)", r.Metric, strings.Join(append(slices.Clone(groupMetrics), traceMetrics...), ", "))
	}
	r.Op = toks[opAt].s
	if opAt+1 >= len(toks) {
		return fail(toks[opAt], "no limit after %s", r.Op)
	}
	var text strings.Builder
	for _, t := range toks[opAt+1:] {
		text.WriteString(t.s)
	}
	if err := r.limit(text.String()); err != "" {
		return fail(toks[opAt+1], "%s", err)
	}
	return r, nil
}

// selector sets Kind and Key from "total app", "heap 0", ...; the error
// text, "" when none, and whether it is about the kind.
func (r *Rule) selector(kind, key string) (string, bool) {
	r.Kind, r.Key = kind, key
	var valid []string
	switch kind {
	case tracesummary.KindTotal:
		valid = totals
	case tracesummary.KindHeap:
		if h, err := strconv.ParseUint(key, 10, 8); err != nil || h > maxHeap {
			return fmt.Sprintf("heap %q: want an index from 0 to %d", key, maxHeap), false
		}
		return "", false
	case tracesummary.KindCluster:
		valid = clusters
	case tracesummary.KindType:
		valid = types
	case tracesummary.KindName:
		return "", false
	default:
		return fmt.Sprintf("unknown selector %q (want total, heap, cluster, type or name)", kind), true
	}
	if !slices.Contains(valid, key) {
		return fmt.Sprintf("unknown %s %q (want one of %s)", kind, key, strings.Join(valid, ", ")), false
	}
	return "", false
}

// limit parses "512MiB", "0", "baseline", "baseline+5%", "baseline-1MiB".
func (r *Rule) limit(s string) string {
	rest, rel := strings.CutPrefix(s, "baseline")
	if !rel {
		v, err := bytesOf(s)
		if err != "" {
			return err
		}
		r.Limit = v
		return ""
	}
	r.Relative = true
	if rest == "" {
		return ""
	}
	sign := 1.0
	switch rest[0] {
	case '+':
	case '-':
		sign = -1
	default:
		return fmt.Sprintf("after baseline: want +N%%, -N%%, +BYTES or -BYTES, not %q", rest)
	}
	if p, ok := strings.CutSuffix(rest[1:], "%"); ok {
		v, err := strconv.ParseFloat(p, 64)
		if err != nil || !(v >= 0 && v <= 1e6) {
			return fmt.Sprintf("bad percentage %q", rest[1:])
		}
		r.Percent = sign * v
		return ""
	}
	v, err := bytesOf(rest[1:])
	r.Add = sign * v
	return err
}

// units are the byte suffixes a limit may carry.
var units = []struct {
	suffix string
	mul    float64
}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1}}

// bytesOf parses a non-negative number with an optional unit.
func bytesOf(s string) (float64, string) {
	mul := 1.0
	num := s
	for _, u := range units {
		if n, ok := strings.CutSuffix(s, u.suffix); ok {
			num, mul = n, u.mul
			break
		}
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || !(v >= 0 && v*mul <= 1<<62) { // NaN too
		return 0, fmt.Sprintf("bad limit %q: want a number of bytes with an optional unit (B, KiB, MiB, GiB, KB, MB, GB), or baseline[+-N%%|+-BYTES]", s)
	}
	return v * mul, ""
}
