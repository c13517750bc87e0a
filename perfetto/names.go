package perfetto

import (
	"sync"
	"sync/atomic"
)

// Category, EventName and AnnotationName are process-wide handles for the
// strings that sequences intern (InternedData event_categories, event_names,
// debug_annotation_names). Registering them once, at package init of the
// layer, turns interning on the hot path into a slice index instead of a
// string-keyed map lookup. The handle value is also the iid written to every
// sequence, so iids are stable across sessions. The zero handle is invalid
// and makes an emit a no-op.
type (
	Category       uint32
	EventName      uint32
	AnnotationName uint32
)

// nameTable is an append-only, deduplicated string table readable without a
// lock (copy-on-write snapshot).
type nameTable struct {
	mu    sync.Mutex
	index map[string]uint32
	names atomic.Pointer[[]string] // names[0] is unused
}

func (t *nameTable) register(s string) uint32 { return t.registerRaw(Sanitize(s)) }

// registerRaw registers s as it is (bytes, such as a build id).
func (t *nameTable) registerRaw(s string) uint32 {
	t.mu.Lock()
	defer t.mu.Unlock()
	if id, ok := t.index[s]; ok {
		return id
	}
	var old []string
	if p := t.names.Load(); p != nil {
		old = *p
	} else {
		old = []string{""}
		t.index = map[string]uint32{}
	}
	next := make([]string, len(old), len(old)+1)
	copy(next, old)
	next = append(next, s)
	id := uint32(len(old))
	t.index[s] = id
	t.names.Store(&next)
	return id
}

// lookup returns the name of id, ok false for an unregistered id.
func (t *nameTable) lookup(id uint32) (string, bool) {
	p := t.names.Load()
	if p == nil || id == 0 || int(id) >= len(*p) {
		return "", false
	}
	return (*p)[id], true
}

var categories, eventNames, annotationNames, stringValues nameTable

var catDescs struct {
	mu     sync.Mutex
	m      map[Category]string
	always map[Category]bool // NewAlwaysCategory's
}

// NewCategory registers a track-event category (deduplicated; safe for
// concurrent use). An optional description (the first non-empty one given
// for the name wins) is what Categories reports, e.g. for the system
// backend's data-source descriptor.
func NewCategory(name string, description ...string) Category {
	c := Category(categories.register(name))
	for _, d := range description {
		if d == "" {
			continue
		}
		catDescs.mu.Lock()
		if _, ok := catDescs.m[c]; !ok {
			if catDescs.m == nil {
				catDescs.m = map[Category]string{}
			}
			catDescs.m[c] = Sanitize(d)
		}
		catDescs.mu.Unlock()
		break
	}
	return c
}

// NewAlwaysCategory registers a category that every session records
// whatever its CategoryFilter says: for the few events a trace must carry
// whichever categories its user chose (the layers' own warnings about their
// configuration, say, which a filter naming a misspelt category would
// otherwise drop).
func NewAlwaysCategory(name, description string) Category {
	c := NewCategory(name, description)
	catDescs.mu.Lock()
	defer catDescs.mu.Unlock()
	if catDescs.always == nil {
		catDescs.always = map[Category]bool{}
	}
	catDescs.always[c] = true
	return c
}

func alwaysRecorded(c Category) bool {
	catDescs.mu.Lock()
	defer catDescs.mu.Unlock()
	return catDescs.always[c]
}

// CategoryInfo describes a registered category.
type CategoryInfo struct {
	ID          Category
	Name        string
	Description string // "" when none was given
	Always      bool   // registered with NewAlwaysCategory
}

// Categories returns every registered category, in registration order.
func Categories() []CategoryInfo {
	p := categories.names.Load()
	if p == nil {
		return nil
	}
	catDescs.mu.Lock()
	defer catDescs.mu.Unlock()
	out := make([]CategoryInfo, 0, len(*p)-1)
	for i, n := range (*p)[1:] {
		c := Category(i + 1)
		out = append(out, CategoryInfo{ID: c, Name: n, Description: catDescs.m[c], Always: catDescs.always[c]})
	}
	return out
}

// NewEventName registers an event name.
func NewEventName(name string) EventName { return EventName(eventNames.register(name)) }

// NewAnnotationName registers a debug-annotation name.
func NewAnnotationName(name string) AnnotationName {
	return AnnotationName(annotationNames.register(name))
}

// StringValue is a registered debug-annotation value (StringOf): a sequence
// interns it once (InternedData debug_annotation_string_values) and events
// carry its iid, so an annotation naming one of a few values (an operation,
// a memory type) costs a byte or two instead of the string. Readers resolve
// it to the string (trace_processor's args, perfetto/decode's Str).
type StringValue uint32

// NewStringValue registers a debug-annotation value.
func NewStringValue(s string) StringValue { return StringValue(stringValues.register(s)) }

func (c Category) String() string       { s, _ := categories.lookup(uint32(c)); return s }
func (n EventName) String() string      { s, _ := eventNames.lookup(uint32(n)); return s }
func (n AnnotationName) String() string { s, _ := annotationNames.lookup(uint32(n)); return s }
func (v StringValue) String() string    { s, _ := stringValues.lookup(uint32(v)); return s }

type argKind uint8

const (
	argInt argKind = iota + 1
	argUint
	argString
	argBool
	argStringValue
	argCallstack // not an annotation: the event's callstack_iid (CallstackArg)
)

// Arg is one typed debug annotation of an event. Build it with Int, Uint,
// String or Bool; it is a small value, passed without allocating.
type Arg struct {
	name AnnotationName
	kind argKind
	num  uint64
	str  string
}

// Int is a debug annotation written as int_value.
func Int(name AnnotationName, v int64) Arg { return Arg{name: name, kind: argInt, num: uint64(v)} }

// Uint is a debug annotation written as uint_value.
func Uint(name AnnotationName, v uint64) Arg { return Arg{name: name, kind: argUint, num: v} }

// String is a debug annotation written as string_value (sanitised, see
// MaxStringLen).
func String(name AnnotationName, v string) Arg {
	return Arg{name: name, kind: argString, str: v}
}

// StringOf is a debug annotation whose value is a registered string,
// written as string_value_iid (an unregistered v leaves the annotation out).
func StringOf(name AnnotationName, v StringValue) Arg {
	return Arg{name: name, kind: argStringValue, num: uint64(v)}
}

// Bool is a debug annotation written as bool_value.
func Bool(name AnnotationName, v bool) Arg {
	a := Arg{name: name, kind: argBool}
	if v {
		a.num = 1
	}
	return a
}

// Unit is CounterDescriptor.Unit.
type Unit int32

const (
	UnitUnspecified Unit = 0
	UnitTimeNs      Unit = 1
	UnitCount       Unit = 2
	UnitSizeBytes   Unit = 3
)

// CounterTrack is a process-scoped counter track: a TrackDescriptor with a
// CounterDescriptor, parented to the process track, with a static name. Its
// uuid is the one the Perfetto SDK derives for CounterTrack(name) under the
// process track, so traces from both agree. Register once, emit values with
// Counter. The zero value is invalid and makes an emit a no-op.
type CounterTrack uint32

type counterDef struct {
	name string
	unit Unit
	// uuids[0] is unique among producers (the SDK's for
	// CounterTrack(name)), [1] the track's small uuid
	// (Options.SmallTrackUUIDs): odd, where lanes are even (laneUUID).
	uuids [2]uint64
	cat   Category // 0: recorded whatever a session's CategoryFilter says
	// The uuids as a TrackEvent's track_uuid and extra_counter_track_uuids
	// field, encoded once: ten bytes each event would otherwise encode.
	track, extra [2]string
}

var counters struct {
	mu    sync.Mutex
	index map[string]uint32
	defs  atomic.Pointer[[]counterDef] // defs[0] unused
}

// kCounterMagic from the SDK's track_event/track.h.
const counterMagic = 0xb1a4a67d7970839e

// NewCounterTrack registers a counter track by name (deduplicated by name;
// the unit of the first registration wins). It belongs to no category: every
// session records it.
func NewCounterTrack(name string, unit Unit) CounterTrack {
	return NewCounterTrackIn(0, name, unit)
}

// NewCounterTrackIn registers a counter track in category cat: a session
// whose CategoryFilter disables cat records neither its descriptor nor its
// values (as the SDK's TRACE_COUNTER(cat, ...)). Deduplicated by name; the
// unit and category of the first registration win.
func NewCounterTrackIn(cat Category, name string, unit Unit) CounterTrack {
	name = Sanitize(name)
	counters.mu.Lock()
	defer counters.mu.Unlock()
	if id, ok := counters.index[name]; ok {
		return CounterTrack(id)
	}
	var old []counterDef
	if p := counters.defs.Load(); p != nil {
		old = *p
	} else {
		old = []counterDef{{}}
		counters.index = map[string]uint32{}
	}
	next := make([]counterDef, len(old), len(old)+1)
	copy(next, old)
	id := uint32(len(old))
	d := counterDef{name: name, unit: unit, cat: cat, uuids: [2]uint64{fnv1a(name) ^ counterMagic ^ processUUID, uint64(id)<<1 | 1}}
	for i, u := range d.uuids {
		d.track[i] = string(appendVarintField(nil, fTETrackUUID, u))
		d.extra[i] = string(appendVarintField(nil, fTEExtraCounterUUIDs, u))
	}
	next = append(next, d)
	counters.index[name] = id
	counters.defs.Store(&next)
	return CounterTrack(id)
}

// def returns the track's definition (never modified: registering copies the
// table), nil for an invalid handle.
func (c CounterTrack) def() *counterDef {
	p := counters.defs.Load()
	if p == nil || c == 0 || int(c) >= len(*p) {
		return nil
	}
	return &(*p)[c]
}

// Name returns the track name ("" for an invalid handle).
func (c CounterTrack) Name() string {
	if d := c.def(); d != nil {
		return d.name
	}
	return ""
}

// Category returns the track's category (0: none, or an invalid handle).
func (c CounterTrack) Category() Category {
	if d := c.def(); d != nil {
		return d.cat
	}
	return 0
}

// UUID returns the track uuid (0 for an invalid handle), as sessions
// without Options.SmallTrackUUIDs write it.
func (c CounterTrack) UUID() uint64 {
	if d := c.def(); d != nil {
		return d.uuids[0]
	}
	return 0
}

// fnv1a is 64-bit FNV-1a, as the SDK's internal::Fnv1a.
func fnv1a(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}
