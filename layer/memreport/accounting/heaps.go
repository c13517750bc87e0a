package accounting

import "strconv"

// MaxHeaps is VK_MAX_MEMORY_HEAPS: heap indices at or above it (bad input)
// are counted under the last heap.
const MaxHeaps = 16

// HeapSink is implemented by a Sink that also wants every counter per memory
// heap. The engine then reports every change through Counters instead of
// Counter: a track's process-wide value (when totalChanged) and its value
// in one heap (when heapChanged), in one call so the sink can write both at
// once, with the ordering guarantees of Counter. track indexes TrackNames
// (and HeapTrackNames(heap)), so the hot path hashes no strings.
type HeapSink interface {
	Counters(track int, total int64, totalChanged bool, heap uint32, heapValue int64, heapChanged bool)
}

// EventCounterSink is implemented by a HeapSink that writes the counter
// changes of a call with its next allocation event (in one trace packet,
// say): the engine then passes the changes made before each event to
// AllocationWith, in order, and those after a call's last event to Counters
// as the call ends. Without it every change goes to Counters at once.
type EventCounterSink interface {
	HeapSink
	AllocationWith(ev AllocationEvent, changes []CounterChange)
}

// IdleSink is implemented by a sink that can tell it writes nothing now
// (no trace session): while Idle, the engine reports no counter changes to
// it, which saves their bookkeeping on every call. The totals are kept as
// always, so a later Snapshot replays the same values.
type IdleSink interface {
	Idle() bool
}

// CounterChange is one Counters call held for an event; the slice passed
// to AllocationWith is only valid during the call.
type CounterChange struct {
	Track        int
	Total        int64
	TotalChanged bool
	Heap         uint32
	HeapValue    int64
	HeapChanged  bool
}

// HeapTrackName is the per-heap form of TrackName:
// "vulkan.mem.heap<N>.{app|driver}.usage.<cluster>"; "" for an invalid
// cluster or heap.
func HeapTrackName(heap uint32, driver bool, c Cluster) string {
	name := TrackName(driver, c)
	if name == "" || heap >= MaxHeaps {
		return ""
	}
	return heapPrefix(heap) + name[len("vulkan.mem."):]
}

func heapPrefix(heap uint32) string { return "vulkan.mem.heap" + strconv.Itoa(int(heap)) + "." }

// HeapTrackNames lists every per-heap track of one heap in TrackNames order.
func HeapTrackNames(heap uint32) []string {
	if heap >= MaxHeaps {
		return nil
	}
	return append([]string(nil), heapTrackNames[heap][:]...)
}

var heapTrackNames = func() (names [MaxHeaps][numTracks]string) {
	for h := range names {
		for i := range names[h] {
			t := track(i)
			names[h][i] = HeapTrackName(uint32(h), t.driver(), t.cluster())
		}
	}
	return names
}()

// heapTotals are the per-heap counters: exact totals and the values last
// reported, as for the process-wide tracks.
type heapTotals struct {
	sink     HeapSink
	totals   [MaxHeaps][numTracks]total
	reported [MaxHeaps][numTracks]int64
}

// update records a heap's value of a track as reported and says whether it
// changed.
func (h *heapTotals) update(t track, heap uint8) (int64, bool) {
	v := h.totals[heap][t].value()
	changed := v != h.reported[heap][t]
	h.reported[heap][t] = v
	return v, changed
}

// heapOf clamps a heap index to the counters' range.
func heapOf(i uint32) uint8 { return uint8(min(i, MaxHeaps-1)) }

// typeInfo returns a memory type's property flags and heap (0, 0 for a type
// the device did not describe).
func (d *device) typeInfo(typeIndex uint32) (flags uint32, heap uint8) {
	if int(typeIndex) < len(d.typeFlags) {
		flags = d.typeFlags[typeIndex]
	}
	if int(typeIndex) < len(d.typeHeaps) {
		heap = heapOf(d.typeHeaps[typeIndex])
	}
	return flags, heap
}

// onlyType is the memory type of heap when the device has one there: what
// a report callback's heapIndex says of the type (false when it says
// nothing).
func (d *device) onlyType(heap uint32) (uint32, bool) {
	t, n := uint32(0), 0
	for i, h := range d.typeHeaps {
		if h == heap {
			t, n = uint32(i), n+1
		}
	}
	return t, n == 1
}

// HeapTotals returns every non-zero per-heap counter by its track name.
func (e *Engine) HeapTotals() map[string]int64 {
	e.lock()
	defer e.unlock()
	m := make(map[string]int64)
	for h := range e.heaps.reported {
		for t, v := range e.heaps.reported[h] {
			if v != 0 {
				m[heapTrackNames[h][t]] = v
			}
		}
	}
	return m
}

// snapshotHeaps replays the non-zero per-heap counters (heap, then
// TrackNames order).
func (e *Engine) snapshotHeaps(sink Sink) {
	hs, ok := sink.(HeapSink)
	if !ok {
		return
	}
	for h := range e.heaps.reported {
		for t, v := range e.heaps.reported[h] {
			if v != 0 {
				hs.Counters(t, 0, false, uint32(h), v, true)
			}
		}
	}
}
