package accounting

import "testing"

// TestSiteCarried: the call site a layer gives at creation (Site, as Desc)
// rides on every event of the object: its allocation's CREATE and DESTROY,
// a resource's BIND and DESTROY, a replay's (Snapshot: what a session that
// starts later gets, the sites having been kept with no session running)
// and the leaks; a handle created again takes the new site.
func TestSiteCarried(t *testing.T) {
	e, r := newTestEngine()
	e.DeviceCreated(1, testProps, false)
	e.MemoryAllocatedWith(1, 0x40, 1<<20, 0, MemoryInfo{Site: 7})
	e.BufferCreatedWith(1, 0xB0, BufferUsageVertex, 4096, 0, 9)
	e.ImageCreatedWith(1, 0x10, 0, 0, 0, 11)
	e.RequirementsKnown(1, KindImage, 0x10, 4096)
	e.Bound(1, KindBuffer, 0xB0, 0x40, 0)
	e.Bound(1, KindImage, 0x10, 0x40, 4096)
	e.VideoSessionCreated(1, 0x7E, 13)
	e.VideoSessionBound(1, 0x7E, 0, 0x40, 8192, 4096)
	want := map[uint64]uint32{0x40: 7, 0xB0: 9, 0x10: 11, 0x7E: 13}
	check := func(what string, evs []AllocationEvent) {
		t.Helper()
		if len(evs) == 0 {
			t.Fatalf("%s: no events", what)
		}
		for _, ev := range evs {
			if ev.Site != want[ev.ObjectHandle] {
				t.Errorf("%s: %s of %#x has site %d, want %d", what, ev.Operation, ev.ObjectHandle, ev.Site, want[ev.ObjectHandle])
			}
		}
	}
	check("live", r.allocs)
	snap := newRecorder()
	e.Snapshot(snap)
	check("replay", snap.allocs)
	check("leaks", e.Leaks(1))

	r.allocs = nil
	e.ResourceDestroyed(1, KindBuffer, 0xB0)
	e.BufferCreatedWith(1, 0xB0, BufferUsageVertex, 4096, 0, 21) // the handle again, made elsewhere
	e.Bound(1, KindBuffer, 0xB0, 0x40, 0)
	e.MemoryFreed(1, 0x40)
	if n := len(r.allocs); n < 3 {
		t.Fatalf("%d events after the rebind and free, want the buffer's DESTROY, BIND, DESTROY and more", n)
	}
	for i, ev := range r.allocs {
		w := want[ev.ObjectHandle]
		if ev.ObjectHandle == 0xB0 && i > 0 {
			w = 21
		}
		if ev.Site != w {
			t.Errorf("%s of %#x has site %d, want %d", ev.Operation, ev.ObjectHandle, ev.Site, w)
		}
	}
}
