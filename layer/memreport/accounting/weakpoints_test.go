package accounting

import (
	"math"
	"slices"
	"sync"
	"testing"
)

// One test per weak point of reference-behaviour.md 7.2/7.3 fixed here.

func TestDeviceScopingAndDeviceDestroy(t *testing.T) {
	e, r := newTestEngine()
	for _, dev := range []uint64{1, 2} {
		e.DeviceCreated(dev, testProps, false)
	}
	// Identical handle values on both devices.
	e.MemoryAllocated(1, 0x40, 8192, 0)
	e.BufferCreated(1, 0xB, BufferUsageVertex, 4096)
	e.Bound(1, KindBuffer, 0xB, 0x40, 0)
	e.MemoryAllocated(2, 0x40, 4096, 0)
	e.BufferCreated(2, 0xB, BufferUsageUniform, 4096)
	e.Bound(2, KindBuffer, 0xB, 0x40, 0)
	// A driver allocation whose FREE never comes.
	e.Callback(1, CallbackEvent{Type: CallbackAllocate, MemoryObjectID: 5, Size: 1000, Internal: true})
	wantTotals(t, e, r, map[string]int64{
		app(ClusterGeometryMesh): 4096, app(ClusterUniformConstants): 4096,
		app(ClusterUnbound): 4096, drv(ClusterUnbound): 1000})

	r.take()
	e.DeviceDestroyed(1)
	wantEvents(t, r,
		"counter app.usage.geometry_mesh=0",
		"DESTROY BUFFER dev=0x1 mem=0x40 size=4096 off=0 obj=0xb geometry_mesh",
		"counter app.usage.unbound_memory=0",
		"DESTROY DEVICE_MEMORY dev=0x1 mem=0x40 size=8192 off=0 obj=0x40 unbound_memory",
		"counter driver.usage.unbound_memory=0",
		"DESTROY DRIVER dev=0x1 mem=0x5 size=1000 off=0 obj=0x0 unbound_memory")
	wantTotals(t, e, r, map[string]int64{app(ClusterUniformConstants): 4096})
	if _, ok := e.Resource(1, KindBuffer, 0xB); ok {
		t.Fatal("device 1's buffer survived DeviceDestroyed")
	}
	if info, ok := e.Resource(2, KindBuffer, 0xB); !ok || info.BoundSlots != 1 {
		t.Fatalf("device 2's buffer = %+v, %v", info, ok)
	}
	if got := e.Devices(); !slices.Equal(got, []uint64{2}) {
		t.Fatalf("devices = %v", got)
	}
	e.DeviceDestroyed(1) // again: no-op
	e.DeviceDestroyed(2)
	wantTotals(t, e, r, nil)
	if len(e.Allocations()) != 0 || len(e.Devices()) != 0 {
		t.Fatal("state left after destroying every device")
	}
}

func TestCallbacksBeforeDeviceCreatedAreKept(t *testing.T) {
	e, r := newTestEngine()
	// The driver reports allocations inside vkCreateDevice, before the
	// layer calls DeviceCreated for the same key.
	e.Callback(7, CallbackEvent{Type: CallbackAllocate, MemoryObjectID: 1, Size: 300, Internal: true})
	e.DeviceCreated(7, testProps, true)
	wantTotals(t, e, r, map[string]int64{drv(ClusterUnbound): 300})
	e.DeviceDestroyed(7)
	wantTotals(t, e, r, nil)
}

func TestKeySpacesNeverMerge(t *testing.T) {
	e, r := newTestEngine()
	e.DeviceCreated(1, testProps, true)
	e.Callback(1, appAlloc(CallbackAllocate, 0x100, 4096))
	// A driver memoryObjectId equal to the application's VkDeviceMemory handle.
	e.Callback(1, CallbackEvent{Type: CallbackAllocate, MemoryObjectID: 0x100, Size: 1000, Internal: true})
	e.BufferCreated(1, 0xB, BufferUsageIndex, 1024)
	e.Bound(1, KindBuffer, 0xB, 0x100, 0)
	wantTotals(t, e, r, map[string]int64{
		app(ClusterGeometryMesh): 1024, app(ClusterUnbound): 3072, drv(ClusterUnbound): 1000})
	if got := e.Allocations(); len(got) != 2 || got[0].Space != KeyMemoryHandle || got[1].Space != KeyMemoryObjectID {
		t.Fatalf("allocations = %+v", got)
	}

	e.Callback(1, CallbackEvent{Type: CallbackFree, MemoryObjectID: 0x100, Internal: true})
	wantTotals(t, e, r, map[string]int64{app(ClusterGeometryMesh): 1024, app(ClusterUnbound): 3072})
	e.Callback(1, appAlloc(CallbackFree, 0x100, 4096))
	wantTotals(t, e, r, nil)
}

func TestImageFirstSeenViaRequirementsStaysImage(t *testing.T) {
	e, r := newTestEngine()
	e.DeviceCreated(1, testProps, false)
	e.MemoryAllocated(1, 0x40, 8192, 0)
	// Never seen at creation; the same handle value also names a buffer.
	e.RequirementsKnown(1, KindImage, 0x77, 4096)
	e.RequirementsKnown(1, KindBuffer, 0x77, 1024)
	r.take()
	e.Bound(1, KindImage, 0x77, 0x40, 0)
	e.Bound(1, KindBuffer, 0x77, 0x40, 4096)
	wantEvents(t, r,
		"counter app.usage.general_image=4096",
		"counter app.usage.unbound_memory=4096",
		"BIND IMAGE dev=0x1 mem=0x40 size=4096 off=0 obj=0x77 general_image",
		"counter app.usage.general_buffer=1024",
		"counter app.usage.unbound_memory=3072",
		"BIND BUFFER dev=0x1 mem=0x40 size=1024 off=4096 obj=0x77 general_buffer")
	e.ResourceDestroyed(1, KindImage, 0x77)
	wantTotals(t, e, r, map[string]int64{app(ClusterGeneralBuffer): 1024, app(ClusterUnbound): 7168})
	e.MemoryFreed(1, 0x40)
	wantTotals(t, e, r, nil)
}

func TestDisjointImagePlanes(t *testing.T) {
	e, r := newTestEngine()
	e.DeviceCreated(1, testProps, false)
	e.MemoryAllocated(1, 0x40, 8192, 0)
	e.ImageCreated(1, 0xE, ImageUsageSampled, ImageCreateDisjoint)
	e.PlaneRequirementsKnown(1, 0xE, 0x10, 4096) // PLANE_0
	e.PlaneRequirementsKnown(1, 0xE, 0x20, 2048) // PLANE_1
	e.PlaneBound(1, 0xE, 0x10, 0x40, 0)
	e.PlaneBound(1, 0xE, 0x20, 0x40, 4096)
	wantTotals(t, e, r, map[string]int64{app(ClusterStaticTexture): 6144, app(ClusterUnbound): 2048})
	info, _ := e.Resource(1, KindImage, 0xE)
	if info.Size != 6144 || info.PlaneSizes != [4]uint64{4096, 2048} || info.BoundSlots != 2 || !info.Disjoint {
		t.Fatalf("image = %+v", info)
	}

	// Whole-image calls on a disjoint image, a non-plane aspect and a plane
	// of unknown size change nothing.
	e.Bound(1, KindImage, 0xE, 0x40, 0)
	e.RequirementsKnown(1, KindImage, 0xE, 99)
	e.PlaneBound(1, 0xE, 0x1, 0x40, 0)
	e.PlaneRequirementsKnown(1, 0xE, 0x1, 99)
	e.PlaneBound(1, 0xE, 0x40, 0x40, 0) // PLANE_2: size unknown
	if s := e.Stats(); s.InvalidCalls != 4 || s.DroppedBinds != 1 {
		t.Fatalf("stats = %+v", s)
	}

	// Rebinding plane 1 (MEMORY_PLANE_1 aspect names the same slot).
	r.take()
	e.PlaneBound(1, 0xE, 0x100, 0x40, 6144)
	wantEvents(t, r,
		"counter app.usage.static_texture=4096",
		"counter app.usage.unbound_memory=4096",
		"DESTROY IMAGE dev=0x1 mem=0x40 size=2048 off=4096 obj=0xe static_texture",
		"counter app.usage.static_texture=6144",
		"counter app.usage.unbound_memory=2048",
		"BIND IMAGE dev=0x1 mem=0x40 size=2048 off=6144 obj=0xe static_texture")
	e.ResourceDestroyed(1, KindImage, 0xE)
	wantTotals(t, e, r, map[string]int64{app(ClusterUnbound): 8192})
	e.MemoryFreed(1, 0x40)
	wantTotals(t, e, r, nil)
}

func TestNullMemoryBindIgnored(t *testing.T) {
	e, r := newTestEngine()
	e.DeviceCreated(1, testProps, false)
	e.ImageCreated(1, 0xA, ImageUsageColorAttachment, 0)
	e.RequirementsKnown(1, KindImage, 0xA, 4096)
	r.take()
	e.Bound(1, KindImage, 0xA, 0, 0) // VkBindImageMemorySwapchainInfoKHR bind
	wantEvents(t, r)
	if s := e.Stats(); s.NullMemoryBinds != 1 || len(e.Allocations()) != 0 {
		t.Fatalf("stats = %+v, allocations = %+v", s, e.Allocations())
	}
	e.ResourceDestroyed(1, KindImage, 0xA)
	wantTotals(t, e, r, nil)
}

// ALLOCATION_FAILED is an event and a count, never an allocation.
func TestAllocationFailedReportedAndCounted(t *testing.T) {
	e, r := newTestEngine()
	e.DeviceCreated(1, testProps, true)
	e.Callback(1, CallbackEvent{Type: CallbackAllocationFailed, MemoryObjectID: 3, Size: 1 << 30, ObjectType: ObjectTypeDeviceMemory, HeapIndex: 1})
	e.Callback(1, CallbackEvent{Type: CallbackAllocationFailed, Size: math.MaxUint64, Internal: true})
	e.Callback(1, CallbackEvent{Type: 99, MemoryObjectID: 3, Size: 10})
	wantEvents(t, r,
		"ALLOCATION_FAILED DEVICE_MEMORY dev=0x1 mem=0x3 size=1073741824 off=0 obj=0x0 ",
		"ALLOCATION_FAILED DRIVER dev=0x1 mem=0x0 size=18446744073709551615 off=0 obj=0x0 ")
	if r.allocs[0].Heap != 1 {
		t.Fatalf("heap = %d, want 1", r.allocs[0].Heap)
	}
	s := e.Stats()
	if s.AllocationFailures != 2 || s.FailedBytes != math.MaxUint64 || s.InvalidCalls != 1 || len(e.Allocations()) != 0 {
		t.Fatalf("stats = %+v", s)
	}
}

func TestUnknownFreesIgnored(t *testing.T) {
	e, r := newTestEngine()
	e.DeviceCreated(1, testProps, false)
	e.DeviceCreated(2, testProps, true)
	e.MemoryFreed(1, 0x999)                                                                 // fallback: counted
	e.MemoryFreed(9, 0x999)                                                                 // unknown device: counted
	e.Callback(2, appAlloc(CallbackFree, 0x999, 1))                                         // counted
	e.Callback(3, CallbackEvent{Type: CallbackUnimport, MemoryObjectID: 1})                 // unknown device: counted
	e.MemoryFreed(2, 0x999)                                                                 // callback device: the FREE callback decides
	e.MemoryFreed(1, 0)                                                                     // VK_NULL_HANDLE is a valid no-op free
	e.Callback(2, CallbackEvent{Type: CallbackFree, MemoryObjectID: 0x999, Internal: true}) // counted
	wantEvents(t, r)
	if s := e.Stats(); s.UnknownFrees != 5 {
		t.Fatalf("stats = %+v", s)
	}
	if got := e.Devices(); !slices.Equal(got, []uint64{1, 2}) {
		t.Fatalf("frees created device state: %v", got)
	}
}

func TestPlaceholderVisibleToSnapshotAndRemovedOnFree(t *testing.T) {
	e, r := newTestEngine()
	e.DeviceCreated(1, testProps, true)
	e.BufferCreated(1, 0xB, BufferUsageVertex, 1024)
	e.Bound(1, KindBuffer, 0xB, 0x300, 512) // the callback never reports 0x300
	wantTotals(t, e, r, map[string]int64{app(ClusterGeometryMesh): 1024})
	if got := e.Allocations(); len(got) != 1 || !got[0].Placeholder || len(got[0].Bindings) != 1 {
		t.Fatalf("allocations = %+v", got)
	}
	dump := newRecorder()
	e.Snapshot(dump)
	wantEvents(t, dump,
		"counter app.usage.geometry_mesh=1024",
		"BIND BUFFER dev=0x1 mem=0x300 size=1024 off=512 obj=0xb geometry_mesh")

	// vkFreeMemory on the callback device retires the placeholder.
	r.take()
	e.MemoryFreed(1, 0x300)
	wantEvents(t, r,
		"counter app.usage.geometry_mesh=0",
		"DESTROY BUFFER dev=0x1 mem=0x300 size=1024 off=512 obj=0xb geometry_mesh")
	if got := e.Allocations(); len(got) != 0 {
		t.Fatalf("allocations = %+v", got)
	}
	if info, ok := e.Resource(1, KindBuffer, 0xB); !ok || info.BoundSlots != 0 {
		t.Fatalf("buffer = %+v, %v", info, ok)
	}

	// A callback-device vkAllocateMemory without callback leaves flags only,
	// removed again by vkFreeMemory.
	e.MemoryAllocated(1, 0x400, 4096, 1)
	if got := e.Allocations(); len(got) != 1 || !got[0].Placeholder || got[0].MemoryFlags != testProps.TypeFlags[1] {
		t.Fatalf("allocations = %+v", got)
	}
	e.MemoryFreed(1, 0x400)
	if got := e.Allocations(); len(got) != 0 {
		t.Fatalf("allocations = %+v", got)
	}
	wantEvents(t, r)
	wantTotals(t, e, r, nil)
}

func TestFlagsLearnedAfterBindReclassifyBoundBytes(t *testing.T) {
	e, r := newTestEngine()
	e.DeviceCreated(1, testProps, true)
	e.BufferCreated(1, 0xB, BufferUsageTransferSrc, 4096)
	e.ImageCreated(1, 0xC, ImageUsageColorAttachment, 0)
	e.RequirementsKnown(1, KindImage, 0xC, 2048)
	e.Bound(1, KindBuffer, 0xB, 0x300, 0)
	e.Callback(1, appAlloc(CallbackAllocate, 0x300, 8192))
	wantTotals(t, e, r, map[string]int64{app(ClusterGeneralBuffer): 4096, app(ClusterUnbound): 4096})

	r.take()
	e.MemoryAllocated(1, 0x300, 8192, 1) // HOST_VISIBLE: the buffer is staging
	wantEvents(t, r,
		"counter app.usage.general_buffer=0",
		"DESTROY BUFFER dev=0x1 mem=0x300 size=4096 off=0 obj=0xb general_buffer",
		"counter app.usage.staging_transfer=4096",
		"BIND BUFFER dev=0x1 mem=0x300 size=4096 off=0 obj=0xb staging_transfer")
	wantTotals(t, e, r, map[string]int64{app(ClusterStagingTransfer): 4096, app(ClusterUnbound): 4096})

	// LAZILY_ALLOCATED memory makes a bound color image transient.
	e.Bound(1, KindImage, 0xC, 0x500, 0)
	e.MemoryAllocated(1, 0x500, 2048, 2)
	wantTotals(t, e, r, map[string]int64{
		app(ClusterStagingTransfer): 4096, app(ClusterUnbound): 4096, app(ClusterTransientMemoryless): 2048})

	e.Callback(1, appAlloc(CallbackFree, 0x300, 8192))
	e.MemoryFreed(1, 0x500)
	wantTotals(t, e, r, nil)
}

func TestCountersSaturateAndClamp(t *testing.T) {
	e, r := newTestEngine()
	e.DeviceCreated(1, testProps, false)
	e.MemoryAllocated(1, 0x1, math.MaxUint64, 0)
	wantTotals(t, e, r, map[string]int64{app(ClusterUnbound): math.MaxInt64})
	// The interval end saturates: [100, MaxUint64) is bound.
	e.BufferCreated(1, 0xB, 0, math.MaxUint64-10)
	e.Bound(1, KindBuffer, 0xB, 0x1, 100)
	wantTotals(t, e, r, map[string]int64{app(ClusterGeneralBuffer): math.MaxInt64, app(ClusterUnbound): 100})
	info := e.Allocations()[0]
	if info.Unbound != 100 {
		t.Fatalf("unbound = %d", info.Unbound)
	}
	// Totals are exact underneath the saturated values: no drift.
	e.MemoryAllocated(1, 0x2, 50, 0)
	wantTotals(t, e, r, map[string]int64{app(ClusterGeneralBuffer): math.MaxInt64, app(ClusterUnbound): 150})
	e.MemoryFreed(1, 0x1)
	wantTotals(t, e, r, map[string]int64{app(ClusterUnbound): 50})
	e.MemoryFreed(1, 0x2)
	e.ResourceDestroyed(1, KindBuffer, 0xB)
	wantTotals(t, e, r, nil)
}

func TestRequirementSizeChangeWhileBound(t *testing.T) {
	e, r := newTestEngine()
	e.DeviceCreated(1, testProps, false)
	e.MemoryAllocated(1, 0x40, 8192, 0)
	e.BufferCreated(1, 0xB, BufferUsageStorage, 4096)
	e.Bound(1, KindBuffer, 0xB, 0x40, 0)
	e.RequirementsKnown(1, KindBuffer, 0xB, 6144)
	wantTotals(t, e, r, map[string]int64{app(ClusterComputeStorage): 6144, app(ClusterUnbound): 2048})
	e.RequirementsKnown(1, KindBuffer, 0xB, 0)
	wantTotals(t, e, r, map[string]int64{app(ClusterUnbound): 8192})
	e.MemoryFreed(1, 0x40)
	wantTotals(t, e, r, nil)
}

func TestRebindAndHandleReuse(t *testing.T) {
	e, r := newTestEngine()
	e.DeviceCreated(1, testProps, false)
	e.MemoryAllocated(1, 0x40, 4096, 0)
	e.MemoryAllocated(1, 0x50, 4096, 0)
	e.BufferCreated(1, 0xB, BufferUsageVertex, 1024)
	e.Bound(1, KindBuffer, 0xB, 0x40, 0)
	e.Bound(1, KindBuffer, 0xB, 0x50, 1024) // rebind replaces
	wantTotals(t, e, r, map[string]int64{app(ClusterGeometryMesh): 1024, app(ClusterUnbound): 7168})

	// Handles reused without a destroy/free the layer saw.
	e.BufferCreated(1, 0xB, BufferUsageUniform, 2048)
	wantTotals(t, e, r, map[string]int64{app(ClusterUnbound): 8192})
	e.MemoryAllocated(1, 0x40, 1024, 0)
	wantTotals(t, e, r, map[string]int64{app(ClusterUnbound): 5120})
	if n := len(e.Allocations()); n != 2 {
		t.Fatalf("%d allocations, want 2", n)
	}
	e.MemoryFreed(1, 0x40)
	e.MemoryFreed(1, 0x50)
	e.ResourceDestroyed(1, KindBuffer, 0xB)
	wantTotals(t, e, r, nil)
}

func TestBadInputIsANoOp(t *testing.T) {
	e, r := newTestEngine()
	e.RequirementsKnown(1, 0, 0xB, 10)
	e.RequirementsKnown(1, 7, 0xB, 10)
	e.RequirementsKnown(1, KindBuffer, 0, 10)
	e.BufferCreated(1, 0, BufferUsageVertex, 10)
	e.ImageCreated(1, 0, ImageUsageSampled, 0)
	e.Bound(1, 7, 0xB, 0x40, 0)
	e.Bound(5, KindBuffer, 0xB, 0x40, 0)
	e.ResourceDestroyed(5, 7, 0xB)
	e.ResourceDestroyed(1, KindImage, 0xB)
	e.MemoryAllocated(1, 0, 10, 99)
	e.MemoryAllocated(1, 0x40, 10, 99) // type index out of range: flags 0
	e.MemoryFreed(1, 0x40)
	e.DeviceCreated(3, MemoryProperties{}, false)
	_ = e.NeedsSize(4, KindImage, 1)
	_ = e.NeedsPlaneSize(4, 1, 0x10)
	if s := e.Stats(); s.InvalidCalls != 5 || s.DroppedBinds != 2 {
		t.Fatalf("stats = %+v", s)
	}
	wantTotals(t, e, r, nil)
	if got := (Operation(0)).String() + Source(9).String() + ResourceKind(4).String(); got != "Operation(0)Source(9)ResourceKind(4)" {
		t.Fatalf("fallback names = %q", got)
	}
}

// TestConcurrentUse drives the engine from application and callback threads
// at once (run with -race); each device's work balances out.
func TestConcurrentUse(t *testing.T) {
	e, _ := newTestEngine()
	var wg sync.WaitGroup
	for g := range uint64(4) {
		dev := g + 1
		wg.Go(func() {
			e.DeviceCreated(dev, testProps, dev%2 == 0)
			for i := range uint64(200) {
				mem, buf := 0x1000+i, 0x2000+i
				if dev%2 == 0 {
					e.Callback(dev, appAlloc(CallbackAllocate, mem, 4096))
				}
				e.MemoryAllocated(dev, mem, 4096, uint32(i%3))
				e.BufferCreated(dev, buf, BufferUsageStorage, 1024)
				e.Bound(dev, KindBuffer, buf, mem, i%4*1024)
				e.Callback(dev, CallbackEvent{Type: CallbackAllocate, MemoryObjectID: i, Size: 64, Internal: true})
				e.ResourceDestroyed(dev, KindBuffer, buf)
				e.MemoryFreed(dev, mem)
				if dev%2 == 0 {
					e.Callback(dev, appAlloc(CallbackFree, mem, 4096))
				}
				e.Callback(dev, CallbackEvent{Type: CallbackFree, MemoryObjectID: i, Internal: true})
			}
		})
	}
	wg.Go(func() {
		for range 50 {
			e.Snapshot(discard{})
			_ = e.Allocations()
		}
	})
	wg.Wait()
	wantTotals(t, e, nil, nil)
	if a := e.Allocations(); len(a) != 0 {
		t.Fatalf("allocations left: %+v", a)
	}
}
