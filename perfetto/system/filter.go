package system

import (
	"path"

	"github.com/vkgen/vkgen/perfetto"
)

// catFilter decides which track-event categories a data-source instance
// records, with the C++ SDK's rules for TrackEventConfig: exact matches in
// enabled then disabled categories, then glob matches in enabled then
// disabled categories; a category that matches nothing is enabled (the C++
// SDK default). The layers' categories have no tags, so tag filters never
// match them.
type catFilter struct {
	enabled, disabled []string
}

func newCatFilter(c trackEventConfig) *catFilter {
	return &catFilter{enabled: c.enabledCats, disabled: c.disabledCats}
}

// sessionFilter is the instance's perfetto.Options.CategoryFilter; nil when
// nothing is disabled, so the session skips filtering altogether.
func (f *catFilter) sessionFilter() func(perfetto.Category) bool {
	if len(f.disabled) == 0 {
		return nil
	}
	return func(c perfetto.Category) bool { return f.allows(c.String()) }
}

func (f *catFilter) allows(name string) bool {
	for _, p := range f.enabled {
		if p == name {
			return true
		}
	}
	for _, p := range f.disabled {
		if p == name {
			return false
		}
	}
	for _, p := range f.enabled {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	for _, p := range f.disabled {
		if ok, _ := path.Match(p, name); ok {
			return false
		}
	}
	return true
}

// allowsAll reports whether every registered category is recorded (those
// recorded whatever the filter says aside).
func (f *catFilter) allowsAll() bool {
	for _, c := range perfetto.Categories() {
		if !c.Always && !f.allows(c.Name) {
			return false
		}
	}
	return true
}
