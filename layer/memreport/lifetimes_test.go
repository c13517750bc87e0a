package memreport

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/vkgen/vkgen/layer/memreport/accounting"
	"github.com/vkgen/vkgen/perfetto"
	"github.com/vkgen/vkgen/perfetto/decode"
)

// TestGroupsFollowDevice: a device key reused by another VkDevice (the same
// callback token) gets group tracks of its own, named for the new device,
// also right after the old one's were the last returned.
func TestGroupsFollowDevice(t *testing.T) {
	lt := newLifetimes()
	lt.deviceCreated(7, 0xa000)
	lt.mu.Lock()
	g := lt.groupsLocked(7, 1)
	lt.mu.Unlock()
	if g[0].Name != "VkDevice 0xa000" || g[1].Name != "heap 1" || g[1].Parent != g[0].UUID {
		t.Fatalf("groups %+v", g)
	}
	lt.deviceDestroyed(7)
	lt.deviceCreated(7, 0xb000)
	lt.mu.Lock()
	old := g
	g = lt.groupsLocked(7, 1)
	lt.mu.Unlock()
	if g[0].Name != "VkDevice 0xb000" || g[1].Name != "heap 1" || g[0].UUID == old[0].UUID || g[1].UUID == old[1].UUID {
		t.Fatalf("groups after the device was replaced %+v, want VkDevice 0xb000 / heap 1", g)
	}
}

// TestLanesAreReused: a lifetime takes the lane of its device, heap and kind
// that an ended one left; an allocation the driver reports again under
// another heap ends its slice on its lane and moves to one of that heap,
// leaving the old lane free.
func TestLanesAreReused(t *testing.T) {
	sess, _ := bufferSession(t, "lanes") // slices are only made while traced
	defer sess.Stop()
	lt := newLifetimes()
	lt.deviceCreated(7, 0xa000)
	var sl [2]perfetto.Slice
	ev := func(op accounting.Operation, src accounting.Source, id uint64, heap uint32) *accounting.AllocationEvent {
		return &accounting.AllocationEvent{Operation: op, Source: src, Device: 7, MemoryObjectID: id, ObjectHandle: id, Heap: heap}
	}
	begin := func(e *accounting.AllocationEvent) []perfetto.Slice {
		t.Helper()
		n := lt.slice(e, &sl)
		if n == 0 || sl[n-1].Op != perfetto.SliceBegin {
			t.Fatalf("%+v: slices %+v", e, sl[:n])
		}
		return sl[:n]
	}
	first := begin(ev(accounting.OpBind, accounting.SourceBuffer, 0xb1, 0))[0]
	a := first.Track
	b := begin(ev(accounting.OpBind, accounting.SourceBuffer, 0xb2, 0))[0].Track
	img := begin(ev(accounting.OpBind, accounting.SourceImage, 0x11, 0))[0].Track
	if a == b || img == a || img == b {
		t.Fatalf("open lifetimes share lanes: %#x %#x %#x", a, b, img)
	}
	if n := lt.slice(ev(accounting.OpDestroy, accounting.SourceBuffer, 0xb1, 0), &sl); n != 1 || !isEnd(sl[0], a) {
		t.Fatalf("destroy: %+v", sl[:n])
	}
	if c := begin(ev(accounting.OpBind, accounting.SourceBuffer, 0xb3, 0))[0]; c.Track != a || c.Arg == first.Arg {
		t.Fatalf("next buffer %+v, want the free lane %#x and a lifetime of its own", c, a)
	}
	// The driver reports 0xd1 again under heap 1: the slice ends on its
	// heap-0 lane and continues on a heap-1 lane.
	d0 := begin(ev(accounting.OpCreate, accounting.SourceDriver, 0xd1, 0))[0].Track
	moved := begin(ev(accounting.OpCreate, accounting.SourceDriver, 0xd1, 1))
	if len(moved) != 2 || !isEnd(moved[0], d0) || moved[1].Track == d0 ||
		moved[1].Groups[1].Name != "heap 1" {
		t.Fatalf("driver allocation under another heap: %+v (was on %#x)", moved, d0)
	}
	if again := begin(ev(accounting.OpCreate, accounting.SourceDriver, 0xd1, 1)); len(again) != 2 || again[1].Track != moved[1].Track {
		t.Fatalf("reported again under the same heap: %+v, want its lane %#x", again, moved[1].Track)
	}
	if d2 := begin(ev(accounting.OpCreate, accounting.SourceDriver, 0xd2, 0))[0].Track; d2 != d0 {
		t.Fatalf("next heap-0 driver allocation on %#x, want the lane 0xd1 left, %#x", d2, d0)
	}
}

func isEnd(s perfetto.Slice, track uint64) bool { return s.Op == perfetto.SliceEnd && s.Track == track }

// TestDestroyedDevicesLeaveTheSequences: a session outlives many devices;
// after each one's destroy, a resync re-emits the group tracks of the
// devices still alive only (a test run creating a device per case would
// otherwise re-emit every one after each loss or clear).
func TestDestroyedDevicesLeaveTheSequences(t *testing.T) {
	var out bytes.Buffer
	sess, err := perfetto.StartSession("devices", perfetto.WriterOutput(&out), perfetto.Options{Sequences: 1, FlushInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	s := newTraceState()
	cycle := func(d uintptr, destroy bool) {
		s.deviceCreated(d, 0, uint64(d), false, false, props(0))
		s.memoryAllocated(d, 0x100, 1<<20, 0, accounting.MemoryInfo{})
		s.bufferCreated(d, 0x200, accounting.BufferUsageVertex, 4096, 0)
		s.bound(d, accounting.KindBuffer, 0x200, 0x100, 0, planeAspectNone, func() uint64 { return 4096 })
		if destroy {
			s.deviceDestroyed(d) // the buffer and the memory leak: their slices end here
		}
	}
	const devices = 20
	for i := range uintptr(devices) {
		cycle(0xd100+i, true)
	}
	cycle(0xdfff, false)
	sess.Flush()
	sess.ClearIncrementalState()
	s.resourceDestroyed(0xdfff, accounting.KindBuffer, 0x200) // the first event after the clear: a resync before it
	if err := sess.Stop(); err != nil {
		t.Fatal(err)
	}
	tr, err := decode.Decode(out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	described := map[string]int{} // device group descriptors by name
	cleared := false
	for _, p := range tr.Packets {
		if p.SeqFlags&decode.SeqIncrementalStateCleared != 0 && described["VkDevice 0xdfff"] > 0 {
			cleared = true
		}
		if p.Track != nil && strings.HasPrefix(p.Track.Name, "VkDevice ") {
			if cleared && p.Track.Name != "VkDevice 0xdfff" {
				t.Errorf("the resync re-emits %s, destroyed before it", p.Track.Name)
			}
			described[p.Track.Name]++
		}
	}
	if !cleared || described["VkDevice 0xdfff"] != 2 || len(described) != devices+1 {
		t.Errorf("device descriptors %v (resync seen: %v), want each device's once and the live one's again", described, cleared)
	}
}
