package tracing

import (
	"fmt"
	"slices"
	"strings"

	"github.com/vkgen/vkgen/perfetto"
)

// categoryPatterns reads trace_categories (from source): comma-separated
// category names or patterns as Perfetto's track_event config takes them,
// "*" and a trailing "*" ("Vulkan*"). An entry with another wildcard or
// matching no registered category is reported (Warn) and left out; when no
// entry is left the trace records every category, the default, so a
// misspelt name costs a warning, not the trace. nil means every category.
func categoryPatterns(value, source string) []string {
	var known []string
	for _, c := range perfetto.Categories() {
		if !c.Always {
			known = append(known, c.Name)
		}
	}
	var out []string
	for _, p := range strings.Split(value, ",") {
		p = strings.TrimSpace(p)
		switch {
		case p == "":
		case strings.ContainsAny(strings.TrimSuffix(p, "*"), "*?[]\\"):
			Warn("settings.trace_categories", fmt.Sprintf("settings: trace_categories from %s: %q: only a trailing * is a wildcard, as in Perfetto's track_event config; ignored", source, p))
		case !slices.ContainsFunc(known, func(name string) bool { return categoryMatches(p, name) }):
			Warn("settings.trace_categories", fmt.Sprintf("settings: trace_categories from %s: %q names no category (there are %s); ignored", source, p, strings.Join(known, ", ")))
		default:
			out = append(out, p)
		}
	}
	if out == nil && strings.TrimSpace(value) != "" {
		Warn("settings.trace_categories", fmt.Sprintf("settings: trace_categories from %s: no valid entry left; recording every category", source))
	}
	return out
}

// categoryMatches is Perfetto's track_event rule: a pattern ending in "*"
// matches the names it prefixes, any other the name itself.
func categoryMatches(pattern, name string) bool {
	if prefix, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(name, prefix)
	}
	return pattern == name
}
