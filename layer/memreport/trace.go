package memreport

import (
	"math"
	"strconv"
	"sync/atomic"

	"github.com/vkgen/vkgen/generated"
	"github.com/vkgen/vkgen/layer"
	"github.com/vkgen/vkgen/layer/memreport/accounting"
	"github.com/vkgen/vkgen/layer/tracing"
	"github.com/vkgen/vkgen/objectnames"
	"github.com/vkgen/vkgen/perfetto"
)

// Trace vocabulary (reference-behaviour.md 4.3-4.5).
const (
	Category            = "VulkanDeviceMemoryReport"
	AllocationEventName = "VulkanMemoryAllocation"
	ObjectNameEventName = "VulkanObjectName"
	FailureEventName    = "VulkanMemoryAllocationFailed"
	LeakEventName       = "VulkanMemoryLeak"
)

var (
	category   = perfetto.NewCategory(Category, "Vulkan Device Memory Report Counters")
	allocEvent = perfetto.NewEventName(AllocationEventName)
	nameEvent  = perfetto.NewEventName(ObjectNameEventName)
	failEvent  = perfetto.NewEventName(FailureEventName)
	leakEvent  = perfetto.NewEventName(LeakEventName)

	argOperation    = perfetto.NewAnnotationName("operation")
	argSource       = perfetto.NewAnnotationName("source")
	argMemoryObject = perfetto.NewAnnotationName("memory_object_id")
	argSize         = perfetto.NewAnnotationName("size")
	argOffset       = perfetto.NewAnnotationName("offset")
	argObjectHandle = perfetto.NewAnnotationName("object_handle")
	argMemoryType   = perfetto.NewAnnotationName("memory_type")
	argObjectType   = perfetto.NewAnnotationName("object_type")
	argObjectName   = perfetto.NewAnnotationName("object_name")
	argHeap         = perfetto.NewAnnotationName("heap")
	argAt           = perfetto.NewAnnotationName("at")
	argLifetime     = perfetto.NewAnnotationName("lifetime")
	// Only on the events they describe (docs/memreport.md).
	argExternal        = perfetto.NewAnnotationName("external")
	argHandleTypes     = perfetto.NewAnnotationName("handle_types")
	argDedicatedType   = perfetto.NewAnnotationName("dedicated_type")
	argDedicatedHandle = perfetto.NewAnnotationName("dedicated_handle")
	argResourceOffset  = perfetto.NewAnnotationName("resource_offset")
	argBindIndex       = perfetto.NewAnnotationName("bind_index")
	argSwapchain       = perfetto.NewAnnotationName("swapchain")

	// counterTracks holds every vulkan.mem.{app|driver}.usage.<cluster>
	// track, registered once (unit bytes, process-scoped), by name and in
	// TrackNames order.
	counterTracks, counterList = func() (map[string]perfetto.CounterTrack, []perfetto.CounterTrack) {
		m := map[string]perfetto.CounterTrack{}
		var l []perfetto.CounterTrack
		for _, n := range accounting.TrackNames() {
			m[n] = perfetto.NewCounterTrackIn(category, n, perfetto.UnitSizeBytes)
			l = append(l, m[n])
		}
		return m, l
	}()
)

// vocab holds the annotation values of the engine's vocabulary (operations,
// sources, memory types, ...) as interned strings: an event names them in a
// byte or two, once each per trace sequence in full.
var vocab = func() map[string]perfetto.StringValue {
	m := map[string]perfetto.StringValue{}
	for _, s := range accounting.Vocabulary() {
		m[s] = perfetto.NewStringValue(s)
	}
	return m
}()

// vocabArg is the annotation name = s, interned when s is in the vocabulary.
func vocabArg(name perfetto.AnnotationName, s string) perfetto.Arg {
	if v, ok := vocab[s]; ok {
		return perfetto.StringOf(name, v)
	}
	return perfetto.String(name, s)
}

// opValues and sourceValues are the vocabulary's operations and sources by
// value (0 where not in it): every event names both, and an index is
// cheaper than the string-keyed lookup.
var opValues, sourceValues = func() (ops, srcs [256]perfetto.StringValue) {
	for i := range 256 {
		ops[i] = vocab[accounting.Operation(i).String()]
		srcs[i] = vocab[accounting.Source(i).String()]
	}
	return ops, srcs
}()

func opArg(o accounting.Operation) perfetto.Arg {
	if v := opValues[o]; v != 0 {
		return perfetto.StringOf(argOperation, v)
	}
	return perfetto.String(argOperation, o.String())
}

func sourceArg(s accounting.Source) perfetto.Arg {
	if v := sourceValues[s]; v != 0 {
		return perfetto.StringOf(argSource, v)
	}
	return perfetto.String(argSource, s.String())
}

// heapCounterTracks are the vulkan.mem.heap<N>.* tracks by heap and track
// index, registered on first use (16 heaps of 32 tracks, most never used);
// 0 until then.
var heapCounterTracks [accounting.MaxHeaps][]atomic.Uint32

func init() {
	for h := range heapCounterTracks {
		heapCounterTracks[h] = make([]atomic.Uint32, len(counterTracks))
	}
}

func trackByIndex(track int) (perfetto.CounterTrack, bool) {
	if track < 0 || track >= len(counterList) {
		return 0, false
	}
	return counterList[track], true
}

func heapCounterTrack(heap uint32, track int) (perfetto.CounterTrack, bool) {
	if heap >= accounting.MaxHeaps || track < 0 || track >= len(heapCounterTracks[heap]) {
		return 0, false
	}
	slot := &heapCounterTracks[heap][track]
	if t := slot.Load(); t != 0 {
		return perfetto.CounterTrack(t), true
	}
	t := perfetto.NewCounterTrackIn(category, accounting.HeapTrackNames(heap)[track], perfetto.UnitSizeBytes) // deduplicated by name
	slot.Store(uint32(t))
	return t, true
}

// traceSink writes the engine's output to every running session (em == nil)
// or, during a session-start replay, to that session only. Allocation events
// carry the lifetime slices of lt.
type traceSink struct {
	em *perfetto.Emitter
	lt *lifetimes
	ot *overTime // live events feed it (overtime.go)
}

// Idle reports that no session would get counter values: the engine then
// skips their bookkeeping (replay sinks are never idle).
func (s traceSink) Idle() bool { return s.em == nil && !perfetto.Enabled() }

func (s traceSink) Counter(name string, bytes int64) {
	if s.em == nil && !perfetto.Enabled() {
		return
	}
	if t, ok := counterTracks[name]; ok {
		s.counter(t, bytes)
	}
}

// Counters writes a track's process-wide and per-heap values (those that
// changed) with one timestamp.
func (s traceSink) Counters(track int, total int64, totalChanged bool, heap uint32, heapValue int64, heapChanged bool) {
	s.counterChanges([]accounting.CounterChange{{Track: track, Total: total, TotalChanged: totalChanged,
		Heap: heap, HeapValue: heapValue, HeapChanged: heapChanged}})
}

// counterChanges writes changes as counter events with one timestamp.
func (s traceSink) counterChanges(changes []accounting.CounterChange) {
	if s.em == nil && !perfetto.Enabled() {
		return
	}
	var buf [8]perfetto.CounterValue
	vals := counterValues(buf[:0], changes)
	if s.em != nil {
		s.em.Counters(vals...)
		return
	}
	perfetto.Stamp(layer.EventTime()).Counters(vals...)
}

func (s traceSink) counter(t perfetto.CounterTrack, bytes int64) {
	if s.em != nil {
		s.em.Counter(t, bytes)
		return
	}
	perfetto.Stamp(layer.EventTime()).Counter(t, bytes)
}

func (s traceSink) Allocation(ev accounting.AllocationEvent) { s.AllocationWith(ev, nil) }

// AllocationWith writes the event with the counter changes the engine held
// for it as the instant's extra counter values: one packet where the
// changes alone would take one each.
func (s traceSink) AllocationWith(ev accounting.AllocationEvent, changes []accounting.CounterChange) {
	if s.em == nil && s.ot != nil {
		s.ot.observe(&ev)
	}
	if ev.Operation == accounting.OpAllocationFailed {
		s.counterChanges(changes)
		s.failure(ev)
		return
	}
	// Live events open and end lifetimes (while traced: lifetimes.slice); a
	// session-start replay begins each live object's current one. A reopen
	// ends the open slice first, under the instant's pick.
	var sl [2]perfetto.Slice
	var n int
	if s.lt != nil {
		if s.em != nil {
			n = s.lt.current(&ev, &sl)
		} else {
			n = s.lt.slice(&ev, &sl)
		}
	}
	if s.em == nil && !perfetto.Enabled() {
		return // do not build the annotations for nobody
	}
	var buf [15]perfetto.Arg
	args := append(buf[:0],
		opArg(ev.Operation),
		sourceArg(ev.Source),
		perfetto.Uint(argMemoryObject, ev.MemoryObjectID),
		perfetto.Uint(argSize, ev.Size),
		perfetto.Uint(argOffset, ev.Offset),
		perfetto.Uint(argObjectHandle, ev.ObjectHandle),
		vocabArg(argMemoryType, ev.MemoryType),
		perfetto.Uint(argHeap, uint64(ev.Heap)),
	)
	args = appendDetails(args, &ev)
	if ev.Operation != accounting.OpDestroy { // where an object was made, once it holds memory
		if ev.Site != 0 {
			args = append(args, perfetto.CallstackArg(perfetto.Callstack(ev.Site)))
		}
	}
	var native perfetto.VulkanMemoryEvent
	hasNative := tracing.VulkanMemoryEvents()
	if hasNative {
		native, hasNative = vulkanMemoryEvent(&ev)
	}
	if s.em != nil {
		s.em.InstantSlices(category, allocEvent, sl[:n], nil, args...)
		if hasNative {
			s.em.VulkanMemoryEvent(category, &native)
		}
		return
	}
	var cbuf [8]perfetto.CounterValue
	at := perfetto.Stamp(layer.EventTime())
	at.InstantSlices(category, allocEvent, sl[:n], counterValues(cbuf[:0], changes), args...)
	if hasNative {
		at.VulkanMemoryEvent(category, &native)
	}
}

// counterValues appends the counter values of changes, each track once
// with its last value (they share the event's timestamp).
func counterValues(out []perfetto.CounterValue, changes []accounting.CounterChange) []perfetto.CounterValue {
	add := func(t perfetto.CounterTrack, ok bool, v int64) {
		if !ok {
			return
		}
		for i := range out {
			if out[i].Track == t {
				out[i].Value = v
				return
			}
		}
		out = append(out, perfetto.CounterValue{Track: t, Value: v})
	}
	for _, c := range changes {
		if c.TotalChanged {
			t, ok := trackByIndex(c.Track)
			add(t, ok, c.Total)
		}
		if c.HeapChanged {
			t, ok := heapCounterTrack(c.Heap, c.Track)
			add(t, ok, c.HeapValue)
		}
	}
	return out
}

// appendDetails adds the annotations only some events have: external and
// dedicated memory, sparse ranges and video bindings, swapchain images, and
// the descriptor of an object the layer saw created.
func appendDetails(args []perfetto.Arg, ev *accounting.AllocationEvent) []perfetto.Arg {
	if ev.External != accounting.ExternalNone {
		args = append(args, vocabArg(argExternal, ev.External.String()), perfetto.Uint(argHandleTypes, uint64(ev.HandleTypes)))
	}
	if ev.Dedicated != 0 {
		args = append(args, vocabArg(argDedicatedType, dedicatedType(ev.Dedicated)), perfetto.Uint(argDedicatedHandle, ev.DedicatedHandle))
	}
	switch {
	case ev.Range && ev.Source == accounting.SourceVideoSession:
		args = append(args, perfetto.Uint(argBindIndex, ev.Key))
	case ev.Range:
		args = append(args, perfetto.Uint(argResourceOffset, ev.Key))
	}
	if ev.Swapchain != 0 {
		args = append(args, perfetto.Uint(argSwapchain, ev.Swapchain))
	}
	// A resource's BIND says what it is; its DESTROY need not again. A
	// VkDeviceMemory's DESTROY does: on a callback device its CREATE came
	// from the driver, before the layer could describe it.
	if d, ok := descs.arg(ev.Desc); ok && (ev.Operation != accounting.OpDestroy || ev.Source == accounting.SourceDeviceMemory) {
		args = append(args, d)
	}
	return args
}

// dedicatedType names a dedicated allocation's resource kind in the event
// sources' vocabulary.
func dedicatedType(k accounting.ResourceKind) string {
	if k == accounting.KindImage {
		return "IMAGE"
	}
	return "BUFFER"
}

// failure writes a VulkanMemoryAllocationFailed event.
func (s traceSink) failure(ev accounting.AllocationEvent) {
	if s.em != nil || !perfetto.Enabled() {
		return // failures are events of their moment, never replayed
	}
	args := []perfetto.Arg{
		sourceArg(ev.Source),
		perfetto.Uint(argMemoryObject, ev.MemoryObjectID),
		perfetto.Uint(argSize, ev.Size),
		perfetto.Uint(argObjectHandle, ev.ObjectHandle),
		perfetto.Uint(argHeap, uint64(ev.Heap)),
	}
	if s.ot != nil {
		usage, budget, source, largest := s.ot.heapState(ev.Heap)
		args = append(args, perfetto.Uint(argHeapUsage, usage), perfetto.Uint(argHeapBudget, budget),
			perfetto.String(argBudgetSource, source), perfetto.String(argLargestLive, liveList(largest)))
	}
	perfetto.Stamp(layer.EventTime()).Instant(category, failEvent, args...)
}

// budgetTracks are the vulkan.mem.heap<N>.budget and .budget_usage tracks.
var budgetTracks = func() (t [accounting.MaxHeaps][2]perfetto.CounterTrack) {
	for h := range t {
		p := "vulkan.mem.heap" + strconv.Itoa(h) + "."
		t[h] = [2]perfetto.CounterTrack{
			perfetto.NewCounterTrackIn(category, p+"budget", perfetto.UnitSizeBytes),
			perfetto.NewCounterTrackIn(category, p+"budget_usage", perfetto.UnitSizeBytes),
		}
	}
	return t
}()

// Budget writes one VK_EXT_memory_budget sample of a heap (values past
// math.MaxInt64 saturate), at the time of the call it was taken for: the
// drain asks the driver later, so the value may hold calls made since, up
// to the drain's lag (stamped with the query's time instead, every event
// of that lag would follow it out of time order in its sequence).
func (s traceSink) Budget(heap uint32, budget, usage uint64) {
	if heap < accounting.MaxHeaps {
		s.counter(budgetTracks[heap][0], int64(min(budget, math.MaxInt64)))
		s.counter(budgetTracks[heap][1], int64(min(usage, math.MaxInt64)))
	}
}

// Leak writes a VulkanMemoryLeak event: an object still alive at at
// ("vkDestroyDevice", "vkDestroyInstance" or "exit"), with its name.
func (s traceSink) Leak(ev accounting.AllocationEvent, name, at string) {
	if !perfetto.Enabled() {
		return
	}
	var buf [16]perfetto.Arg
	args := append(buf[:0],
		sourceArg(ev.Source),
		perfetto.Uint(argMemoryObject, ev.MemoryObjectID),
		perfetto.Uint(argSize, ev.Size),
		perfetto.Uint(argOffset, ev.Offset),
		perfetto.Uint(argObjectHandle, ev.ObjectHandle),
		vocabArg(argMemoryType, ev.MemoryType),
		perfetto.Uint(argHeap, uint64(ev.Heap)),
		perfetto.String(argObjectName, name),
		perfetto.String(argAt, at))
	if ev.Site != 0 {
		args = append(args, perfetto.CallstackArg(perfetto.Callstack(ev.Site)))
	}
	perfetto.Stamp(layer.EventTime()).Instant(category, leakEvent, appendDetails(args, &ev)...)
}

// nameSink writes VulkanObjectName events like traceSink, for the object
// types memory is attributed to: the shared store also holds the names of
// pipelines, queues and the like, trace volume nothing here reads. A removed
// name is published once with an empty object_name, so a consumer sees the
// clear. The live sink (lt set) also writes the renames of the object's open
// slices with the instant, under one pick.
type nameSink struct {
	em *perfetto.Emitter
	lt *lifetimes
}

func (s nameSink) EmitName(r objectnames.Record) {
	src, ok := nameSource(r.Type)
	if !ok {
		return
	}
	var buf [2]perfetto.Slice // an end and a begin: one open lifetime, the common case
	var renames []perfetto.Slice
	if s.lt != nil {
		renames = s.lt.rename(r, src, buf[:0])
	}
	if s.em == nil && !perfetto.Enabled() {
		return
	}
	args := [...]perfetto.Arg{
		perfetto.Int(argObjectType, int64(r.Type)),
		perfetto.Uint(argObjectHandle, r.Handle),
		perfetto.String(argObjectName, r.Name),
	}
	if s.em != nil {
		s.em.Instant(category, nameEvent, args[:]...)
		return
	}
	perfetto.Stamp(layer.EventTime()).InstantSlices(category, nameEvent, renames, nil, args[:]...)
}

// nameSource is the events' source of a named object type memory is
// attributed to (ok false: not one).
func nameSource(t generated.ObjectType) (accounting.Source, bool) {
	for src, typ := range namedTypes {
		if typ == t && t != 0 {
			return accounting.Source(src), true
		}
	}
	return 0, false
}

// replay is the session-start hook: the non-zero counters, then the live
// allocations and binds, then the names (a name is only useful once the
// memory it attaches to is in the trace).
func (s *state) replay(em *perfetto.Emitter) {
	s.engine.Snapshot(traceSink{em: em, lt: s.lt})
	if s.ot != nil {
		traceSink{em: em}.HeapSizes(s.ot.sizes())
	}
	s.names.EmitAll(nameSink{em: em})
}
