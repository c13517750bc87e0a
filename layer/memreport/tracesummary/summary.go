// Package tracesummary reads a trace written by VK_LAYER_VKGEN_DeviceMemoryReport
// and summarises it: the memory each (named) object held, per usage cluster
// the peak and final counter values, and the counters over time as an SVG or
// HTML chart. It backs `vkgen trace summary`. It owns only this reading and
// rendering; it must not import the layer (no cgo) or write traces.
//
// An object is one lifetime, from its first event to the DESTROY that
// releases its last binding, not a handle value: drivers hand a destroyed
// handle to the next object at once, and that object gets its own row,
// name, bytes and cluster. Read takes one pass over the trace in memory
// bounded by the live objects, the reordering window and Options.Top.
package tracesummary

import (
	"cmp"
	"slices"
	"strings"

	"github.com/vkgen/vkgen/perfetto"
	"github.com/vkgen/vkgen/perfetto/decode"
)

// The layer's trace vocabulary (docs/memreport.md).
const (
	category         = "VulkanDeviceMemoryReport"
	allocationEvent  = "VulkanMemoryAllocation"
	objectNameEvent  = "VulkanObjectName"
	failureEvent     = "VulkanMemoryAllocationFailed"
	leakEvent        = "VulkanMemoryLeak"
	counterPrefix    = "vulkan.mem."
	objectTypeBuffer = 9
	objectTypeImage  = 10
	objectTypeMemory = 8
	// objectTypeVideoSession is VK_OBJECT_TYPE_VIDEO_SESSION_KHR.
	objectTypeVideoSession = 1000023000
)

// Object is the memory one object held during its lifetime.
type Object struct {
	Name   string `json:"name"`   // "" when never named
	Type   string `json:"type"`   // BUFFER, IMAGE, VIDEO_SESSION, DEVICE_MEMORY or DRIVER
	Handle uint64 `json:"handle"` // buffer/image/VkDeviceMemory handle, or the driver's object handle
	// Bytes is the most the object held at once: its bound size for a
	// buffer or image, its allocation size for memory.
	Bytes uint64 `json:"bytes"`
	// Final is what it still held at the end of the trace.
	Final   uint64 `json:"final_bytes"`
	Cluster string `json:"cluster"` // memory_type of its last event
	// Descriptor says what the object is, from its create info (the
	// layer's "descriptor" annotation, e.g. "image 2D 400x300
	// R8G8B8A8_UNORM sampled|transfer_dst"); "" in traces without one.
	Descriptor string `json:"descriptor"`
	// Created and Destroyed are the times of its first and last event, in
	// ns since the layer's first event (an instant of its category or a
	// counter value; DebugMarker's raw names do not count, so the
	// PerfettoSQL module vkgen.memory finds the same origin); Destroyed is -1 for an object
	// still alive at the end.
	Created   uint64 `json:"created_ns"`
	Destroyed int64  `json:"destroyed_ns"`
	// CallSite is where the application created it, "function (file:line)"
	// (symbolize.go), when its events carry a call stack.
	CallSite string `json:"call_site,omitempty"`
}

// Leak is an object the application had not released at vkDestroyDevice,
// vkDestroyInstance or exit (a VulkanMemoryLeak event).
type Leak struct {
	Name    string `json:"name"` // "" when never named
	Type    string `json:"type"` // BUFFER, IMAGE, DEVICE_MEMORY or DRIVER
	Handle  uint64 `json:"handle"`
	Bytes   uint64 `json:"bytes"`
	Cluster string `json:"cluster"`
	Heap    uint32 `json:"heap"`
	At      string `json:"at"` // vkDestroyDevice, vkDestroyInstance, exit or AtEndOfTrace
	// Descriptor is the object's (Object.Descriptor).
	Descriptor string `json:"descriptor"`
	Time       uint64 `json:"ns"` // ns since the first event of the trace
	// CallSite is where the application made it (Object.CallSite).
	CallSite string `json:"call_site,omitempty"`
}

// AtEndOfTrace is the At of an object Summary.AliveAtEnd lists.
const AtEndOfTrace = "end of trace"

// Cluster is one counter track.
type Cluster struct {
	Track string `json:"track"` // vulkan.mem.{app|driver}.usage.<cluster>
	Peak  int64  `json:"peak_bytes"`
	Final int64  `json:"final_bytes"`
}

// Series is one counter track's samples, timestamps in ns relative to the
// layer's first event, reduced to at most a few thousand points.
type Series struct {
	Track   string
	Samples []decode.CounterSample
}

// Summary is everything `vkgen trace summary` prints.
type Summary struct {
	// Schema is SummarySchema: the version of this JSON document.
	Schema string `json:"schema"`
	// Objects are the Options.Top objects that held the most, largest first.
	Objects []Object `json:"objects"`
	// ObjectsTotal counts every object lifetime in the trace.
	ObjectsTotal int `json:"objects_total"`
	// Events counts the allocation, name, counter, leak and failure events
	// read.
	Events   int       `json:"events"`
	Clusters []Cluster `json:"clusters"`
	// Leaks are every VulkanMemoryLeak event, in time order.
	Leaks []Leak `json:"leaks"`
	// AliveAtEnd are the objects that still held memory at the last event
	// of the trace with no leak event for them, largest first: what a
	// process ended by a signal, SIGKILL or _exit (which run no layer code)
	// still held, or what was alive when a recording stopped. Bytes is what
	// each held then, Time the last event's.
	AliveAtEnd []Leak `json:"alive_at_end"`
	// AllocationFailures counts VulkanMemoryAllocationFailed events (failed
	// allocations); FailedBytes sums their sizes, exactly.
	AllocationFailures int   `json:"allocation_failures"`
	FailedBytes        Bytes `json:"failed_bytes"`
	// Totals are per heap, then over every heap ("all"), the allocated,
	// driver, bound, unbound, aliased and resource bytes at the heap's peak
	// and at the end, each byte counted once (totals.go).
	Totals []HeapTotals `json:"totals"`
	// Blocks are the layouts of the largest VkDeviceMemory blocks
	// (Options.Blocks), largest first: bound ranges, holes, overlaps.
	Blocks []Block `json:"blocks"`
	// DroppedEvents is the trace writer's count of events it dropped because
	// its buffers were full (perfetto.DroppedEventsName): the tables miss
	// those.
	DroppedEvents int64 `json:"dropped_events"`
	// LateEvents counts events that reached the file more than the
	// reordering window after younger ones and were applied out of order.
	LateEvents int `json:"late_events"`
	// Groups are the memory per name (else descriptor), type, cluster,
	// heap and total, largest peak first: what `vkgen trace diff` and
	// `check` compare.
	Groups []Group `json:"groups"`
	// GroupsFolded counts the names and descriptors that came after
	// Options.MaxGroups groups existed and went to OtherNames.
	GroupsFolded int      `json:"groups_folded"`
	Series       []Series `json:"-"`
	// Memory over time (overtime.go): the frames, each growth found while
	// the program ran, each budget threshold crossed, and each heap's
	// budget line.
	Frames           Frames            `json:"frames"`
	Growths          []Growth          `json:"growths"`
	BudgetThresholds []BudgetThreshold `json:"budget_thresholds"`
	HeapBudgets      []HeapBudget      `json:"heap_budgets"`
}

// Options tune Read.
type Options struct {
	// Top is how many objects Summary.Objects keeps (the largest); 0 keeps
	// every one, and memory then grows with the number of objects.
	Top int
	// Window is how many bytes of trace a packet may reach the file after
	// younger ones (DefaultWindow when 0): the trace writer's buffered bytes
	// (sequences times buffer size) plus what it writes in a flush interval.
	Window int64
	// MaxGroups bounds the name and descriptor groups (DefaultMaxGroups
	// when 0): objects of later names count in the group OtherNames.
	MaxGroups int
	// Blocks is how many block layouts Summary.Blocks keeps (the largest
	// blocks); 0 keeps every one, and memory then grows with the number of
	// blocks.
	Blocks int
	// NoTotals leaves Totals and Blocks empty, and skips keeping them:
	// `vkgen trace diff` and `check` compare neither (about a tenth of
	// reading a trace).
	NoTotals bool
	// Workers is how many goroutines decode packets (GOMAXPROCS, at most
	// 8, when 0); a trace's packets are dealt out by sequence, so more
	// workers than sequences stay idle.
	Workers int
}

// Summarize computes the summary of a trace decoded in memory, every object
// kept.
func Summarize(t *decode.Trace) *Summary {
	s := newSummarizer(Options{Window: -1}, 1)
	s.tracks = t.Tracks
	x := newExtractor(s.sym)
	s.local[0].from = x.strs
	var its []item
	for i := range t.Packets {
		its = x.events(&t.Packets[i], its[:0], t.Packets[i].SeqID, 0)
		for j := range its {
			s.accept(0, &its[j])
		}
	}
	return s.finish()
}

// counter is one counter track's running state.
type counter struct {
	peak, final int64
	series      decimator
	// groups are the cluster, heap and total groups the track adds into,
	// found at its first value.
	groups   []*group
	resolved bool
}

// summarizer orders the events of every worker and applies them.
type summarizer struct {
	order   reorderer
	t0      uint64
	started bool
	events  int
	// tracks are the counter tracks by uuid as of the event being merged
	// (Read, in file order: a trace can hold a track per object, of which
	// the summary needs none), or every track at the end (Summarize).
	tracks   map[uint64]*decode.Track
	objs     objects
	counters map[uint64]*counter
	strs     *interner
	local    []localIDs // per worker
	leaks    []Leak
	last     uint64 // the latest event's time
	failures int
	failed   Bytes
	time     overTime
	sym      *Symbolizer // names call sites, for every worker
	mem      memory
	noTotals bool // Options.NoTotals: mem stays empty
}

func newSummarizer(o Options, workers int) *summarizer {
	s := &summarizer{tracks: map[uint64]*decode.Track{}, counters: map[uint64]*counter{}, strs: newInterner(), local: make([]localIDs, workers),
		sym: NewSymbolizer()}
	s.objs = newObjects(o.Top, o.MaxGroups)
	s.mem, s.noTotals = newMemory(o.Blocks, s.strs), o.NoTotals
	s.order = newReorderer(cmp.Or(o.Window, DefaultWindow), s.apply)
	return s
}

// track takes a track descriptor, in file order: counter's when it is a
// counter track's, else nil.
func (s *summarizer) track(uuid uint64, counter *decode.Track) {
	if counter != nil {
		s.tracks[uuid] = counter
	} else if len(s.tracks) > 0 {
		delete(s.tracks, uuid)
	}
}

// accept takes worker w's event it, in file order.
func (s *summarizer) accept(w int, it *item) {
	e := &it.e
	if e.kind == evCounter {
		if tr := s.tracks[e.handle]; tr != nil && !wantTrack(tr.Name) {
			return
		}
	}
	l := &s.local[w]
	e.src, e.clust, e.at = l.global(e.src, s.strs), l.global(e.clust, s.strs), l.global(e.at, s.strs)
	e.site, e.desc = l.global(e.site, s.strs), l.global(e.desc, s.strs)
	s.order.push(it.seq, e, it.pos)
}

// extractor turns packets into events on a decoding worker.
type extractor struct {
	strs *interner
	sym  *Symbolizer
}

func newExtractor(sym *Symbolizer) *extractor { return &extractor{strs: newInterner(), sym: sym} }

// events appends to out, as items of seq at pos, what the summary uses of
// p: the counter values that go with its event (the state after the call,
// so before the event), then the event. Counter events are kept whatever
// their track: the summarizer, which has the tracks, filters them.
func (s *extractor) events(p *decode.Packet, out []item, seq uint32, pos int64) []item {
	n := uint64(p.Index) * (maxExtraCounters + 1) // ties keep file order, and the order within p
	if p.Event != nil {
		for i, c := range p.Event.ExtraCounters[:min(len(p.Event.ExtraCounters), maxExtraCounters)] {
			out = append(out, item{seq: seq, pos: pos, e: event{ts: p.Timestamp, n: n + uint64(i), kind: evCounter, handle: c.TrackUUID, size: uint64(c.Value)}})
		}
	}
	out = append(out, item{seq: seq, pos: pos})
	if !s.event(p, &out[len(out)-1].e, n+maxExtraCounters) {
		out = out[:len(out)-1]
	}
	return out
}

// callSite is the interned call site of an event's call stack (0 for none).
func (s *extractor) callSite(ev *decode.Event) uint32 {
	if len(ev.Callstack) == 0 {
		return 0
	}
	return s.strs.id(s.sym.CallSite(ev.Callstack))
}

// maxExtraCounters is the most extra counter values of one event the
// summary reads, as trace_processor (TrackEventData::kMaxNumExtraCounters).
const maxExtraCounters = 8

// event turns what the summary uses of p into e, a zero event with arrival
// index n; false when p holds nothing it uses.
func (s *extractor) event(p *decode.Packet, e *event, n uint64) bool {
	e.ts, e.n = p.Timestamp, n
	switch {
	case p.ObjectName != nil:
		src, ok := s.nameKey(int64(p.ObjectName.ObjectType))
		if !ok {
			return false
		}
		e.kind, e.src, e.handle, e.name = evRawName, src, p.ObjectName.Object, p.ObjectName.Name
	case p.Event == nil:
		return false
	case p.Event.Type == decode.TypeCounter:
		e.kind, e.handle, e.size = evCounter, p.Event.TrackUUID, uint64(p.Event.CounterValue)
	case p.Event.Type != decode.TypeInstant || !slices.Contains(p.Event.Categories, category):
		return false
	case p.Event.Name == allocationEvent:
		e.kind = evAlloc
		for _, a := range p.Event.Annotations {
			switch a.Name {
			case "operation":
				e.op = opOf(a.Str)
			case "source":
				e.src = s.strs.id(a.Str)
			case "memory_type":
				e.clust = s.strs.id(a.Str)
			case "object_handle":
				e.handle = argUint(a)
			case "memory_object_id":
				e.mem = argUint(a)
			case "size":
				e.size = argUint(a)
			case "offset":
				e.off = argUint(a)
			case "heap":
				e.heap = uint32(argUint(a))
			case "resource_offset", "bind_index":
				e.key = argUint(a)
			case "descriptor":
				e.desc = s.strs.id(a.Str)
			}
		}
		e.site = s.callSite(p.Event)
	case p.Event.Name == failureEvent:
		e.kind = evFailure
		if a, ok := p.Event.Arg("size"); ok {
			e.size = argUint(a)
		}
	case p.Event.Name == leakEvent:
		e.kind = evLeak
		for _, a := range p.Event.Annotations {
			switch a.Name {
			case "source":
				e.src = s.strs.id(a.Str)
			case "memory_type":
				e.clust = s.strs.id(a.Str)
			case "object_handle":
				e.handle = argUint(a)
			case "size":
				e.size = argUint(a)
			case "heap":
				e.heap = uint32(argUint(a))
			case "object_name":
				e.name = a.Str
			case "at":
				e.at = s.strs.id(a.Str)
			case "descriptor":
				e.desc = s.strs.id(a.Str)
			}
		}
		e.site = s.callSite(p.Event)
	case p.Event.Name == frameEvent || p.Event.Name == growthEvent || p.Event.Name == thresholdEvent:
		e.kind = timeEventKind(p.Event.Name)
		e.x = &timeEvent{args: make(map[string]decode.Annotation, len(p.Event.Annotations))}
		for _, a := range p.Event.Annotations {
			e.x.args[a.Name] = a
		}
	case p.Event.Name == objectNameEvent:
		e.kind = evName
		typ := int64(-1)
		for _, a := range p.Event.Annotations {
			switch a.Name {
			case "object_type":
				typ = int64(argUint(a))
			case "object_handle":
				e.handle = argUint(a)
			case "object_name":
				e.name = a.Str
			}
		}
		var ok bool
		if e.src, ok = s.nameKey(typ); !ok {
			return false
		}
	default:
		return false
	}
	return true
}

// apply takes the events in time order.
func (s *summarizer) apply(e *event) {
	if e.kind >= evFrame {
		s.time.apply(e, s.t0)
		return
	}
	if tr := s.tracks[e.handle]; e.kind == evCounter && tr != nil && timeTrack(tr.Name) {
		s.time.counter(tr.Name, e.ts, int64(e.size))
		return
	}
	s.events++
	if !s.started && e.kind != evRawName {
		s.started, s.t0 = true, e.ts
	}
	s.last = max(s.last, e.ts)
	s.objs.at(e.ts)
	switch e.kind {
	case evFailure:
		s.failures++
		s.failed = s.failed.Add(e.size)
		return
	case evLeak:
		s.leaks = append(s.leaks, Leak{
			Name: e.name, Type: s.strs.str(e.src), Handle: e.handle, Bytes: e.size,
			Cluster: s.strs.str(e.clust), Heap: e.heap, At: s.strs.str(e.at), Time: e.ts - s.t0,
			Descriptor: s.strs.str(e.desc), CallSite: s.strs.str(e.site),
		})
		s.objs.leaked(objKey{e.src, e.handle})
		return
	case evCounter:
	case evAlloc:
		s.objs.apply(e, s.t0, s.strs)
		src := s.strs.str(e.src)
		if e.op == opAdd && (src == "BUFFER" || src == "IMAGE" || src == "VIDEO_SESSION") {
			s.objs.bound(s.strs.id("DEVICE_MEMORY"), e.mem)
		}
		if s.noTotals {
			return
		}
		var name string
		if l := s.objs.live[objKey{e.src, e.handle}]; l != nil {
			name = l.name
		}
		s.mem.apply(e, src, name)
		return
	default:
		s.objs.apply(e, s.t0, s.strs)
		return
	}
	c := s.counters[e.handle]
	if c == nil {
		c = &counter{}
		s.counters[e.handle] = c
	}
	if !c.resolved {
		c.resolved = true
		if tr := s.tracks[e.handle]; tr != nil {
			c.groups = s.objs.trackGroups(tr.Name)
		}
	}
	v := int64(e.size)
	for _, g := range c.groups {
		s.objs.add(g, v-c.final)
	}
	c.peak, c.final = max(c.peak, v), v
	c.series.add(e.ts, v)
}

func (s *summarizer) finish() *Summary {
	s.order.flush()
	s.sym.Close()
	sum := &Summary{Schema: SummarySchema, LateEvents: s.order.late, Events: s.events, Leaks: s.leaks, AllocationFailures: s.failures, FailedBytes: s.failed}
	sum.Objects, sum.ObjectsTotal, sum.AliveAtEnd = s.objs.finish(s.t0, s.last-min(s.last, s.t0), s.strs)
	sum.Groups, sum.GroupsFolded = s.objs.list(), s.objs.folded
	sum.Totals, sum.Blocks = s.mem.totals(s.t0), s.mem.blockList(s.t0)
	for uuid, c := range s.counters {
		tr := s.tracks[uuid]
		switch {
		case tr == nil || tr.Counter == nil:
		case tr.Name == perfetto.DroppedEventsName:
			sum.DroppedEvents = c.peak
		case strings.HasPrefix(tr.Name, counterPrefix):
			sum.Clusters = append(sum.Clusters, Cluster{Track: tr.Name, Peak: c.peak, Final: c.final})
			sum.Series = append(sum.Series, Series{Track: tr.Name, Samples: c.series.samples(s.t0)})
		}
	}
	slices.SortFunc(sum.Clusters, func(a, b Cluster) int { return cmp.Compare(a.Track, b.Track) })
	slices.SortFunc(sum.Series, func(a, b Series) int { return cmp.Compare(a.Track, b.Track) })
	s.time.finish(sum, s.t0)
	return sum
}

func wantTrack(name string) bool {
	return strings.HasPrefix(name, counterPrefix) || name == perfetto.DroppedEventsName || timeTrack(name)
}

// nameKey maps a named object's VkObjectType to the source its memory
// events use.
func (s *extractor) nameKey(objectType int64) (uint32, bool) {
	switch objectType {
	case objectTypeBuffer:
		return s.strs.id("BUFFER"), true
	case objectTypeImage:
		return s.strs.id("IMAGE"), true
	case objectTypeMemory:
		return s.strs.id("DEVICE_MEMORY"), true
	case objectTypeVideoSession:
		return s.strs.id("VIDEO_SESSION"), true
	}
	return 0, false
}

// satAdd is x + y, saturating: the end of a range whose offset and size
// pass 2^64 (every range is cut at its block's size after).
func satAdd(x, y uint64) uint64 {
	if x+y < x {
		return ^uint64(0)
	}
	return x + y
}

// argUint is an integer annotation's value, signed or not.
func argUint(a decode.Annotation) uint64 {
	if a.Kind == decode.KindInt {
		return uint64(a.Int)
	}
	return a.Uint
}
