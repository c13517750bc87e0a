package accounting

import "testing"

// idleRecorder is a recorder that says whether it writes anything now.
type idleRecorder struct {
	*recorder
	idle bool
}

func (r *idleRecorder) Idle() bool { return r.idle }

// While its sink is idle the engine reports no counter changes but keeps
// every event (lifetimes follow them) and the totals: a Snapshot then, and
// the changes after, carry the exact values.
func TestIdleSinkGetsNoCounters(t *testing.T) {
	r := &idleRecorder{recorder: newRecorder(), idle: true}
	e := New(r)
	e.DeviceCreated(1, testProps, false)
	e.MemoryAllocated(1, 0x40, 4096, 0)
	e.BufferCreated(1, 0x100, BufferUsageVertex, 1024)
	e.Bound(1, KindBuffer, 0x100, 0x40, 0)
	wantEvents(t, r.recorder,
		"CREATE DEVICE_MEMORY dev=0x1 mem=0x40 size=4096 off=0 obj=0x40 unbound_memory",
		"BIND BUFFER dev=0x1 mem=0x40 size=1024 off=0 obj=0x100 geometry_mesh")

	r.idle = false
	snap := newRecorder()
	e.Snapshot(snap)
	wantEvents(t, snap,
		"counter app.usage.geometry_mesh=1024",
		"counter app.usage.unbound_memory=3072",
		"CREATE DEVICE_MEMORY dev=0x1 mem=0x40 size=4096 off=0 obj=0x40 unbound_memory",
		"BIND BUFFER dev=0x1 mem=0x40 size=1024 off=0 obj=0x100 geometry_mesh")
	e.ResourceDestroyed(1, KindBuffer, 0x100)
	wantEvents(t, r.recorder,
		"counter app.usage.geometry_mesh=0",
		"counter app.usage.unbound_memory=4096",
		"DESTROY BUFFER dev=0x1 mem=0x40 size=1024 off=0 obj=0x100 geometry_mesh")
	wantTotals(t, e, r.recorder, map[string]int64{app(ClusterUnbound): 4096})
}

// Destroyed resources and freed allocations are reused: the loop of an
// application that creates, binds and frees allocates nothing, and a reused
// record starts clean (a disjoint image's becomes a buffer's).
func TestRecordsReused(t *testing.T) {
	e, r := newTestEngine()
	e.DeviceCreated(1, testProps, false)
	e.ImageCreated(1, 0x200, ImageUsageSampled, ImageCreateDisjoint)
	e.PlaneRequirementsKnown(1, 0x200, 0x10, 512)
	e.MemoryAllocated(1, 0x40, 4096, 0)
	e.PlaneBound(1, 0x200, 0x10, 0x40, 512)
	e.MemoryFreed(1, 0x40)
	e.ResourceDestroyed(1, KindImage, 0x200)
	cycle := func() {
		e.MemoryAllocated(1, 0x40, 4096, 0)
		e.BufferCreated(1, 0x100, BufferUsageVertex, 1024)
		e.Bound(1, KindBuffer, 0x100, 0x40, 0)
		e.ResourceDestroyed(1, KindBuffer, 0x100)
		e.MemoryFreed(1, 0x40)
	}
	r.take()
	cycle()
	wantEvents(t, r,
		"counter app.usage.unbound_memory=4096",
		"CREATE DEVICE_MEMORY dev=0x1 mem=0x40 size=4096 off=0 obj=0x40 unbound_memory",
		"counter app.usage.geometry_mesh=1024",
		"counter app.usage.unbound_memory=3072",
		"BIND BUFFER dev=0x1 mem=0x40 size=1024 off=0 obj=0x100 geometry_mesh",
		"counter app.usage.geometry_mesh=0",
		"counter app.usage.unbound_memory=4096",
		"DESTROY BUFFER dev=0x1 mem=0x40 size=1024 off=0 obj=0x100 geometry_mesh",
		"counter app.usage.unbound_memory=0",
		"DESTROY DEVICE_MEMORY dev=0x1 mem=0x40 size=4096 off=0 obj=0x40 unbound_memory")
	wantTotals(t, e, r, nil)

	q := New(nil)
	q.DeviceCreated(1, testProps, false)
	e = q
	cycle()
	if n := testing.AllocsPerRun(100, cycle); n != 0 {
		t.Fatalf("a create/bind/destroy/free cycle allocates %v times, want 0", n)
	}
	wantTotals(t, q, nil, nil)
}
