package tracecheck

import (
	"fmt"
	"path"

	"github.com/vkgen/vkgen/layer/memreport/tracesummary"
)

// Statuses of an Outcome.
const (
	Pass  = "pass"
	Fail  = "fail"
	Error = "error" // the rule could not be evaluated on the trace
)

// Outcome is one rule on one trace (a name pattern gives one per name it
// matched, Subject naming it).
type Outcome struct {
	Rule    *Rule
	Subject string // the name a pattern matched, else ""
	Status  string
	Value   float64
	Limit   float64
	Message string
}

// Result is every rule's outcome on one trace.
type Result struct {
	Trace    string
	Outcomes []Outcome
}

// Failed says whether any outcome failed or is an error.
func (r *Result) Failed() bool {
	for _, o := range r.Outcomes {
		if o.Status != Pass {
			return true
		}
	}
	return false
}

// Check evaluates rules on trace s (named trace), baseline being the
// baseline trace's summary (nil: none; the rules must then have no
// relative limit). readErr is what reading the trace returned: without a
// summary every rule is an error; with one (a cut or damaged trace) the
// rules are evaluated and the damage is an error outcome of its own.
func Check(rules []Rule, trace string, s *tracesummary.Summary, readErr error, baseline *tracesummary.Summary) Result {
	res := Result{Trace: trace}
	if s == nil {
		for i := range rules {
			res.Outcomes = append(res.Outcomes, Outcome{Rule: &rules[i], Status: Error, Message: readErr.Error()})
		}
		return res
	}
	if readErr != nil {
		res.Outcomes = append(res.Outcomes, Outcome{Rule: &traceWhole, Status: Error,
			Message: fmt.Sprintf("%v; the rules below saw only the packets before or around it", readErr)})
	}
	for i := range rules {
		res.Outcomes = append(res.Outcomes, evaluate(&rules[i], s, baseline)...)
	}
	return res
}

// traceWhole is the pseudo-rule of a trace that could not be read whole.
var traceWhole = Rule{Metric: "trace", Text: "the trace is whole"}

func evaluate(r *Rule, s, base *tracesummary.Summary) []Outcome {
	errOut := func(format string, a ...any) []Outcome {
		return []Outcome{{Rule: r, Status: Error, Message: fmt.Sprintf(format, a...)}}
	}
	if s.Events == 0 {
		return errOut("the trace has no memory events (was VK_LAYER_VKGEN_DeviceMemoryReport enabled while it was recorded?)")
	}
	if growthMetric(r.Metric) && s.Frames.Count == 0 {
		return errOut("the trace has no frame end (vkgen.frame): growth is sampled at frame ends, at presents or every frame_window_ms before the first (a shorter run, or a trace of a layer without memory over time)")
	}
	if r.Relative && base == nil {
		return errOut("a limit relative to the baseline needs --baseline")
	}
	if r.Kind != tracesummary.KindName {
		v, _ := value(r, s, r.Key)
		var bv float64
		if r.Relative {
			bv, _ = value(r, base, r.Key)
		}
		return []Outcome{judge(r, "", v, bv)}
	}
	if s.GroupsFolded > 0 {
		return errOut("the trace has %d more names than --max-groups keeps; a name rule needs them all: raise --max-groups", s.GroupsFolded)
	}
	var out []Outcome
	for _, name := range names(s) {
		if ok, _ := path.Match(r.Key, name); !ok {
			continue
		}
		v, _ := value(r, s, name)
		var bv float64
		if r.Relative {
			var found bool
			if bv, found = value(r, base, name); !found {
				o := judge(r, name, v, 0)
				o.Message += " (not in the baseline)"
				out = append(out, o)
				continue
			}
		}
		out = append(out, judge(r, name, v, bv))
	}
	if len(out) == 0 {
		return errOut("no object name in the trace matches %q", r.Key)
	}
	return out
}

// value is rule r's metric of key in s; false when s has no such group
// (the value is then 0: a heap or cluster that never held memory).
func value(r *Rule, s *tracesummary.Summary, key string) (float64, bool) {
	switch r.Metric {
	case "leaks":
		return float64(len(s.Leaks)), true
	case "leaked_bytes":
		return sumBytes(s.Leaks), true
	case "alive_at_end":
		return float64(len(s.AliveAtEnd)), true
	case "alive_bytes":
		return sumBytes(s.AliveAtEnd), true
	case "failed_allocations":
		return float64(s.AllocationFailures), true
	case "failed_bytes":
		return s.FailedBytes.Float64(), true
	case "growth", "growth_events":
		return growthOf(r, s, key)
	}
	for _, g := range s.Groups {
		if g.Kind == r.Kind && g.Key == key {
			switch r.Metric {
			case "peak":
				return float64(g.Peak), true
			case "final":
				return float64(g.Final), true
			case "objects":
				return float64(g.Objects), true
			}
		}
	}
	return 0, false
}

// names are the object names of s: its name groups', and those only a
// growth event has (a name given to no object that ended or lived on,
// which cannot happen in the layer's traces but costs nothing to cover).
func names(s *tracesummary.Summary) []string {
	var out []string
	seen := map[string]bool{}
	for _, g := range s.Groups {
		if g.Kind == tracesummary.KindName && !seen[g.Key] {
			seen[g.Key] = true
			out = append(out, g.Key)
		}
	}
	for _, g := range s.Growths {
		if g.Name != "" && !seen[g.Name] {
			seen[g.Name] = true
			out = append(out, g.Name)
		}
	}
	return out
}

// growthOf is the growth of r's selector with key in s: the bytes its
// growth events found it grew by (each from its start to its finding), or
// their count. A group that never grew, or that s lacks, grew by 0.
func growthOf(r *Rule, s *tracesummary.Summary, key string) (float64, bool) {
	var bytes, events float64
	for _, g := range s.Growths {
		var in bool
		switch r.Kind {
		case tracesummary.KindName:
			in = g.Name == key
		case tracesummary.KindType:
			in = g.Type == key
		case tracesummary.KindTotal:
			in = (g.Type == "DRIVER") == (key == "driver")
		}
		if in {
			events++
			bytes += float64(g.Bytes - min(g.StartBytes, g.Bytes))
		}
	}
	if r.Metric == "growth_events" {
		return events, true
	}
	return bytes, true
}

func sumBytes(ls []tracesummary.Leak) float64 {
	var t float64
	for _, l := range ls {
		t += float64(l.Bytes)
	}
	return t
}

// judge compares v with r's limit (from the baseline's value bv when
// relative).
func judge(r *Rule, subject string, v, bv float64) Outcome {
	limit := r.Limit
	if r.Relative {
		limit = bv + r.Add + bv*r.Percent/100
	}
	var ok bool
	switch r.Op {
	case "<=":
		ok = v <= limit
	case "<":
		ok = v < limit
	case "==":
		ok = v == limit
	case ">=":
		ok = v >= limit
	case ">":
		ok = v > limit
	}
	o := Outcome{Rule: r, Subject: subject, Status: Pass, Value: v, Limit: limit}
	if !ok {
		o.Status = Fail
	}
	o.Message = fmt.Sprintf("%s; limit %s %s", format(r, v), r.Op, format(r, limit))
	if r.Relative {
		o.Message += fmt.Sprintf(" (baseline %s)", format(r, bv))
	}
	return o
}

// format prints a value in its metric's unit.
func format(r *Rule, v float64) string {
	switch r.Metric {
	case "objects", "leaks", "alive_at_end", "failed_allocations", "growth_events":
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.0f B", v)
}
