package objectnames

import (
	"errors"
	"runtime"
	"slices"
	"sync"
	"testing"

	gen "github.com/vkgen/vkgen/generated"
)

// recorder is an Emitter that keeps every record it receives.
type recorder struct {
	mu   sync.Mutex
	recs []Record
}

func (r *recorder) EmitName(rec Record) {
	r.mu.Lock()
	r.recs = append(r.recs, rec)
	r.mu.Unlock()
}

// take returns the records received so far and forgets them.
func (r *recorder) take() []Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	recs := r.recs
	r.recs = nil
	return recs
}

func newStore() (*Store, *recorder) {
	r := &recorder{}
	return New(r), r
}

func mustSet(t *testing.T, s *Store, dev uint64, typ gen.ObjectType, h uint64, name string) {
	t.Helper()
	if err := s.SetName(dev, typ, h, name); err != nil {
		t.Fatalf("SetName(%d, %v, %#x, %q): %v", dev, typ, h, name, err)
	}
}

func wantRecords(t *testing.T, got []Record, want ...Record) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("records:\n got %+v\nwant %+v", got, want)
	}
}

func wantName(t *testing.T, s *Store, dev uint64, typ gen.ObjectType, h uint64, want string) {
	t.Helper()
	got, ok := s.Get(dev, typ, h)
	if want == "" {
		if ok {
			t.Fatalf("Get(%d, %v, %#x) = %q, want no name", dev, typ, h, got)
		}
		return
	}
	if !ok || got != want {
		t.Fatalf("Get(%d, %v, %#x) = %q, %v; want %q", dev, typ, h, got, ok, want)
	}
}

func TestNullOrEmptyNameRemovesOnce(t *testing.T) {
	s, r := newStore()
	mustSet(t, s, 1, gen.ObjectTypeBuffer, 7, "a")
	r.take()

	if err := s.SetNameBytes(1, gen.ObjectTypeBuffer, 7, nil); err != nil {
		t.Fatal(err)
	}
	wantName(t, s, 1, gen.ObjectTypeBuffer, 7, "")
	wantRecords(t, r.take(), Record{Device: 1, Type: gen.ObjectTypeBuffer, Handle: 7, Removed: true})
	if s.Len() != 0 {
		t.Fatalf("Len = %d after removal", s.Len())
	}

	// Removing again, or removing a name that never existed, emits nothing.
	mustSet(t, s, 1, gen.ObjectTypeBuffer, 7, "")
	mustSet(t, s, 1, gen.ObjectTypeImage, 8, "")
	wantRecords(t, r.take())

	// The empty string and an empty debug-utils name remove as well.
	mustSet(t, s, 1, gen.ObjectTypeBuffer, 7, "b")
	mustSet(t, s, 1, gen.ObjectTypeBuffer, 7, "")
	mustSet(t, s, 1, gen.ObjectTypeImage, 8, "c")
	if err := s.SetDebugUtilsObjectName(1, &DebugUtilsObjectNameInfo{ObjectType: gen.ObjectTypeImage, ObjectHandle: 8}); err != nil {
		t.Fatal(err)
	}
	wantRecords(t, r.take(),
		Record{Device: 1, Type: gen.ObjectTypeBuffer, Handle: 7, Name: "b"},
		Record{Device: 1, Type: gen.ObjectTypeBuffer, Handle: 7, Removed: true},
		Record{Device: 1, Type: gen.ObjectTypeImage, Handle: 8, Name: "c"},
		Record{Device: 1, Type: gen.ObjectTypeImage, Handle: 8, Removed: true})
	if n := s.EmitAll(r); n != 0 {
		t.Fatalf("EmitAll after removals emitted %d records", n)
	}
}

func TestUnchangedNameEmitsNothingAndAllocatesNothing(t *testing.T) {
	s, r := newStore()
	mustSet(t, s, 1, gen.ObjectTypeBuffer, 7, "frame target")
	r.take()
	name := []byte("frame target")
	allocs := testing.AllocsPerRun(100, func() {
		if err := s.SetName(1, gen.ObjectTypeBuffer, 7, "frame target"); err != nil {
			t.Fatal(err)
		}
		if err := s.SetNameBytes(1, gen.ObjectTypeBuffer, 7, name); err != nil {
			t.Fatal(err)
		}
		if err := s.SetDebugMarkerObjectName(1, &DebugMarkerObjectNameInfo{ObjectType: gen.DebugReportObjectTypeBuffer, Object: 7, ObjectName: "frame target"}); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("unchanged name allocated %v times per run", allocs)
	}
	wantRecords(t, r.take())
}

func TestStoredNameIsACopy(t *testing.T) {
	s, r := newStore()
	buf := []byte("first")
	if err := s.SetNameBytes(1, gen.ObjectTypeImage, 3, buf); err != nil {
		t.Fatal(err)
	}
	copy(buf, "XXXXX") // the caller reuses its buffer, as C code does
	wantName(t, s, 1, gen.ObjectTypeImage, 3, "first")
	wantRecords(t, r.take(), Record{Device: 1, Type: gen.ObjectTypeImage, Handle: 3, Name: "first"})
}

func TestNonDispatchableHandlesAreScopedByDevice(t *testing.T) {
	s, r := newStore()
	mustSet(t, s, 1, gen.ObjectTypeBuffer, 0x10, "on device 1")
	mustSet(t, s, 2, gen.ObjectTypeBuffer, 0x10, "on device 2")
	wantName(t, s, 1, gen.ObjectTypeBuffer, 0x10, "on device 1")
	wantName(t, s, 2, gen.ObjectTypeBuffer, 0x10, "on device 2")
	if s.Len() != 2 {
		t.Fatalf("Len = %d, want 2", s.Len())
	}
	if len(r.take()) != 2 {
		t.Fatal("want one record per device")
	}
}

func TestProcessWideHandlesIgnoreTheDeviceInTheKey(t *testing.T) {
	s, r := newStore()
	// Dispatchable: a queue renamed through another device is the same queue.
	mustSet(t, s, 1, gen.ObjectTypeQueue, 0x20, "gfx")
	mustSet(t, s, 2, gen.ObjectTypeQueue, 0x20, "gfx")
	wantName(t, s, 3, gen.ObjectTypeQueue, 0x20, "gfx")
	// Instance-level non-dispatchable: a surface belongs to no device.
	mustSet(t, s, 1, gen.ObjectTypeSurfaceKHR, 0x30, "window")
	wantName(t, s, 2, gen.ObjectTypeSurfaceKHR, 0x30, "window")
	if s.Len() != 2 {
		t.Fatalf("Len = %d, want 2", s.Len())
	}
	// The device change is a change of the record, so it is emitted.
	wantRecords(t, r.take(),
		Record{Device: 1, Type: gen.ObjectTypeQueue, Handle: 0x20, Name: "gfx"},
		Record{Device: 2, Type: gen.ObjectTypeQueue, Handle: 0x20, Name: "gfx"},
		Record{Device: 1, Type: gen.ObjectTypeSurfaceKHR, Handle: 0x30, Name: "window"})
}

func TestTypeFlagsFollowTheParentTable(t *testing.T) {
	for _, c := range []struct {
		typ  gen.ObjectType
		want typeFlags
	}{
		{gen.ObjectTypeInstance, processWide},
		{gen.ObjectTypePhysicalDevice, processWide},
		{gen.ObjectTypeDevice, processWide},
		{gen.ObjectTypeQueue, processWide | deviceOwned},
		{gen.ObjectTypeCommandBuffer, processWide | deviceOwned}, // via VkCommandPool
		{gen.ObjectTypeBuffer, deviceOwned},
		{gen.ObjectTypeDescriptorSet, deviceOwned}, // via VkDescriptorPool
		{gen.ObjectTypeSwapchainKHR, deviceOwned},
		{gen.ObjectTypeCudaFunctionNV, deviceOwned},
		{gen.ObjectTypeSurfaceKHR, processWide},
		{gen.ObjectTypeDisplayModeKHR, processWide},
		{gen.ObjectTypeDebugUtilsMessengerEXT, processWide},
		{gen.ObjectType(1999999000), deviceOwned}, // newer than the registry
		{gen.ObjectType(40), deviceOwned},
	} {
		if got := flagsOf(c.typ); got != c.want {
			t.Errorf("flagsOf(%v) = %b, want %b", c.typ, got, c.want)
		}
	}
}

func TestInvalidObjectsAreRejected(t *testing.T) {
	s, r := newStore()
	if err := s.SetName(1, gen.ObjectTypeUnknown, 5, "x"); !errors.Is(err, ErrUnknownObjectType) {
		t.Errorf("UNKNOWN type: err = %v", err)
	}
	if err := s.SetName(1, gen.ObjectTypeBuffer, 0, "x"); !errors.Is(err, ErrNullHandle) {
		t.Errorf("null handle: err = %v", err)
	}
	if err := s.SetDebugUtilsObjectName(1, &DebugUtilsObjectNameInfo{ObjectName: "x", ObjectHandle: 5}); !errors.Is(err, ErrUnknownObjectType) {
		t.Errorf("debug utils UNKNOWN: err = %v", err)
	}
	if err := s.SetDebugMarkerObjectName(1, &DebugMarkerObjectNameInfo{ObjectType: gen.DebugReportObjectTypeUnknown, Object: 5, ObjectName: "x"}); !errors.Is(err, ErrUnknownObjectType) {
		t.Errorf("debug marker UNKNOWN: err = %v", err)
	}
	if s.Len() != 0 {
		t.Fatalf("Len = %d after rejected names", s.Len())
	}
	wantRecords(t, r.take())
}

func TestTypesNewerThanTheRegistryAreKeptPerDevice(t *testing.T) {
	s, _ := newStore()
	future := gen.ObjectType(1999999000)
	mustSet(t, s, 1, future, 9, "a")
	mustSet(t, s, 2, future, 9, "b")
	wantName(t, s, 1, future, 9, "a")
	wantName(t, s, 2, future, 9, "b")
	s.DeviceDestroyed(1)
	wantName(t, s, 1, future, 9, "")
	wantName(t, s, 2, future, 9, "b")
}

func TestObjectDestroyedForgetsSilently(t *testing.T) {
	s, r := newStore()
	mustSet(t, s, 1, gen.ObjectTypeBuffer, 0x10, "b1")
	mustSet(t, s, 2, gen.ObjectTypeBuffer, 0x10, "b2")
	mustSet(t, s, 1, gen.ObjectTypeImage, 0x10, "i1")
	r.take()
	s.ObjectDestroyed(1, gen.ObjectTypeBuffer, 0x10)
	s.ObjectDestroyed(1, gen.ObjectTypeBuffer, 0x99) // never named: no-op
	wantName(t, s, 1, gen.ObjectTypeBuffer, 0x10, "")
	wantName(t, s, 2, gen.ObjectTypeBuffer, 0x10, "b2")
	wantName(t, s, 1, gen.ObjectTypeImage, 0x10, "i1")
	wantRecords(t, r.take())
	// A recycled handle starts without a name and is named afresh.
	mustSet(t, s, 1, gen.ObjectTypeBuffer, 0x10, "b1")
	wantRecords(t, r.take(), Record{Device: 1, Type: gen.ObjectTypeBuffer, Handle: 0x10, Name: "b1"})
}

func TestCommandDestroyedUsesTheDestroyerTable(t *testing.T) {
	s, r := newStore()
	mustSet(t, s, 1, gen.ObjectTypeBuffer, 0x10, "buf")
	mustSet(t, s, 1, gen.ObjectTypeCommandBuffer, 0x20, "cb0")
	mustSet(t, s, 1, gen.ObjectTypeCommandBuffer, 0x21, "cb1")
	mustSet(t, s, 1, gen.ObjectTypeCommandBuffer, 0x22, "cb2")
	mustSet(t, s, 1, gen.ObjectTypeDeviceMemory, 0x30, "mem")
	r.take()
	for _, c := range []struct {
		cmd     string
		handles []uint64
	}{
		{"vkDestroyBuffer", []uint64{0x10}},
		{"vkFreeCommandBuffers", []uint64{0x20, 0, 0x22}},
		{"vkFreeMemory", []uint64{0x30}},
	} {
		if err := s.CommandDestroyed(c.cmd, 1, c.handles...); err != nil {
			t.Fatalf("%s: %v", c.cmd, err)
		}
	}
	got := slices.Collect(s.All())
	wantRecords(t, got, Record{Device: 1, Type: gen.ObjectTypeCommandBuffer, Handle: 0x21, Name: "cb1"})

	if err := s.CommandDestroyed("vkCreateBuffer", 1, 0x21); !errors.Is(err, ErrUnknownCommand) {
		t.Errorf("vkCreateBuffer: err = %v", err)
	}
	if err := s.CommandDestroyed("vkDestroyDevice", 1, 1); err != nil {
		t.Fatal(err)
	}
	if s.Len() != 0 {
		t.Fatalf("vkDestroyDevice left %d names", s.Len())
	}
	wantRecords(t, r.take())
}

func TestDeviceDestroyedForgetsWhatTheDeviceOwns(t *testing.T) {
	s, r := newStore()
	const dev, other = 0xd1, 0xd2
	mustSet(t, s, dev, gen.ObjectTypeDevice, dev, "the device")
	mustSet(t, s, dev, gen.ObjectTypeQueue, 0x40, "its queue")
	mustSet(t, s, dev, gen.ObjectTypeBuffer, 0x10, "its buffer")
	mustSet(t, s, dev, gen.ObjectTypeCommandBuffer, 0x50, "its command buffer")
	mustSet(t, s, other, gen.ObjectTypeBuffer, 0x10, "other buffer")
	mustSet(t, s, other, gen.ObjectTypeDevice, other, "other device")
	mustSet(t, s, dev, gen.ObjectTypeInstance, 0x60, "instance")
	mustSet(t, s, dev, gen.ObjectTypeSurfaceKHR, 0x70, "surface")
	r.take()

	s.DeviceDestroyed(dev)
	s.DeviceDestroyed(0) // no device: no-op
	var left []string
	for rec := range s.All() {
		left = append(left, rec.Name)
	}
	want := []string{"instance", "other device", "other buffer", "surface"}
	if !slices.Equal(left, want) {
		t.Fatalf("left %q, want %q", left, want)
	}
	wantRecords(t, r.take())

	s.ObjectDestroyed(0, gen.ObjectTypeDevice, other) // same as DeviceDestroyed
	wantName(t, s, other, gen.ObjectTypeBuffer, 0x10, "")
	wantName(t, s, other, gen.ObjectTypeDevice, other, "")
}

func TestEmitAllOrderIsDeterministic(t *testing.T) {
	s, live := newStore()
	// Inserted out of order; extension types sort after core ones as int32.
	mustSet(t, s, 2, gen.ObjectTypeBuffer, 5, "buf5@2")
	mustSet(t, s, 1, gen.ObjectTypeSurfaceKHR, 1, "surface")
	mustSet(t, s, 1, gen.ObjectTypeBuffer, 5, "buf5@1")
	mustSet(t, s, 1, gen.ObjectTypeImage, 2, "img2")
	mustSet(t, s, 1, gen.ObjectTypeBuffer, 0xffffffff00000000, "bufhigh")
	mustSet(t, s, 1, gen.ObjectTypeDevice, 1, "dev")
	live.take()
	want := []Record{
		{Device: 1, Type: gen.ObjectTypeDevice, Handle: 1, Name: "dev"},
		{Device: 1, Type: gen.ObjectTypeBuffer, Handle: 5, Name: "buf5@1"},
		{Device: 2, Type: gen.ObjectTypeBuffer, Handle: 5, Name: "buf5@2"},
		{Device: 1, Type: gen.ObjectTypeBuffer, Handle: 0xffffffff00000000, Name: "bufhigh"},
		{Device: 1, Type: gen.ObjectTypeImage, Handle: 2, Name: "img2"},
		{Device: 1, Type: gen.ObjectTypeSurfaceKHR, Handle: 1, Name: "surface"},
	}
	for session := range 3 { // any number of sessions get the same replay
		r := &recorder{}
		if n := s.EmitAll(r); n != len(want) {
			t.Fatalf("session %d: EmitAll returned %d", session, n)
		}
		wantRecords(t, r.take(), want...)
	}
	wantRecords(t, slices.Collect(s.All()), want...)
	wantRecords(t, live.take()) // replay goes only to the given emitter
	if s.EmitAll(nil) != 0 {
		t.Fatal("EmitAll(nil) emitted")
	}
}

func TestAllSnapshotAllowsStoreUseAndEarlyStop(t *testing.T) {
	s, _ := newStore()
	for h := uint64(1); h <= 5; h++ {
		mustSet(t, s, 1, gen.ObjectTypeFence, h, "f")
	}
	seen := 0
	for rec := range s.All() {
		s.ObjectDestroyed(rec.Device, rec.Type, rec.Handle) // no lock is held here
		if seen++; seen == 3 {
			break
		}
	}
	if s.Len() != 2 {
		t.Fatalf("Len = %d, want 2", s.Len())
	}
}

func TestEmittersFanOut(t *testing.T) {
	a, b := &recorder{}, &recorder{}
	var calls int
	s := New(Emitters{a, nil, b, EmitterFunc(func(Record) { calls++ })})
	mustSet(t, s, 1, gen.ObjectTypeEvent, 3, "e")
	want := Record{Device: 1, Type: gen.ObjectTypeEvent, Handle: 3, Name: "e"}
	wantRecords(t, a.take(), want)
	wantRecords(t, b.take(), want)
	if calls != 1 {
		t.Fatalf("EmitterFunc called %d times", calls)
	}
	// A store without a live emitter still stores.
	quiet := New(nil)
	mustSet(t, quiet, 1, gen.ObjectTypeEvent, 3, "e")
	wantName(t, quiet, 1, gen.ObjectTypeEvent, 3, "e")
}

func TestPanickingEmitterLeavesTheStoreUsable(t *testing.T) {
	boom := EmitterFunc(func(Record) { panic("emitter failed") })
	s := New(boom)
	mustPanic := func(f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Fatal("emitter panic was swallowed")
			}
		}()
		f()
	}
	mustPanic(func() { _ = s.SetName(1, gen.ObjectTypeBuffer, 1, "a") })
	mustPanic(func() { s.EmitAll(boom) })
	// Both shard locks were released: these would deadlock otherwise.
	wantName(t, s, 1, gen.ObjectTypeBuffer, 1, "a")
	s.ObjectDestroyed(1, gen.ObjectTypeBuffer, 1)
	if s.Len() != 0 {
		t.Fatal("store not usable after an emitter panic")
	}
}

// TestShardMapsShrinkAfterMassDeletion: a burst of names, all forgotten,
// leaves the store's heap near where it began (a runtime map would keep its
// buckets).
func TestShardMapsShrinkAfterMassDeletion(t *testing.T) {
	s := New(nil) // no recorder: its records would hold memory
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	const n = 400 * numShards
	before := heap()
	for h := uint64(1); h <= n; h++ {
		mustSet(t, s, 1, gen.ObjectTypeBuffer, h, "x")
	}
	full := heap()
	for h := uint64(1); h <= n; h++ {
		s.ObjectDestroyed(1, gen.ObjectTypeBuffer, h)
	}
	after := heap()
	if full < before+n*16 || after > before+(full-before)/8 {
		t.Fatalf("heap %d bytes before, %d with %d names, %d after forgetting them", before, full, n, after)
	}
	runtime.KeepAlive(s)
}

func TestResetForgetsWithoutEmitting(t *testing.T) {
	s, r := newStore()
	mustSet(t, s, 1, gen.ObjectTypeBuffer, 1, "a")
	r.take()
	s.Reset()
	if s.Len() != 0 || s.EmitAll(r) != 0 {
		t.Fatal("Reset left names behind")
	}
	wantRecords(t, r.take())
}

// A device's watchers get the names its DeviceDestroyed drops, and only
// those; WithName sees the current name.
func TestWatchDevicesAndWithName(t *testing.T) {
	s := New(nil)
	mustSet(t, s, 1, gen.ObjectTypeBuffer, 0x10, "vertices")
	mustSet(t, s, 2, gen.ObjectTypeBuffer, 0x20, "other device")
	var got []Record
	stop := s.WatchDevices(func(device uint64, dropped []Record) {
		if device != 1 {
			t.Errorf("watcher called for device %d", device)
		}
		got = append(got, dropped...)
	})
	s.WithName(1, gen.ObjectTypeBuffer, 0x10, func(name string) {
		if name != "vertices" {
			t.Errorf("WithName saw %q", name)
		}
	})
	s.DeviceDestroyed(1)
	want := []Record{{Device: 1, Type: gen.ObjectTypeBuffer, Handle: 0x10, Name: "vertices"}}
	if !slices.Equal(got, want) {
		t.Errorf("dropped %+v, want %+v", got, want)
	}
	stop()
	got = nil
	s.DeviceDestroyed(2)
	if got != nil {
		t.Errorf("stopped watcher got %+v", got)
	}
	wantName(t, s, 2, gen.ObjectTypeBuffer, 0x20, "")
}
