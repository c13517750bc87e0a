package tracesummary

import "sync/atomic"

// interner numbers the few distinct strings of sources and memory types;
// id 0 is "", what an event without the annotation holds. Past maxStrings
// distinct values (a corrupt trace) every new one is "?". Each decoding
// worker has its own, which adds strings while the merging goroutine looks
// ids up, so the table is published copy-on-write (new strings are rare);
// the merging goroutine maps them to its own with a localIDs per worker.
type interner struct {
	ids map[string]uint32 // the adding goroutine's
	// recent are the last few strings looked up (the adding goroutine's),
	// checked before the map: events repeat a handful of values, which the
	// decoder hands out as the same strings, so most checks compare a
	// pointer.
	recent [4]recentID
	next   int
	strs   atomic.Pointer[[]string]
}

type recentID struct {
	s  string
	id uint32
}

const maxStrings = 1 << 16

func newInterner() *interner {
	in := &interner{ids: map[string]uint32{"": 0}}
	in.strs.Store(&[]string{""})
	return in
}

func (in *interner) id(s string) uint32 {
	for _, r := range in.recent {
		if r.s == s && s != "" {
			return r.id
		}
	}
	if id, ok := in.ids[s]; ok {
		in.recent[in.next] = recentID{s, id}
		in.next = (in.next + 1) % len(in.recent)
		return id
	}
	old := *in.strs.Load()
	switch {
	case len(old) >= maxStrings:
		return in.ids["?"]
	case len(old) == maxStrings-1 && s != "?":
		return in.id("?") // the last id
	}
	id := uint32(len(old))
	in.ids[s] = id
	strs := append(old[:len(old):len(old)], s)
	in.strs.Store(&strs)
	return id
}

func (in *interner) str(id uint32) string { return (*in.strs.Load())[id] }

// localIDs maps a worker's interner ids to the merging goroutine's.
type localIDs struct {
	from *interner
	ids  []uint32
}

func (l *localIDs) global(id uint32, to *interner) uint32 {
	for uint32(len(l.ids)) <= id {
		l.ids = append(l.ids, to.id(l.from.str(uint32(len(l.ids)))))
	}
	return l.ids[id]
}
