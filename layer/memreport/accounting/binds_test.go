package accounting

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Tests of the ways memory is bound beyond the reference's (issue 15 item
// 3): dedicated and external allocations, swapchain images, sparse ranges
// and video sessions.

// clear forgets what r recorded.
func (r *recorder) clear() { r.events, r.allocs = nil, nil }

func TestDedicatedAllocationBelongsToItsResource(t *testing.T) {
	e, r := newTestEngine()
	e.DeviceCreated(1, testProps, false)
	e.ImageCreated(1, 0x1A, ImageUsageColorAttachment, 0)
	e.MemoryAllocatedWith(1, 0x40, 70000, 0, MemoryInfo{Dedicated: KindImage, DedicatedHandle: 0x1A})
	// Before the bind the whole allocation is the image's.
	wantTotals(t, e, r, map[string]int64{app(ClusterColorRenderTarget): 70000})
	if ev := r.allocs[0]; ev.Dedicated != KindImage || ev.DedicatedHandle != 0x1A || ev.External != ExternalNone {
		t.Fatalf("CREATE = %+v, want dedicated to image 0x1a", ev)
	}
	wantEvents(t, r,
		"counter app.usage.color_render_target=70000",
		"CREATE DEVICE_MEMORY dev=0x1 mem=0x40 size=70000 off=0 obj=0x40 color_render_target")
	e.RequirementsKnown(1, KindImage, 0x1A, 65536)
	e.Bound(1, KindImage, 0x1A, 0x40, 0)
	// Bound bytes plus the unbound rest: still all in the image's cluster.
	wantTotals(t, e, r, map[string]int64{app(ClusterColorRenderTarget): 70000})
	// The image goes first: its memory is nobody's until freed.
	e.ResourceDestroyed(1, KindImage, 0x1A)
	wantTotals(t, e, r, map[string]int64{app(ClusterUnbound): 70000})
	// A new image with the same handle does not inherit the memory.
	e.ImageCreated(1, 0x1A, ImageUsageSampled, 0)
	wantTotals(t, e, r, map[string]int64{app(ClusterUnbound): 70000})
	e.MemoryFreed(1, 0x40)
	wantTotals(t, e, r, nil)

	// On a callback device the CREATE comes from the callback; the
	// dedicated owner arrives with vkAllocateMemory's return.
	e.DeviceCreated(2, testProps, true)
	e.BufferCreated(2, 0xB, BufferUsageVertex, 4096)
	e.Callback(2, appAlloc(CallbackAllocate, 0x50, 4096))
	wantTotals(t, e, r, map[string]int64{app(ClusterUnbound): 4096})
	e.MemoryAllocatedWith(2, 0x50, 4096, 0, MemoryInfo{Dedicated: KindBuffer, DedicatedHandle: 0xB})
	wantTotals(t, e, r, map[string]int64{app(ClusterGeometryMesh): 4096})
	e.Bound(2, KindBuffer, 0xB, 0x50, 0)
	wantTotals(t, e, r, map[string]int64{app(ClusterGeometryMesh): 4096})
	e.Callback(2, appAlloc(CallbackFree, 0x50, 4096))
	wantTotals(t, e, r, nil)
	if a := e.Allocations(); len(a) != 0 {
		t.Fatalf("allocations left: %+v", a)
	}
}

func TestExternalMemoryIsMarked(t *testing.T) {
	e, r := newTestEngine()
	e.DeviceCreated(1, testProps, false)
	e.MemoryAllocatedWith(1, 0x40, 4096, 0, MemoryInfo{External: ExternalImported, HandleTypes: 0x1})
	e.MemoryAllocatedWith(1, 0x41, 8192, 1, MemoryInfo{External: ExternalExported, HandleTypes: 0x1})
	if infos := e.Allocations(); len(infos) != 2 || infos[0].Info.External != ExternalImported || infos[1].Info.External != ExternalExported {
		t.Fatalf("allocations %+v", infos)
	}
	e.MemoryFreed(1, 0x40)
	e.MemoryFreed(1, 0x41)
	var got []string
	for _, ev := range r.allocs {
		got = append(got, ev.Operation.String()+" "+ev.External.String())
		if ev.HandleTypes != 0x1 {
			t.Errorf("%s handle types %#x, want 0x1", evString(ev), ev.HandleTypes)
		}
	}
	if want := []string{"CREATE IMPORTED", "CREATE EXPORTED", "DESTROY IMPORTED", "DESTROY EXPORTED"}; !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	// Imported memory still counts: the device uses it.
	wantTotals(t, e, r, nil)

	// Callback IMPORT marks it too, and vkAllocateMemory's return keeps the
	// mark while adding the handle type.
	r.clear()
	e.DeviceCreated(2, testProps, true)
	e.Callback(2, appAlloc(CallbackImport, 0x60, 4096))
	e.MemoryAllocatedWith(2, 0x60, 4096, 0, MemoryInfo{HandleTypes: 0x80})
	infos := e.Allocations()
	if len(r.allocs) != 1 || r.allocs[0].External != ExternalImported || len(infos) != 1 {
		t.Fatalf("events %+v allocations %+v", r.allocs, infos)
	}
	e.Callback(2, appAlloc(CallbackUnimport, 0x60, 4096))
	if ev := r.allocs[1]; ev.Operation != OpDestroy || ev.External != ExternalImported || ev.HandleTypes != 0x80 {
		t.Fatalf("UNIMPORT gave %+v", ev)
	}
	wantTotals(t, e, r, map[string]int64{})
}

func TestSwapchainImages(t *testing.T) {
	e, r := newTestEngine()
	e.DeviceCreated(1, testProps, false)
	e.SwapchainImages(1, 0x5C, []uint64{0xA1, 0xA2})
	e.SwapchainImages(1, 0x5C, []uint64{0xA1, 0xA2}) // asked again: nothing new
	if r.allocs[0].Swapchain != 0x5C {
		t.Fatalf("swapchain of the event = %#x", r.allocs[0].Swapchain)
	}
	wantEvents(t, r,
		"BIND IMAGE dev=0x1 mem=0x0 size=0 off=0 obj=0xa1 swapchain",
		"BIND IMAGE dev=0x1 mem=0x0 size=0 off=0 obj=0xa2 swapchain")
	// Size queries, binds and destroys of them change nothing.
	e.MemoryAllocated(1, 0x40, 65536, 0)
	r.take()
	e.RequirementsKnown(1, KindImage, 0xA1, 4096)
	e.Bound(1, KindImage, 0xA1, 0x40, 0)
	e.ResourceDestroyed(1, KindImage, 0xA2)
	if e.NeedsSize(1, KindImage, 0xA1) {
		t.Error("a swapchain image needs no size")
	}
	wantEvents(t, r)
	wantTotals(t, e, r, map[string]int64{app(ClusterUnbound): 65536})
	if s := e.Stats(); s.InvalidCalls != 3 {
		t.Fatalf("stats %+v, want 3 invalid calls", s)
	}
	// An application image bound to swapchain memory
	// (VkBindImageMemorySwapchainInfoKHR).
	e.ImageCreated(1, 0xB1, ImageUsageColorAttachment, 0)
	e.SwapchainBound(1, 0xB1, 0x5C)
	wantEvents(t, r, "BIND IMAGE dev=0x1 mem=0x0 size=0 off=0 obj=0xb1 swapchain")
	if info, _ := e.Resource(1, KindImage, 0xB1); info.Swapchain != 0x5C || info.Presentable {
		t.Fatalf("bound image = %+v", info)
	}
	if info, _ := e.Resource(1, KindImage, 0xA1); info.Swapchain != 0x5C || !info.Presentable || info.Size != 0 {
		t.Fatalf("swapchain image = %+v", info)
	}

	// A session starting now sees them.
	snap := newRecorder()
	e.Snapshot(snap)
	if got := snap.events[len(snap.events)-3:]; !slices.Equal(got, []string{
		"BIND IMAGE dev=0x1 mem=0x0 size=0 off=0 obj=0xa1 swapchain",
		"BIND IMAGE dev=0x1 mem=0x0 size=0 off=0 obj=0xa2 swapchain",
		"BIND IMAGE dev=0x1 mem=0x0 size=0 off=0 obj=0xb1 swapchain"}) {
		t.Fatalf("snapshot %v", snap.events)
	}

	if own := e.SwapchainDestroyed(1, 0x5C); !slices.Equal(own, []uint64{0xA1, 0xA2}) {
		t.Fatalf("SwapchainDestroyed returned %#x", own)
	}
	wantEvents(t, r,
		"DESTROY IMAGE dev=0x1 mem=0x0 size=0 off=0 obj=0xa1 swapchain",
		"DESTROY IMAGE dev=0x1 mem=0x0 size=0 off=0 obj=0xa2 swapchain",
		"DESTROY IMAGE dev=0x1 mem=0x0 size=0 off=0 obj=0xb1 swapchain")
	if _, ok := e.Resource(1, KindImage, 0xA1); ok {
		t.Error("the swapchain's image survived it")
	}
	// The application's image stays, unbound; a recreated swapchain may
	// reuse the handles.
	if info, ok := e.Resource(1, KindImage, 0xB1); !ok || info.Swapchain != 0 {
		t.Fatalf("application image after the swapchain = %+v, %v", info, ok)
	}
	e.SwapchainImages(1, 0x5D, []uint64{0xA1})
	e.DeviceDestroyed(1)
	wantEvents(t, r,
		"BIND IMAGE dev=0x1 mem=0x0 size=0 off=0 obj=0xa1 swapchain",
		"counter app.usage.unbound_memory=0",
		"DESTROY DEVICE_MEMORY dev=0x1 mem=0x40 size=65536 off=0 obj=0x40 unbound_memory",
		"DESTROY IMAGE dev=0x1 mem=0x0 size=0 off=0 obj=0xa1 swapchain")
}

func TestSparseRanges(t *testing.T) {
	e, r := newTestEngine()
	e.DeviceCreated(1, testProps, false)
	const K = 1024
	e.BufferCreated(1, 0xB, BufferUsageStorage, 1<<20)
	e.MemoryAllocated(1, 0x40, 256*K, 0)
	e.MemoryAllocated(1, 0x41, 256*K, 0)
	r.take()
	e.SparseBound(1, KindBuffer, 0xB, 0, 64*K, 0x40, 0)
	e.SparseBound(1, KindBuffer, 0xB, 64*K, 64*K, 0x41, 0)
	wantTotals(t, e, r, map[string]int64{app(ClusterComputeStorage): 128 * K, app(ClusterUnbound): 384 * K})
	r.clear()
	// A bind across both ranges replaces the parts it covers.
	e.SparseBound(1, KindBuffer, 0xB, 32*K, 64*K, 0x40, 128*K)
	wantTotals(t, e, r, map[string]int64{app(ClusterComputeStorage): 128 * K, app(ClusterUnbound): 384 * K})
	var got []string
	for _, ev := range r.allocs {
		if !ev.Range {
			t.Fatalf("%s is not a range event", evString(ev))
		}
		got = append(got, evString(ev)+" key="+strconv.FormatUint(ev.Key, 10))
	}
	// What it replaces first: the first range shrinks in place, the second
	// goes and its end becomes a range of its own; then the new range.
	want := []string{
		"BIND BUFFER dev=0x1 mem=0x40 size=32768 off=0 obj=0xb compute_storage key=0",
		"DESTROY BUFFER dev=0x1 mem=0x41 size=65536 off=0 obj=0xb compute_storage key=65536",
		"BIND BUFFER dev=0x1 mem=0x41 size=32768 off=32768 obj=0xb compute_storage key=98304",
		"BIND BUFFER dev=0x1 mem=0x40 size=65536 off=131072 obj=0xb compute_storage key=32768",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("events:\n%v\nwant:\n%v", got, want)
	}
	for _, ev := range r.events {
		if v, ok := strings.CutPrefix(ev, "counter app.usage.compute_storage="); ok {
			if n, _ := strconv.Atoi(v); n > 128*K {
				t.Errorf("compute_storage went to %d during the rebind: bytes must leave before new ones come", n)
			}
		}
	}
	info, _ := e.Resource(1, KindBuffer, 0xB)
	if info.Ranges != 3 || info.RangeBytes != 128*K {
		t.Fatalf("resource %+v", info)
	}
	// Binding what is bound changes nothing.
	r.take()
	e.SparseBound(1, KindBuffer, 0xB, 32*K, 64*K, 0x40, 128*K)
	wantEvents(t, r)
	// Unbinding (memory VK_NULL_HANDLE) part of it.
	e.SparseBound(1, KindBuffer, 0xB, 0, 40*K, 0, 0)
	wantTotals(t, e, r, map[string]int64{app(ClusterComputeStorage): 88 * K, app(ClusterUnbound): 424 * K})
	// Freeing memory ends the ranges in it.
	e.MemoryFreed(1, 0x41)
	wantTotals(t, e, r, map[string]int64{app(ClusterComputeStorage): 56 * K, app(ClusterUnbound): 200 * K})
	// A snapshot replays the ranges with their keys.
	snap := newRecorder()
	e.Snapshot(snap)
	var keys []uint64
	for _, ev := range snap.allocs {
		if ev.Range {
			keys = append(keys, ev.Key, ev.Offset, ev.Size)
		}
	}
	if !slices.Equal(keys, []uint64{40 * K, 136 * K, 56 * K}) {
		t.Fatalf("replayed (key, offset, size) = %v", keys)
	}
	e.ResourceDestroyed(1, KindBuffer, 0xB)
	wantTotals(t, e, r, map[string]int64{app(ClusterUnbound): 256 * K})

	// Opaque image ranges work the same; unknown resources are dropped.
	e.ImageCreated(1, 0x1A, ImageUsageSampled, 0)
	e.SparseBound(1, KindImage, 0x1A, 0, 64*K, 0x40, 0)
	e.SparseBound(1, KindImage, 0x99, 0, 64*K, 0x40, 0)
	wantTotals(t, e, r, map[string]int64{app(ClusterStaticTexture): 64 * K, app(ClusterUnbound): 192 * K})
	if s := e.Stats(); s.DroppedBinds != 1 {
		t.Fatalf("stats %+v", s)
	}
	e.MemoryFreed(1, 0x40)
	e.ResourceDestroyed(1, KindImage, 0x1A)
	wantTotals(t, e, r, nil)
}

func TestVideoSessionBindings(t *testing.T) {
	e, r := newTestEngine()
	e.DeviceCreated(1, testProps, false)
	e.VideoSessionCreated(1, 0x7E, 0)
	e.MemoryAllocated(1, 0x40, 65536, 0)
	r.clear()
	e.VideoSessionBound(1, 0x7E, 0, 0x40, 0, 4096)
	e.VideoSessionBound(1, 0x7E, 1, 0x40, 8192, 16384)
	allocs := r.allocs
	wantEvents(t, r,
		"counter app.usage.video_session=4096",
		"counter app.usage.unbound_memory=61440",
		"BIND VIDEO_SESSION dev=0x1 mem=0x40 size=4096 off=0 obj=0x7e video_session",
		"counter app.usage.video_session=20480",
		"counter app.usage.unbound_memory=45056",
		"BIND VIDEO_SESSION dev=0x1 mem=0x40 size=16384 off=8192 obj=0x7e video_session")
	if ev := allocs[1]; !ev.Range || ev.Key != 1 {
		t.Fatalf("second bind %+v, want binding index 1", ev)
	}
	if info, _ := e.Resource(1, KindVideoSession, 0x7E); info.Ranges != 2 || info.RangeBytes != 20480 {
		t.Fatalf("session %+v", info)
	}
	e.ResourceDestroyed(1, KindVideoSession, 0x7E)
	wantTotals(t, e, r, map[string]int64{app(ClusterUnbound): 65536})
	e.VideoSessionBound(1, 0x7E, 0, 0x40, 0, 4096) // destroyed: dropped
	if s := e.Stats(); s.DroppedBinds != 1 {
		t.Fatalf("stats %+v", s)
	}
	// Driver memory reported for a video session counts in its cluster.
	e.VideoSessionCreated(1, 0x7F, 0)
	e.Callback(1, CallbackEvent{Type: CallbackAllocate, MemoryObjectID: 9, Size: 1000, Internal: true,
		ObjectType: ObjectTypeVideoSessionKHR, ObjectHandle: 0x7F})
	wantTotals(t, e, r, map[string]int64{app(ClusterUnbound): 65536, drv(ClusterVideoSession): 1000})
}

func TestSparseImageRegions(t *testing.T) {
	e, r := newTestEngine()
	e.DeviceCreated(1, testProps, false)
	e.ImageCreated(1, 0x1A, ImageUsageSampled, 0)
	e.MemoryAllocated(1, 0x40, 1<<20, 0)
	a := ImageRegion{Aspect: 1, MipLevel: 0, X: 0}
	b := ImageRegion{Aspect: 1, MipLevel: 0, X: 128}
	e.SparseImageBound(1, 0x1A, a, 65536, 0x40, 0)
	e.SparseImageBound(1, 0x1A, b, 65536, 0x40, 65536)
	e.SparseImageBound(1, 0x1A, a, 65536, 0x40, 131072) // the same region again: replaces
	wantTotals(t, e, r, map[string]int64{app(ClusterStaticTexture): 131072, app(ClusterUnbound): 1<<20 - 131072})
	e.SparseImageBound(1, 0x1A, b, 0, 0, 0) // unbind
	e.SparseImageBound(1, 0x1A, b, 0, 0x40, 0)
	wantTotals(t, e, r, map[string]int64{app(ClusterStaticTexture): 65536, app(ClusterUnbound): 1<<20 - 65536})
	if s := e.Stats(); s.DroppedBinds != 1 {
		t.Fatalf("stats %+v: a bind of unknown size is dropped", s)
	}
	for _, ev := range r.allocs {
		if ev.Range {
			t.Fatalf("%s: image region binds carry no resource offset", evString(ev))
		}
	}
	e.ResourceDestroyed(1, KindImage, 0x1A)
	wantTotals(t, e, r, map[string]int64{app(ClusterUnbound): 1 << 20})
}

// Ranges still bound when the device goes are leaks, once each; swapchain
// images are none.
func TestRangeLeaks(t *testing.T) {
	e, _ := newTestEngine()
	e.DeviceCreated(1, testProps, false)
	e.BufferCreated(1, 0xB, BufferUsageStorage, 1<<20)
	e.VideoSessionCreated(1, 0x7E, 0)
	e.MemoryAllocated(1, 0x40, 1<<20, 0)
	e.SparseBound(1, KindBuffer, 0xB, 65536, 4096, 0x40, 0)
	e.VideoSessionBound(1, 0x7E, 1, 0x40, 8192, 4096)
	e.SwapchainImages(1, 0x5C, []uint64{0xA1})
	var got []string
	for _, ev := range e.Leaks(1) {
		got = append(got, evString(ev)+" key="+strconv.FormatUint(ev.Key, 10))
	}
	want := []string{
		"CREATE DEVICE_MEMORY dev=0x1 mem=0x40 size=1048576 off=0 obj=0x40 unbound_memory key=0",
		"BIND BUFFER dev=0x1 mem=0x40 size=4096 off=0 obj=0xb compute_storage key=65536",
		"BIND VIDEO_SESSION dev=0x1 mem=0x40 size=4096 off=8192 obj=0x7e video_session key=1",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("leaks:\n%v\nwant:\n%v", got, want)
	}
	if again := e.Leaks(1); len(again) != 0 {
		t.Fatalf("leaks reported twice: %v", again)
	}
}
