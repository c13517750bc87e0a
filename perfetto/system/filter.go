package system

import "path"

// catFilter decides which track-event categories a data-source instance
// records, with the C++ SDK's rules for TrackEventConfig: exact matches in
// enabled then disabled categories, then glob matches in enabled then
// disabled categories; a category that matches nothing is enabled (the C++
// SDK default). The layers' categories have no tags, so tag filters never
// match them.
type catFilter struct {
	enabled, disabled []string
	all               bool // no category filter: skip parsing events
	cache             map[uint64]bool
}

func newCatFilter(c trackEventConfig) *catFilter {
	f := &catFilter{enabled: c.enabledCats, disabled: c.disabledCats, cache: map[uint64]bool{}}
	f.all = len(c.disabledCats) == 0
	return f
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
