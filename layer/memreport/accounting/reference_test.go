package accounting

import (
	"reflect"
	"slices"
	"testing"
)

// Tests of reference-behaviour.md 6.3/6.4 that concern accounting, with the
// byte counts worked out by hand.

func TestEmitEventsAndSubCounters(t *testing.T) {
	e, r := newTestEngine()
	e.DeviceCreated(1, testProps, true)

	e.Callback(1, appAlloc(CallbackAllocate, 0x100, 4096))
	wantEvents(t, r,
		"counter app.usage.unbound_memory=4096",
		"CREATE DEVICE_MEMORY dev=0x1 mem=0x100 size=4096 off=0 obj=0x100 unbound_memory")
	e.Callback(1, appAlloc(CallbackFree, 0x100, 4096))
	wantEvents(t, r,
		"counter app.usage.unbound_memory=0",
		"DESTROY DEVICE_MEMORY dev=0x1 mem=0x100 size=4096 off=0 obj=0x100 unbound_memory")

	e.Callback(1, CallbackEvent{Type: CallbackAllocate, MemoryObjectID: 7, Size: 8192, Internal: true})
	wantTotals(t, e, r, map[string]int64{drv(ClusterUnbound): 8192})
	wantEvents(t, r,
		"counter driver.usage.unbound_memory=8192",
		"CREATE DRIVER dev=0x1 mem=0x7 size=8192 off=0 obj=0x0 unbound_memory")
	// The FREE's size is not trusted: the tracked size is reported.
	e.Callback(1, CallbackEvent{Type: CallbackFree, MemoryObjectID: 7, Size: 1, Internal: true})
	wantEvents(t, r,
		"counter driver.usage.unbound_memory=0",
		"DESTROY DRIVER dev=0x1 mem=0x7 size=8192 off=0 obj=0x0 unbound_memory")
	if got := e.Total(drv(ClusterUnbound)); got != 0 {
		t.Fatalf("driver unbound after free = %d", got)
	}

	e.DeviceCreated(2, testProps, false)
	e.MemoryAllocated(2, 0x200, 2048, 0)
	wantEvents(t, r,
		"counter app.usage.unbound_memory=2048",
		"CREATE DEVICE_MEMORY dev=0x2 mem=0x200 size=2048 off=0 obj=0x200 unbound_memory")
	e.MemoryFreed(2, 0x200)
	wantEvents(t, r,
		"counter app.usage.unbound_memory=0",
		"DESTROY DEVICE_MEMORY dev=0x2 mem=0x200 size=2048 off=0 obj=0x200 unbound_memory")
	wantTotals(t, e, r, nil)
	if a := e.Allocations(); len(a) != 0 {
		t.Fatalf("allocations left: %+v", a)
	}
}

func TestBufferImageBindingAndCallbackSuppression(t *testing.T) {
	e, r := newTestEngine()
	e.DeviceCreated(1, testProps, true)
	e.BufferCreated(1, 0xB0, BufferUsageVertex, 2048)
	e.ImageCreated(1, 0x10, ImageUsageColorAttachment, 0)
	e.RequirementsKnown(1, KindImage, 0x10, 1024)

	// Binds to memory the engine has not seen yet: [0,2048) and [2048,3072).
	e.Bound(1, KindBuffer, 0xB0, 0x500, 0)
	e.Bound(1, KindImage, 0x10, 0x500, 2048)
	wantTotals(t, e, r, map[string]int64{app(ClusterGeometryMesh): 2048, app(ClusterColorRenderTarget): 1024})

	// IMPORT 4096 with binds covering [0,3072): unbound 1024.
	e.Callback(1, appAlloc(CallbackImport, 0x500, 4096))
	wantTotals(t, e, r, map[string]int64{
		app(ClusterGeometryMesh): 2048, app(ClusterColorRenderTarget): 1024, app(ClusterUnbound): 1024})

	// vkAllocateMemory/vkFreeMemory on a callback device are not accounted.
	r.take()
	e.MemoryAllocated(1, 0x600, 999, 0)
	e.MemoryFreed(1, 0x600)
	e.MemoryFreed(1, 0x500) // live callback allocation: left to UNIMPORT
	wantEvents(t, r)
	wantTotals(t, e, r, map[string]int64{
		app(ClusterGeometryMesh): 2048, app(ClusterColorRenderTarget): 1024, app(ClusterUnbound): 1024})

	e.Callback(1, appAlloc(CallbackUnimport, 0x500, 4096))
	wantTotals(t, e, r, nil)
	for _, track := range []string{app(ClusterGeometryMesh), app(ClusterColorRenderTarget), app(ClusterUnbound)} {
		if v, ok := r.last[track]; !ok || v != 0 {
			t.Fatalf("%s last reported %d (reported %v), want 0", track, v, ok)
		}
	}

	// Switching the callback flag off makes the fallback path count.
	e.DeviceCreated(1, testProps, false)
	e.MemoryAllocated(1, 0x700, 512, 0)
	wantTotals(t, e, r, map[string]int64{app(ClusterUnbound): 512})
	e.MemoryFreed(1, 0x700)
	wantTotals(t, e, r, nil)
	e.ResourceDestroyed(1, KindBuffer, 0xB0)
	e.ResourceDestroyed(1, KindImage, 0x10)
	if a := e.Allocations(); len(a) != 0 {
		t.Fatalf("allocations left: %+v", a)
	}
}

func TestUsageTypeBreakdown(t *testing.T) {
	e, r := newTestEngine()
	e.DeviceCreated(1, testProps, false)
	const mem = 0xD00
	e.MemoryAllocated(1, mem, 2<<20, 1) // type 1: HOST_VISIBLE

	images := []uint32{ImageUsageColorAttachment, ImageUsageDepthStencilAttachment, ImageUsageSampled,
		ImageUsageStorage, ImageUsageTransientAttachment | ImageUsageColorAttachment}
	buffers := []struct {
		usage uint64
		size  uint64
	}{
		{BufferUsageVertex, 4096}, {BufferUsageIndex, 4096}, {BufferUsageUniform, 4096},
		{BufferUsageTransferSrc, 4096}, {BufferUsageStorage, 4096}, {BufferUsageIndirect, 4096},
	}
	var off uint64
	for i, u := range images {
		h := uint64(0x100 + i)
		e.ImageCreated(1, h, u, 0)
		e.RequirementsKnown(1, KindImage, h, 65536)
		e.Bound(1, KindImage, h, mem, off)
		off += 65536
	}
	for i, b := range buffers {
		h := uint64(0x200 + i)
		e.BufferCreated(1, h, b.usage, b.size)
		e.Bound(1, KindBuffer, h, mem, off)
		off += b.size
	}
	wantTotals(t, e, r, map[string]int64{
		app(ClusterColorRenderTarget):   65536,
		app(ClusterDepthStencilTarget):  65536,
		app(ClusterStaticTexture):       65536,
		app(ClusterStorageComputeImage): 65536,
		app(ClusterTransientMemoryless): 65536,
		app(ClusterGeometryMesh):        8192,
		app(ClusterUniformConstants):    4096,
		app(ClusterStagingTransfer):     4096,
		app(ClusterComputeStorage):      4096,
		app(ClusterIndirectGPUDriven):   4096,
		app(ClusterUnbound):             1744896,
	})

	e.MemoryFreed(1, mem)
	for i := range images {
		e.ResourceDestroyed(1, KindImage, uint64(0x100+i))
	}
	for i := range buffers {
		e.ResourceDestroyed(1, KindBuffer, uint64(0x200+i))
	}
	wantTotals(t, e, r, nil)
	if len(r.last) != 11 {
		t.Fatalf("tracks reported: %d, want 11", len(r.last))
	}
}

// TestMemoryAliasingAndOverlap is the worked example of 5.12.
func TestMemoryAliasingAndOverlap(t *testing.T) {
	e, r := newTestEngine()
	e.DeviceCreated(1, testProps, false)
	e.MemoryAllocated(1, 0xab0, 10000, 0)
	wantTotals(t, e, r, map[string]int64{app(ClusterUnbound): 10000})

	e.ImageCreated(1, 0xA, ImageUsageColorAttachment, 0)
	e.RequirementsKnown(1, KindImage, 0xA, 4000)
	e.ImageCreated(1, 0xB, ImageUsageSampled, 0)
	e.RequirementsKnown(1, KindImage, 0xB, 4000)
	e.BufferCreated(1, 0xC, BufferUsageVertex, 1500)

	e.Bound(1, KindImage, 0xA, 0xab0, 0)
	wantTotals(t, e, r, map[string]int64{app(ClusterColorRenderTarget): 4000, app(ClusterUnbound): 6000})
	e.Bound(1, KindImage, 0xB, 0xab0, 2000)
	wantTotals(t, e, r, map[string]int64{
		app(ClusterColorRenderTarget): 4000, app(ClusterStaticTexture): 4000, app(ClusterUnbound): 4000})
	e.Bound(1, KindBuffer, 0xC, 0xab0, 8000)
	wantTotals(t, e, r, map[string]int64{
		app(ClusterColorRenderTarget): 4000, app(ClusterStaticTexture): 4000,
		app(ClusterGeometryMesh): 1500, app(ClusterUnbound): 2500})
	r.take()
	e.ResourceDestroyed(1, KindImage, 0xA)
	wantEvents(t, r,
		"counter app.usage.color_render_target=0",
		"counter app.usage.unbound_memory=4500",
		"DESTROY IMAGE dev=0x1 mem=0xab0 size=4000 off=0 obj=0xa color_render_target")
	wantTotals(t, e, r, map[string]int64{
		app(ClusterStaticTexture): 4000, app(ClusterGeometryMesh): 1500, app(ClusterUnbound): 4500})

	e.MemoryFreed(1, 0xab0)
	wantEvents(t, r,
		"counter app.usage.static_texture=0",
		"DESTROY IMAGE dev=0x1 mem=0xab0 size=4000 off=2000 obj=0xb static_texture",
		"counter app.usage.geometry_mesh=0",
		"DESTROY BUFFER dev=0x1 mem=0xab0 size=1500 off=8000 obj=0xc geometry_mesh",
		"counter app.usage.unbound_memory=0",
		"DESTROY DEVICE_MEMORY dev=0x1 mem=0xab0 size=10000 off=0 obj=0xab0 unbound_memory")
	wantTotals(t, e, r, nil)
}

func TestClusterClassificationFunctions(t *testing.T) {
	const hv, lazy = MemoryPropertyHostVisible, MemoryPropertyLazilyAllocated
	buffers := []struct {
		usage uint64
		flags uint32
		want  Cluster
	}{
		{BufferUsageTransferSrc, hv, ClusterStagingTransfer},
		{BufferUsageTransferDst, hv, ClusterStagingTransfer},
		{BufferUsageTransferSrc | BufferUsageTransferDst, hv | 0x1, ClusterStagingTransfer},
		{BufferUsageTransferSrc, 0, ClusterGeneralBuffer}, // staging requires HOST_VISIBLE
		{BufferUsageTransferSrc, lazy, ClusterGeneralBuffer},
		{BufferUsageTransferDst | BufferUsageVertex, hv, ClusterGeometryMesh}, // functional: not staging
		{BufferUsageTransferDst | BufferUsageUniform, hv, ClusterUniformConstants},
		{BufferUsageTransferDst | BufferUsageConditionalRendering, hv, ClusterIndirectGPUDriven},
		{BufferUsageTransferDst | BufferUsageTransformFeedback, hv, ClusterTransformFeedback},
		{BufferUsageTransferDst | BufferUsageShaderBindingTable, hv, ClusterRayTracing},
		{BufferUsageASStorage, 0, ClusterRayTracing},
		{BufferUsageASBuildInputReadOnly | BufferUsageIndirect, 0, ClusterRayTracing},
		{BufferUsageShaderBindingTable | BufferUsageStorage, 0, ClusterRayTracing},
		{BufferUsageIndirect | BufferUsageStorage, 0, ClusterIndirectGPUDriven},
		{BufferUsageConditionalRendering, 0, ClusterIndirectGPUDriven},
		{BufferUsageStorage | BufferUsageUniform, 0, ClusterComputeStorage},
		{BufferUsageStorageTexel, 0, ClusterComputeStorage},
		{BufferUsageUniform | BufferUsageVertex, 0, ClusterUniformConstants},
		{BufferUsageUniformTexel, 0, ClusterUniformConstants},
		{BufferUsageVertex | BufferUsageTransformFeedback, 0, ClusterGeometryMesh},
		{BufferUsageIndex, 0, ClusterGeometryMesh},
		{BufferUsageTransformFeedback, 0, ClusterTransformFeedback},
		{BufferUsageTransformFeedbackCounter, hv, ClusterTransformFeedback},
		{0, 0, ClusterGeneralBuffer},
		{0, hv, ClusterGeneralBuffer},
		// Beyond the reference (issue 34): usage of three functional kinds
		// or more is a general-purpose buffer (Zink's buffers have every bit).
		{zinkBuffer, hv, ClusterGeneralBuffer},
		{BufferUsageIndirect | BufferUsageStorage | BufferUsageVertex, 0, ClusterGeneralBuffer},
		{BufferUsageStorage | BufferUsageUniform | BufferUsageTransferDst, hv, ClusterComputeStorage},
	}
	for _, c := range buffers {
		if got := ClassifyBuffer(c.usage, c.flags); got != c.want {
			t.Errorf("ClassifyBuffer(%#x, %#x) = %s, want %s", c.usage, c.flags, got, c.want)
		}
	}
	images := []struct {
		usage uint32
		flags uint32
		want  Cluster
	}{
		{ImageUsageTransientAttachment | ImageUsageColorAttachment, 0, ClusterTransientMemoryless},
		{ImageUsageColorAttachment, lazy, ClusterTransientMemoryless}, // LAZILY_ALLOCATED alone
		{0, lazy, ClusterTransientMemoryless},
		{ImageUsageStorage | ImageUsageColorAttachment | ImageUsageSampled, 0, ClusterStorageComputeImage},
		{ImageUsageDepthStencilAttachment | ImageUsageSampled, 0, ClusterDepthStencilTarget},
		{ImageUsageDepthStencilAttachment | ImageUsageColorAttachment, 0, ClusterDepthStencilTarget},
		{ImageUsageColorAttachment | ImageUsageSampled, 0, ClusterColorRenderTarget},
		{ImageUsageSampled, hv, ClusterStaticTexture},
		{0x1 | 0x2, 0, ClusterGeneralImage}, // transfer only
		{0, 0, ClusterGeneralImage},
		// Beyond the reference (issue 34): Zink's color images (every
		// usage a GL texture may need) are textures; without the input
		// attachment and transfers, sampled + color attachment stays a
		// render target.
		{zinkImage, 0, ClusterStaticTexture},
		{zinkImage | ImageUsageStorage, 0, ClusterStaticTexture},
		{ImageUsageSampled | ImageUsageColorAttachment | ImageUsageTransferDst, 0, ClusterColorRenderTarget},
		{ImageUsageSampled | ImageUsageTransferDst | 0x20 | 0x80000, 0, ClusterDepthStencilTarget}, // Zink's depth buffer
	}
	for _, c := range images {
		if got := ClassifyImage(c.usage, c.flags); got != c.want {
			t.Errorf("ClassifyImage(%#x, %#x) = %s, want %s", c.usage, c.flags, got, c.want)
		}
	}

	names := TrackNames()
	if len(names) != 32 || names[0] != "vulkan.mem.app.usage.staging_transfer" ||
		names[31] != "vulkan.mem.driver.usage.unbound_memory" {
		t.Fatalf("TrackNames = %v", names)
	}
	if n := len(slices.Compact(slices.Sorted(slices.Values(names)))); n != 32 {
		t.Fatalf("%d distinct track names, want 32", n)
	}
	if TrackName(false, numClusters) != "" || Cluster(200).String() != "" {
		t.Fatal("invalid cluster must have no name")
	}
}

func TestDriverVsAppUnboundMemoryAttribution(t *testing.T) {
	e, r := newTestEngine()
	e.DeviceCreated(1, testProps, true)
	e.ImageCreated(1, 0xA, ImageUsageColorAttachment|ImageUsageSampled, 0)

	e.Callback(1, CallbackEvent{Type: CallbackAllocate, MemoryObjectID: 1, Size: 8192,
		ObjectType: ObjectTypeImage, ObjectHandle: 0xA, Internal: true})
	wantTotals(t, e, r, map[string]int64{drv(ClusterColorRenderTarget): 8192})
	wantEvents(t, r,
		"counter driver.usage.color_render_target=8192",
		"CREATE DRIVER dev=0x1 mem=0x1 size=8192 off=0 obj=0xa color_render_target")

	// An application allocation reported for the same handle stays app unbound.
	e.Callback(1, CallbackEvent{Type: CallbackAllocate, MemoryObjectID: 2, Size: 4096,
		ObjectType: ObjectTypeImage, ObjectHandle: 0xA})
	wantTotals(t, e, r, map[string]int64{drv(ClusterColorRenderTarget): 8192, app(ClusterUnbound): 4096})

	// A driver BUFFER allocation before vkCreateBuffer moves when it is created.
	e.Callback(1, CallbackEvent{Type: CallbackAllocate, MemoryObjectID: 3, Size: 2048,
		ObjectType: ObjectTypeBuffer, ObjectHandle: 0xB, Internal: true})
	wantTotals(t, e, r, map[string]int64{
		drv(ClusterColorRenderTarget): 8192, app(ClusterUnbound): 4096, drv(ClusterUnbound): 2048})
	r.take()
	e.BufferCreated(1, 0xB, BufferUsageVertex|BufferUsageTransferDst, 2048)
	wantEvents(t, r,
		"counter driver.usage.unbound_memory=0",
		"counter driver.usage.geometry_mesh=2048")
	wantTotals(t, e, r, map[string]int64{
		drv(ClusterColorRenderTarget): 8192, app(ClusterUnbound): 4096, drv(ClusterGeometryMesh): 2048})

	for id := uint64(1); id <= 3; id++ {
		e.Callback(1, CallbackEvent{Type: CallbackFree, MemoryObjectID: id, Internal: id != 2})
	}
	wantTotals(t, e, r, nil)
	if s := e.Stats(); s.UnknownFrees != 0 {
		t.Fatalf("stats = %+v", s)
	}
}

func TestMemoryReportSnapshotDump(t *testing.T) {
	e, r := newTestEngine()
	e.DeviceCreated(1, testProps, false)
	e.MemoryAllocated(1, 0x40, 16384, 0)
	e.BufferCreated(1, 0xB, BufferUsageUniform, 4096)
	e.ImageCreated(1, 0xC, ImageUsageSampled, 0)
	e.RequirementsKnown(1, KindImage, 0xC, 4096)
	e.Bound(1, KindBuffer, 0xB, 0x40, 0)
	e.Bound(1, KindImage, 0xC, 0x40, 4096)
	// A driver allocation and a second device, to check the dump order.
	e.Callback(1, CallbackEvent{Type: CallbackAllocate, MemoryObjectID: 0x40, Size: 100, Internal: true})
	e.DeviceCreated(0, testProps, false)
	e.MemoryAllocated(0, 0x99, 10, 0)

	before := e.Allocations()
	a := before[1]
	if len(before) != 3 || a.Device != 1 || a.ID != 0x40 || a.Space != KeyMemoryHandle ||
		len(a.Bindings) != 2 || a.Unbound != 8192 || a.UnboundTrack != app(ClusterUnbound) {
		t.Fatalf("allocations = %+v", before)
	}
	wantB := []BindingInfo{
		{Kind: KindBuffer, Resource: 0xB, Offset: 0, Size: 4096, Track: app(ClusterUniformConstants)},
		{Kind: KindImage, Resource: 0xC, Offset: 4096, Size: 4096, Track: app(ClusterStaticTexture)},
	}
	if !slices.Equal(a.Bindings, wantB) {
		t.Fatalf("bindings = %+v", a.Bindings)
	}
	totals := e.Totals()

	dump := newRecorder()
	e.Snapshot(dump)
	wantEvents(t, dump,
		"counter app.usage.uniform_constants=4096",
		"counter app.usage.static_texture=4096",
		"counter app.usage.unbound_memory=8202",
		"counter driver.usage.unbound_memory=100",
		"CREATE DEVICE_MEMORY dev=0x0 mem=0x99 size=10 off=0 obj=0x99 unbound_memory",
		"CREATE DEVICE_MEMORY dev=0x1 mem=0x40 size=16384 off=0 obj=0x40 unbound_memory",
		"BIND BUFFER dev=0x1 mem=0x40 size=4096 off=0 obj=0xb uniform_constants",
		"BIND IMAGE dev=0x1 mem=0x40 size=4096 off=4096 obj=0xc static_texture",
		"CREATE DRIVER dev=0x1 mem=0x40 size=100 off=0 obj=0x0 unbound_memory")
	r.take()
	e.Snapshot(nil)
	if after := e.Allocations(); !reflect.DeepEqual(after, before) {
		t.Fatalf("dump changed allocations: %+v", after)
	}
	wantTotals(t, e, r, totals)
	wantEvents(t, r) // the dump goes to its own sink only

	e.MemoryFreed(1, 0x40)
	e.ResourceDestroyed(1, KindBuffer, 0xB)
	e.ResourceDestroyed(1, KindImage, 0xC)
	e.Callback(1, CallbackEvent{Type: CallbackFree, MemoryObjectID: 0x40, Internal: true})
	e.MemoryFreed(0, 0x99)
	if got := e.Allocations(); len(got) != 0 {
		t.Fatalf("allocations left: %+v", got)
	}
	for _, k := range []ResourceKind{KindBuffer, KindImage} {
		for _, h := range []uint64{0xB, 0xC} {
			if _, ok := e.Resource(1, k, h); ok {
				t.Fatalf("resource %s %#x still known", k, h)
			}
		}
	}
	wantTotals(t, e, r, nil)
}

// TestBoundQuerying: the size is asked for only when the engine lacks it,
// without the engine's lock held (the query may call the driver, and the
// engine back), and a bind whose size stays unknown is dropped and counted.
func TestBoundQuerying(t *testing.T) {
	e, r := newTestEngine()
	e.DeviceCreated(1, testProps, false)
	e.MemoryAllocated(1, 0x40, 1<<20, 0)
	e.BufferCreated(1, 0xA, BufferUsageStorage, 1024)
	e.BoundQuerying(1, KindBuffer, 0xA, 0x40, 0, func() uint64 { t.Error("size asked for although known"); return 0 })
	e.BufferCreated(1, 0xB, BufferUsageStorage, 0)
	calls := 0
	e.BoundQuerying(1, KindBuffer, 0xB, 0x40, 4096, func() uint64 {
		calls++
		if !e.NeedsSize(1, KindBuffer, 0xB) { // takes the lock: it must not be held
			t.Error("size asked for although known")
		}
		return 2048
	})
	e.BufferCreated(1, 0xC, BufferUsageStorage, 0)
	e.BoundQuerying(1, KindBuffer, 0xC, 0x40, 8192, func() uint64 { return 0 })
	if calls != 1 {
		t.Errorf("size asked for %d times, want 1", calls)
	}
	wantTotals(t, e, r, map[string]int64{app(ClusterComputeStorage): 1024 + 2048, app(ClusterUnbound): 1<<20 - 3072})
	if s := e.Stats(); s.DroppedBinds != 1 {
		t.Fatalf("stats = %+v, want one dropped bind", s)
	}
	if info, _ := e.Resource(1, KindBuffer, 0xB); info.Size != 2048 || info.BoundSlots != 1 {
		t.Fatalf("buffer = %+v", info)
	}
}

// TestBindQueriesUnknownResourceSize covers the engine side of the
// Bind*QueriesUnknownResourceSize cases: NeedsSize tells the layer when a
// bind-time requirements query is due, and recorded sizes are kept.
func TestBindQueriesUnknownResourceSize(t *testing.T) {
	e, r := newTestEngine()
	e.DeviceCreated(1, testProps, false)
	e.MemoryAllocated(1, 0x40, 1<<20, 0)

	e.BufferCreated(1, 0xB, BufferUsageStorage, 0)
	e.ImageCreated(1, 0xC, ImageUsageSampled, 0)
	if !e.NeedsSize(1, KindBuffer, 0xB) || !e.NeedsSize(1, KindImage, 0xC) {
		t.Fatal("resources without a size must need one")
	}
	if e.NeedsSize(1, KindBuffer, 0xC) || e.NeedsSize(1, KindImage, 0xB) || e.NeedsSize(2, KindImage, 0xC) {
		t.Fatal("unknown (kind, handle, device) must not need a size")
	}
	e.RequirementsKnown(1, KindBuffer, 0xB, 4096)
	e.RequirementsKnown(1, KindImage, 0xC, 65536)
	if e.NeedsSize(1, KindBuffer, 0xB) || e.NeedsSize(1, KindImage, 0xC) {
		t.Fatal("recorded sizes must not be re-queried")
	}
	e.Bound(1, KindBuffer, 0xB, 0x40, 0)
	e.Bound(1, KindImage, 0xC, 0x40, 65536)
	wantTotals(t, e, r, map[string]int64{
		app(ClusterComputeStorage): 4096, app(ClusterStaticTexture): 65536, app(ClusterUnbound): 1<<20 - 4096 - 65536})

	// A bind whose size could not be learned is dropped and counted.
	e.BufferCreated(1, 0xD, BufferUsageStorage, 0)
	e.Bound(1, KindBuffer, 0xD, 0x40, 0)
	// Disjoint image: no whole-image size, one per plane.
	e.ImageCreated(1, 0xE, ImageUsageSampled, ImageCreateDisjoint)
	if e.NeedsSize(1, KindImage, 0xE) || !e.NeedsPlaneSize(1, 0xE, 0x10) || !e.NeedsPlaneSize(1, 0xE, 0x20) {
		t.Fatal("disjoint image: wrong NeedsSize/NeedsPlaneSize")
	}
	if e.NeedsPlaneSize(1, 0xC, 0x10) || e.NeedsPlaneSize(1, 0xE, 0x1) {
		t.Fatal("planes of a non-disjoint image or a non-plane aspect must not need a size")
	}
	if s := e.Stats(); s.DroppedBinds != 1 {
		t.Fatalf("stats = %+v", s)
	}
	if info, _ := e.Resource(1, KindBuffer, 0xB); info.Size != 4096 || info.BoundSlots != 1 {
		t.Fatalf("buffer = %+v", info)
	}
}

// What Zink (Mesa 22.3) over lavapipe creates for glxgears and glmark2
// (docs/memreport.md "Clusters"): every buffer has every usage, every color
// image every usage of a GL texture (and attachment feedback loop).
const (
	zinkBuffer = 0x1 | 0x2 | 0x4 | 0x8 | 0x10 | 0x20 | 0x40 | 0x80 | 0x100 | 0x800 | 0x1000 | 0x20000
	zinkImage  = 0x1 | 0x2 | 0x4 | 0x10 | 0x80 | 0x80000
)
