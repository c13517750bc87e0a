package memreport

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/vkgen/vkgen/generated"
	"github.com/vkgen/vkgen/internal/perfettotools"
	"github.com/vkgen/vkgen/layer/memreport/accounting"
	"github.com/vkgen/vkgen/layer/memreport/describe"
	"github.com/vkgen/vkgen/objectnames"
	"github.com/vkgen/vkgen/perfetto"
	"github.com/vkgen/vkgen/perfetto/decode"
)

// recorder is a Sink and name Emitter keeping everything it is given.
type recorder struct {
	mu       sync.Mutex
	counters map[string]int64
	events   []accounting.AllocationEvent
	names    []objectnames.Record
	budgets  []string
}

func (r *recorder) Budget(heap uint32, budget, usage uint64) {
	r.mu.Lock()
	r.budgets = append(r.budgets, fmt.Sprintf("heap%d %d/%d", heap, usage, budget))
	r.mu.Unlock()
}

func newRecorder() *recorder { return &recorder{counters: map[string]int64{}} }

func (r *recorder) Counter(track string, v int64) {
	r.mu.Lock()
	r.counters[track] = v
	r.mu.Unlock()
}

func (r *recorder) Allocation(ev accounting.AllocationEvent) {
	r.mu.Lock()
	r.events = append(r.events, ev)
	r.mu.Unlock()
}

func (r *recorder) EmitName(rec objectnames.Record) {
	r.mu.Lock()
	r.names = append(r.names, rec)
	r.mu.Unlock()
}

func (r *recorder) nonZero() map[string]int64 {
	out := map[string]int64{}
	for k, v := range r.counters {
		if v != 0 {
			out[k] = v
		}
	}
	return out
}

// Leak records a leak as an event with operation LEAK, name and place in
// MemoryType.
func (r *recorder) Leak(ev accounting.AllocationEvent, name, at string) {
	r.mu.Lock()
	ev.MemoryType = "LEAK " + name + " at " + at
	r.events = append(r.events, ev)
	r.mu.Unlock()
}

// props describes a device whose memory types have the given flags, all in
// heap 0.
func props(flags ...uint32) accounting.MemoryProperties {
	return accounting.MemoryProperties{TypeFlags: flags, TypeHeaps: make([]uint32, len(flags))}
}

// bufferSession starts a trace session written into the returned buffer.
func bufferSession(t *testing.T, name string) (*perfetto.Session, *bytes.Buffer) {
	t.Helper()
	var out bytes.Buffer
	sess, err := perfetto.StartSession(name, perfetto.WriterOutput(&out), perfetto.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return sess, &out
}

// newTraceState is the layer's state as the library wires it: the trace
// sink with lifetimes that see the store's names.
func newTraceState() *state {
	lt := newLifetimes()
	return newState(traceSink{lt: lt}, objectnames.New(nameSink{lt: lt}), lt)
}

func newTestState() (*state, *recorder) {
	r := newRecorder()
	return newState(r, objectnames.New(r), nil), r
}

const (
	dev     = uintptr(0xd000)
	hostVis = accounting.MemoryPropertyHostVisible
)

var (
	app    = func(c accounting.Cluster) string { return accounting.TrackName(false, c) }
	driver = func(c accounting.Cluster) string { return accounting.TrackName(true, c) }
)

func noQuery(t *testing.T) func() uint64 {
	return func() uint64 { t.Helper(); t.Error("requirements queried although the size was known"); return 0 }
}

func wantCounters(t *testing.T, r *recorder, want map[string]int64) {
	t.Helper()
	got := r.nonZero()
	if len(got) != len(want) {
		t.Errorf("non-zero counters %v, want %v", got, want)
		return
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("non-zero counters %v, want %v", got, want)
			return
		}
	}
}

// Callbacks fired inside vkCreateDevice carry the token before the VkDevice
// exists; later intercepts through the VkDevice must land on the same device
// and vkDestroyDevice must release everything.
func TestCallbackTokenBeforeDevice(t *testing.T) {
	s, r := newTestState()
	const token = 7
	s.callback(token, accounting.CallbackEvent{Type: accounting.CallbackAllocate, MemoryObjectID: 1, Size: 8192,
		ObjectType: int32(generated.ObjectTypeDevice), ObjectHandle: 0x1, Internal: true})
	s.deviceCreated(dev, 0, token, true, false, props(hostVis))
	// Application memory: the ALLOCATE callback fires inside vkAllocateMemory,
	// then the intercept supplies the memory type's flags.
	s.callback(token, accounting.CallbackEvent{Type: accounting.CallbackAllocate, MemoryObjectID: 2, Size: 4096,
		ObjectType: accounting.ObjectTypeDeviceMemory, ObjectHandle: 0x100})
	s.memoryAllocated(dev, 0x100, 4096, 0, accounting.MemoryInfo{})
	s.bufferCreated(dev, 0xb1, accounting.BufferUsageVertex, 1000, 0)
	s.requirements(dev, accounting.KindBuffer, 0xb1, 1024)
	s.bound(dev, accounting.KindBuffer, 0xb1, 0x100, 0, planeAspectNone, noQuery(t))
	wantCounters(t, r, map[string]int64{
		driver(accounting.ClusterUnbound):   8192,
		app(accounting.ClusterGeometryMesh): 1024,
		app(accounting.ClusterUnbound):      3072,
	})
	// vkFreeMemory on a callback device leaves the work to the FREE callback.
	s.memoryFreed(dev, 0x100)
	if got := r.counters[app(accounting.ClusterGeometryMesh)]; got != 1024 {
		t.Errorf("vkFreeMemory on a callback device changed counters: geometry_mesh = %d", got)
	}
	// The driver never sends the FREEs: device destroy releases all of it.
	s.deviceDestroyed(dev)
	wantCounters(t, r, map[string]int64{})
	if k := s.key(dev); k == token {
		t.Errorf("device key %d still mapped after vkDestroyDevice", k)
	}
}

// A failed vkCreateDevice drops what callbacks reported under its token.
func TestFailedDeviceCreation(t *testing.T) {
	s, r := newTestState()
	s.callback(9, accounting.CallbackEvent{Type: accounting.CallbackAllocate, MemoryObjectID: 1, Size: 512, Internal: true})
	s.deviceFailed(9)
	wantCounters(t, r, map[string]int64{})
	if devs := s.engine.Devices(); len(devs) != 0 {
		t.Errorf("devices %v left after a failed creation", devs)
	}
}

// Fallback path: a failed allocation never reaches state (the hook checks
// VkResult); a freed allocation returns the counters to zero. Two devices
// with equal handle values stay apart.
func TestFallbackTwoDevices(t *testing.T) {
	s, r := newTestState()
	dev2 := dev + 0x100
	s.deviceCreated(dev, 0, 1, false, false, props(0))
	s.deviceCreated(dev2, 0, 2, false, false, props(hostVis))
	for _, d := range []uintptr{dev, dev2} {
		s.memoryAllocated(d, 0x100, 65536, 0, accounting.MemoryInfo{})
		s.bufferCreated(d, 0xb1, accounting.BufferUsageTransferSrc, 4096, 0)
		s.bound(d, accounting.KindBuffer, 0xb1, 0x100, 0, planeAspectNone, noQuery(t))
	}
	wantCounters(t, r, map[string]int64{
		app(accounting.ClusterGeneralBuffer):   4096, // TRANSFER_SRC in device-local memory
		app(accounting.ClusterStagingTransfer): 4096, // the same on host-visible memory
		app(accounting.ClusterUnbound):         2 * (65536 - 4096),
	})
	s.resourceDestroyed(dev, accounting.KindBuffer, 0xb1)
	s.memoryFreed(dev, 0x100)
	wantCounters(t, r, map[string]int64{
		app(accounting.ClusterStagingTransfer): 4096,
		app(accounting.ClusterUnbound):         65536 - 4096,
	})
	s.resourceDestroyed(dev2, accounting.KindBuffer, 0xb1)
	s.memoryFreed(dev2, 0x100)
	wantCounters(t, r, map[string]int64{})
}

// Bind-time queries: an image never asked for its requirements is queried
// once; a rebind does not query again; a disjoint image is queried per plane;
// a swapchain bind (memory VK_NULL_HANDLE) queries nothing and records
// nothing.
func TestBindTimeQueries(t *testing.T) {
	s, r := newTestState()
	s.deviceCreated(dev, 0, 1, false, false, props(0))
	s.memoryAllocated(dev, 0x100, 1<<20, 0, accounting.MemoryInfo{})
	s.imageCreated(dev, 0x1a, describe.Image{Usage: accounting.ImageUsageColorAttachment | accounting.ImageUsageSampled, Flags: 0}, 0)
	queries := 0
	q := func(size uint64) func() uint64 { return func() uint64 { queries++; return size } }
	s.bound(dev, accounting.KindImage, 0x1a, 0x100, 0, planeAspectNone, q(65536))
	s.bound(dev, accounting.KindImage, 0x1a, 0x100, 65536, planeAspectNone, q(1))
	if queries != 1 {
		t.Errorf("%d requirement queries, want 1", queries)
	}
	const plane0, plane1 = 0x10, 0x20 // VK_IMAGE_ASPECT_PLANE_0/1_BIT
	s.imageCreated(dev, 0x2a, describe.Image{Usage: accounting.ImageUsageSampled, Flags: accounting.ImageCreateDisjoint}, 0)
	s.bound(dev, accounting.KindImage, 0x2a, 0x100, 131072, plane0, q(8192))
	s.planeRequirements(dev, 0x2a, plane1, 4096)
	s.bound(dev, accounting.KindImage, 0x2a, 0x100, 139264, plane1, noQuery(t))
	if queries != 2 {
		t.Errorf("%d requirement queries, want 2", queries)
	}
	s.imageCreated(dev, 0x3a, describe.Image{Usage: accounting.ImageUsageColorAttachment, Flags: 0}, 0)
	s.bound(dev, accounting.KindImage, 0x3a, 0, 0, planeAspectNone, noQuery(t))
	wantCounters(t, r, map[string]int64{
		app(accounting.ClusterColorRenderTarget): 65536,
		app(accounting.ClusterStaticTexture):     8192 + 4096,
		app(accounting.ClusterUnbound):           1<<20 - 65536 - 8192 - 4096,
	})
	if st := s.engine.Stats(); st.NullMemoryBinds != 1 {
		t.Errorf("NullMemoryBinds = %d, want 1", st.NullMemoryBinds)
	}
	// An image first seen through its requirements stays an image.
	s.requirements(dev, accounting.KindImage, 0x4a, 2048)
	s.bound(dev, accounting.KindImage, 0x4a, 0x100, 1<<19, planeAspectNone, noQuery(t))
	if ev := r.events[len(r.events)-1]; ev.Source != accounting.SourceImage {
		t.Errorf("bind of an image known only from its requirements reported as %v", ev.Source)
	}
	s.deviceDestroyed(dev)
	wantCounters(t, r, map[string]int64{})
}

// Names: the layer emits what the shared store reports, once per change
// (the framework records the naming calls and forgets ended objects' names
// there: layer/naming); a destroyed object's name is dropped from the
// lifetimes, not from the store.
func TestNames(t *testing.T) {
	s, r := newTestState()
	_ = s.names.SetName(uint64(dev), generated.ObjectTypeBuffer, 0xb1, "vertices")
	_ = s.names.SetName(uint64(dev), generated.ObjectTypeBuffer, 0xb1, "vertices")
	_ = s.names.SetName(uint64(dev), generated.ObjectTypeImage, 0x1a, "albedo")
	want := []objectnames.Record{
		{Device: uint64(dev), Type: generated.ObjectTypeBuffer, Handle: 0xb1, Name: "vertices"},
		{Device: uint64(dev), Type: generated.ObjectTypeImage, Handle: 0x1a, Name: "albedo"},
	}
	if !slices.Equal(r.names, want) {
		t.Errorf("names emitted %+v, want %+v", r.names, want)
	}
	s.resourceDestroyed(dev, accounting.KindBuffer, 0xb1)
	if n, ok := s.names.Get(uint64(dev), generated.ObjectTypeBuffer, 0xb1); !ok || n != "vertices" {
		t.Errorf("the layer changed the store on vkDestroyBuffer: %q, %v (the framework forgets names)", n, ok)
	}
}

// The trace: live events go to a running session; a session started later
// receives the replay in the documented order (non-zero counters, then
// allocations with their binds, then names).
func TestTraceLiveAndReplay(t *testing.T) {
	s := newTraceState()
	unregister := perfetto.RegisterReplay(s.replay)
	defer unregister()

	ls, live := bufferSession(t, "live")
	s.deviceCreated(dev, 0, 1, false, false, props(0))
	s.memoryAllocated(dev, 0x100, 65536, 0, accounting.MemoryInfo{})
	s.bufferCreated(dev, 0xb1, accounting.BufferUsageUniform, 256, 0)
	s.bound(dev, accounting.KindBuffer, 0xb1, 0x100, 0, planeAspectNone, noQuery(t))
	_ = s.names.SetName(uint64(dev), generated.ObjectTypeBuffer, 0xb1, "camera")

	rs, late := bufferSession(t, "late")
	if err := rs.Stop(); err != nil {
		t.Fatal(err)
	}
	s.deviceDestroying(dev)
	s.deviceDestroyed(dev)
	if err := ls.Stop(); err != nil {
		t.Fatal(err)
	}

	type ev struct{ kind, what string }
	read := func(b []byte) []ev {
		tr, err := decode.Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		perfettotools.CheckStatsData(t, b)
		// Emitters write to several sequences: time order, not file order.
		pkts := slices.Clone(tr.Packets)
		slices.SortStableFunc(pkts, func(a, b decode.Packet) int { return cmp.Compare(a.Timestamp, b.Timestamp) })
		var out []ev
		for _, p := range pkts {
			switch {
			case p.Event == nil:
			case p.Event.Type == decode.TypeCounter:
				out = append(out, ev{"counter", tr.Tracks[p.Event.TrackUUID].Name})
			case p.Event.Type == decode.TypeSliceBegin:
				out = append(out, ev{"begin", p.Event.Name})
			case p.Event.Type == decode.TypeSliceEnd:
				out = append(out, ev{"end", ""})
			case slices.Contains(p.Event.Categories, Category):
				a, _ := p.Event.Arg("operation")
				switch p.Event.Name {
				case ObjectNameEventName:
					a, _ = p.Event.Arg("object_name")
				case LeakEventName:
					a, _ = p.Event.Arg("object_name")
					a.Str = "leak " + a.Str
				}
				out = append(out, ev{p.Event.Name, a.Str})
			}
		}
		return out
	}
	replay := read(late.Bytes())
	// The replayed slices begin with the current names.
	want := []ev{
		{"counter", app(accounting.ClusterUniformConstants)},
		{"counter", app(accounting.ClusterUnbound)},
		{"counter", "vulkan.mem.heap0.app.usage.uniform_constants"},
		{"counter", "vulkan.mem.heap0.app.usage.unbound_memory"},
		{AllocationEventName, "CREATE"},
		{"begin", "VkDeviceMemory 0x100"},
		{AllocationEventName, "BIND"},
		{"begin", "camera"},
		{ObjectNameEventName, "camera"},
	}
	if !slices.Equal(replay, want) {
		t.Errorf("replay %v, want %v", replay, want)
	}
	got := read(live.Bytes())
	var ops []string
	for _, e := range got {
		if e.kind != "counter" {
			ops = append(ops, e.what)
		}
	}
	// Live: CREATE, BIND, each with its slice; the name's instant carries
	// the rename of the bound buffer's slice (end, begin); at device
	// destroy both are leaks (the
	// buffer's with its name), then the bind's and the allocation's
	// DESTROY end their slices.
	if wantOps := []string{
		"CREATE", "VkDeviceMemory 0x100", "BIND", "VkBuffer 0xb1", "camera", "", "camera",
		"leak ", "leak camera", "DESTROY", "", "DESTROY", "",
	}; !slices.Equal(ops, wantOps) {
		t.Errorf("live events %v, want %v", ops, wantOps)
	}
}

// Objects created untraced get their slices from the replay of a session
// started later: the begins there, on tracks that their live DESTROYs end.
func TestSlicesOfObjectsCreatedUntraced(t *testing.T) {
	s := newTraceState()
	unregister := perfetto.RegisterReplay(s.replay)
	defer unregister()
	s.deviceCreated(dev, 0, 1, false, false, props(0))
	s.memoryAllocated(dev, 0x100, 65536, 0, accounting.MemoryInfo{})
	s.bufferCreated(dev, 0xb1, accounting.BufferUsageUniform, 256, 0)
	s.bound(dev, accounting.KindBuffer, 0xb1, 0x100, 0, planeAspectNone, noQuery(t))
	if n := s.lt.open.Len(); n != 0 || s.lt.anyOpen.Load() {
		t.Fatalf("%d lifetimes tracked untraced, want 0", n)
	}

	sess, out := bufferSession(t, "late")
	s.resourceDestroyed(dev, accounting.KindBuffer, 0xb1)
	s.memoryFreed(dev, 0x100)
	if err := sess.Stop(); err != nil {
		t.Fatal(err)
	}
	if n := s.lt.open.Len(); n != 0 || s.lt.anyOpen.Load() {
		t.Fatalf("%d lifetimes left open, want 0", n)
	}
	tr, err := decode.Decode(out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	perfettotools.CheckStatsData(t, out.Bytes())
	begun := map[uint64]string{}
	var ended []string
	for _, p := range tr.Packets {
		switch {
		case p.Event == nil:
		case p.Event.Type == decode.TypeSliceBegin:
			begun[p.Event.TrackUUID] = p.Event.Name
		case p.Event.Type == decode.TypeSliceEnd:
			ended = append(ended, begun[p.Event.TrackUUID])
		}
	}
	slices.Sort(ended)
	if want := []string{"VkBuffer 0xb1", "VkDeviceMemory 0x100"}; len(begun) != 2 || !slices.Equal(ended, want) {
		t.Fatalf("begun %v, ended %q; want %q begun and ended", begun, ended, want)
	}
}

// A layer above destroys the device first: the framework's forget of the
// device's names reaches the store before this layer reports the device's
// leaks at its own vkDestroyDevice. The leaks keep their names, and what the
// layer kept for them goes with the device.
func TestLeakNamesOutliveTheDevicesForget(t *testing.T) {
	s, r := newTestState()
	s.deviceCreated(dev, 0, 1, false, false, props(0))
	s.memoryAllocated(dev, 0x100, 4096, 0, accounting.MemoryInfo{})
	s.bufferCreated(dev, 0x1, accounting.BufferUsageVertex, 4096, 0)
	s.bound(dev, accounting.KindBuffer, 0x1, 0x100, 0, planeAspectNone, func() uint64 { return 4096 })
	_ = s.names.SetName(uint64(dev), generated.ObjectTypeBuffer, 0x1, "vertices")
	_ = s.names.SetName(uint64(dev), generated.ObjectTypeDeviceMemory, 0x100, "arena")
	s.names.DeviceDestroyed(uint64(dev))
	s.deviceDestroying(dev)
	var got []string
	for _, ev := range r.events {
		if strings.HasPrefix(ev.MemoryType, "LEAK ") {
			got = append(got, ev.MemoryType)
		}
	}
	slices.Sort(got)
	want := []string{"LEAK arena at vkDestroyDevice", "LEAK vertices at vkDestroyDevice"}
	if !slices.Equal(got, want) {
		t.Errorf("leaks %q, want %q", got, want)
	}
	s.deviceDestroyed(dev)
	s.names.DeviceDestroyed(uint64(dev)) // the forget drained after the layer saw the device go
	if len(s.dropped) != 0 {
		t.Errorf("names kept for %d destroyed devices", len(s.dropped))
	}
}
