package accounting

import (
	"maps"
	"slices"
	"testing"
)

// heapRecorder is a recorder that also takes the per-heap counters.
type heapRecorder struct {
	*recorder
	heaps map[string]int64
}

func (r *heapRecorder) Counters(track int, total int64, totalChanged bool, heap uint32, v int64, heapChanged bool) {
	if totalChanged {
		r.Counter(trackNames[track], total)
	}
	if heapChanged {
		r.heaps[HeapTrackNames(heap)[track]] = v
	}
}

func newHeapEngine() (*Engine, *heapRecorder) {
	r := &heapRecorder{recorder: newRecorder(), heaps: map[string]int64{}}
	return New(r), r
}

// heapProps: type 0 device-local in heap 0, type 1 host-visible in heap 1.
var heapProps = MemoryProperties{TypeFlags: []uint32{0x1, MemoryPropertyHostVisible}, TypeHeaps: []uint32{0, 1}}

func nonZero(m map[string]int64) map[string]int64 {
	out := map[string]int64{}
	for k, v := range m {
		if v != 0 {
			out[k] = v
		}
	}
	return out
}

// Every counter exists per heap: the heap of the memory type (fallback), of
// the callback's heapIndex, and a bound resource's bytes follow its memory.
// Per-heap values add up to the process-wide ones and return to 0.
func TestHeapCounters(t *testing.T) {
	e, r := newHeapEngine()
	e.DeviceCreated(1, heapProps, false)
	e.MemoryAllocated(1, 0xA, 1000, 0)
	e.MemoryAllocated(1, 0xB, 300, 1)
	e.BufferCreated(1, 0x10, BufferUsageTransferSrc, 100)
	e.RequirementsKnown(1, KindBuffer, 0x10, 128)
	e.Bound(1, KindBuffer, 0x10, 0xB, 0)
	e.DeviceCreated(2, MemoryProperties{}, true)
	e.Callback(2, CallbackEvent{Type: CallbackAllocate, MemoryObjectID: 7, Size: 64, Internal: true, HeapIndex: 3})
	e.Callback(2, CallbackEvent{Type: CallbackAllocate, MemoryObjectID: 8, Size: 64, Internal: true, HeapIndex: 99})
	want := map[string]int64{
		"vulkan.mem.heap0.app.usage.unbound_memory":     1000,
		"vulkan.mem.heap1.app.usage.unbound_memory":     172,
		"vulkan.mem.heap1.app.usage.staging_transfer":   128,
		"vulkan.mem.heap3.driver.usage.unbound_memory":  64,
		"vulkan.mem.heap15.driver.usage.unbound_memory": 64, // out of range: the last heap
	}
	if got := e.HeapTotals(); !maps.Equal(got, want) {
		t.Fatalf("heap totals = %v, want %v", got, want)
	}
	if got := nonZero(r.heaps); !maps.Equal(got, want) {
		t.Fatalf("reported heap counters = %v, want %v", got, want)
	}
	wantTotals(t, e, r.recorder, map[string]int64{
		app(ClusterUnbound): 1172, app(ClusterStagingTransfer): 128, drv(ClusterUnbound): 128,
	})
	e.MemoryFreed(1, 0xB)
	e.DeviceDestroyed(1)
	e.DeviceDestroyed(2)
	if got := e.HeapTotals(); len(got) != 0 {
		t.Fatalf("heap totals after destroy = %v", got)
	}
	if got := nonZero(r.heaps); len(got) != 0 {
		t.Fatalf("reported heap counters after destroy = %v", got)
	}
	if HeapTrackName(MaxHeaps, false, ClusterUnbound) != "" || len(HeapTrackNames(MaxHeaps)) != 0 || len(HeapTrackNames(2)) != numTracks {
		t.Fatal("heap track names out of range")
	}
}

// A callback device learns the heap at ALLOCATE; memory flags arriving later
// with vkAllocateMemory keep bound bytes in that heap.
func TestHeapFromCallbackThenFlags(t *testing.T) {
	e, _ := newHeapEngine()
	e.DeviceCreated(1, heapProps, true)
	e.Callback(1, CallbackEvent{Type: CallbackAllocate, MemoryObjectID: 1, Size: 256, ObjectType: ObjectTypeDeviceMemory, ObjectHandle: 0xA, HeapIndex: 1})
	e.BufferCreated(1, 0x10, BufferUsageTransferSrc, 256)
	e.Bound(1, KindBuffer, 0x10, 0xA, 0)
	e.MemoryAllocated(1, 0xA, 256, 1)
	want := map[string]int64{"vulkan.mem.heap1.app.usage.staging_transfer": 256}
	if got := e.HeapTotals(); !maps.Equal(got, want) {
		t.Fatalf("heap totals = %v, want %v", got, want)
	}
}

// A failed vkAllocateMemory is an event on a fallback device and nothing on
// a callback device (whose driver reports ALLOCATION_FAILED itself).
func TestFallbackAllocationFailed(t *testing.T) {
	e, r := newTestEngine()
	e.DeviceCreated(1, heapProps, false)
	e.DeviceCreated(2, heapProps, true)
	e.AllocationFailed(1, 1<<40, 1)
	e.AllocationFailed(2, 1<<40, 1)
	wantEvents(t, r, "ALLOCATION_FAILED DEVICE_MEMORY dev=0x1 mem=0x0 size=1099511627776 off=0 obj=0x0 ")
	if r.allocs[0].Heap != 1 {
		t.Fatalf("heap = %d", r.allocs[0].Heap)
	}
	if s := e.Stats(); s.AllocationFailures != 1 || s.FailedBytes != 1<<40 || len(e.Allocations()) != 0 {
		t.Fatalf("stats = %+v", s)
	}
	wantTotals(t, e, r, nil)
}

// Leaks lists each live allocation and binding once, in Snapshot order, and
// a binding made after a Leaks call is a new leak.
func TestLeaksOnce(t *testing.T) {
	e, _ := newTestEngine()
	e.DeviceCreated(1, heapProps, false)
	e.MemoryAllocated(1, 0xA, 1000, 0)
	e.MemoryAllocated(1, 0xB, 300, 1)
	e.BufferCreated(1, 0x10, BufferUsageVertex, 100)
	e.Bound(1, KindBuffer, 0x10, 0xA, 512)
	e.BufferCreated(1, 0x11, BufferUsageVertex, 100) // never bound: no memory, no leak
	got := leakStrings(e.Leaks(1))
	want := []string{
		"CREATE DEVICE_MEMORY dev=0x1 mem=0xa size=1000 off=0 obj=0xa unbound_memory",
		"BIND BUFFER dev=0x1 mem=0xa size=100 off=512 obj=0x10 geometry_mesh",
		"CREATE DEVICE_MEMORY dev=0x1 mem=0xb size=300 off=0 obj=0xb unbound_memory",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("leaks:\n%v\nwant:\n%v", got, want)
	}
	if got := e.Leaks(1); len(got) != 0 {
		t.Fatalf("second Leaks = %v, want none", leakStrings(got))
	}
	e.Bound(1, KindBuffer, 0x11, 0xB, 0)
	if got, want := leakStrings(e.Leaks(1)), []string{"BIND BUFFER dev=0x1 mem=0xb size=100 off=0 obj=0x11 geometry_mesh"}; !slices.Equal(got, want) {
		t.Fatalf("leaks after a new bind = %v, want %v", got, want)
	}
	if e.Leaks(99) != nil {
		t.Fatal("leaks of an unknown device")
	}
	// A driver allocation for the device itself is not a leak; one for
	// another object (a command pool the application kept) is.
	e.Callback(1, CallbackEvent{Type: CallbackAllocate, MemoryObjectID: 1, Size: 1 << 20, ObjectType: ObjectTypeDevice, ObjectHandle: 0xd, Internal: true})
	e.Callback(1, CallbackEvent{Type: CallbackAllocate, MemoryObjectID: 2, Size: 65536, ObjectType: 25, ObjectHandle: 0xc0, Internal: true})
	if got, want := leakStrings(e.Leaks(1)), []string{"CREATE DRIVER dev=0x1 mem=0x2 size=65536 off=0 obj=0xc0 unbound_memory"}; !slices.Equal(got, want) {
		t.Fatalf("driver leaks = %v, want %v", got, want)
	}
}

func leakStrings(evs []AllocationEvent) []string {
	var out []string
	for _, ev := range evs {
		out = append(out, evString(ev))
	}
	return out
}
