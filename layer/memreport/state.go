package memreport

import (
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vkgen/vkgen/layer/memreport/accounting"
	"github.com/vkgen/vkgen/layer/memreport/describe"
	"github.com/vkgen/vkgen/objectnames"
)

// state is the layer's Go state with the cgo taken out: the hooks decode C
// structs into plain values and call these methods, so tests drive the same
// code with synthetic sequences.
type state struct {
	engine *accounting.Engine
	out    sink
	names  *objectnames.Store
	lt     *lifetimes

	// keys maps a VkDevice to its accounting key (the token its report
	// callback carries as pUserData) and instance. Copy-on-write: every
	// intercept reads it, devices come and go rarely.
	keys   atomic.Pointer[map[uintptr]deviceInfo]
	keysMu sync.Mutex
	// last is the device looked up last, in the map keys held then: the
	// hooks of one call, and most calls, are of one device.
	last atomic.Pointer[lastDevice]

	// dropped holds, by device key, the names of memory objects the store
	// forgot with their device before this layer reported the device's
	// leaks (a layer above destroyed it first); cleared when the layer sees
	// the device go.
	dropped   map[uint64]map[nameKey]string
	droppedMu sync.Mutex

	now func() time.Duration // the budget sampler's clock
	ot  *overTime            // frames, growth, budget thresholds; nil in tests that need none
}

type lastDevice struct {
	keys   *map[uintptr]deviceInfo
	device uintptr
	info   deviceInfo
}

type deviceInfo struct {
	key      uint64
	instance uintptr
	budget   *budgetState
	props    accounting.MemoryProperties // for the descriptors of allocations
}

// sink is the engine's Sink plus the leak events the layer adds.
type sink interface {
	accounting.Sink
	Leak(ev accounting.AllocationEvent, name, at string)
	// Budget reports one VK_EXT_memory_budget sample of a heap.
	Budget(heap uint32, budget, usage uint64)
}

// newState returns the layer state writing to out; lt (nil: a new one) is
// the lifetimes the trace sink uses, which take names through device keys of
// this state.
func newState(out sink, names *objectnames.Store, lt *lifetimes) *state {
	if lt == nil {
		lt = newLifetimes()
	}
	s := &state{engine: accounting.New(out), out: out, names: names, lt: lt, now: budgetClock}
	s.keys.Store(&map[uintptr]deviceInfo{})
	lt.key, lt.names = s.key, names
	names.WatchDevices(s.namesDropped)
	return s
}

// objectName is the current name of a live object of the trace's key k
// with handle (its VkDeviceMemory, buffer or image), "" for none.
func (s *state) objectName(k liveKey, handle uint64) string {
	var name string
	if int(k.src) < len(namedTypes) && namedTypes[k.src] != 0 {
		s.lt.withName(nameKey{k.dev, namedTypes[k.src], handle}, func(n string) { name = strings.Clone(n) })
	}
	return name
}

// namesDropped keeps the names of memory objects the store forgot with a
// device the layer still tracks.
func (s *state) namesDropped(device uint64, dropped []objectnames.Record) {
	d, ok := (*s.keys.Load())[uintptr(device)]
	if !ok {
		return // the layer saw the device go: nothing left to report
	}
	m := map[nameKey]string{}
	for _, r := range dropped {
		if _, ok := nameSource(r.Type); ok {
			m[nameKey{d.key, r.Type, r.Handle}] = r.Name
		}
	}
	s.droppedMu.Lock()
	if s.dropped == nil {
		s.dropped = map[uint64]map[nameKey]string{}
	}
	s.dropped[d.key] = m
	s.droppedMu.Unlock()
}

// forgetDevice drops what the layer keeps of a device it saw go.
func (s *state) forgetDevice(device uintptr, key uint64) {
	s.lt.deviceDestroyed(key)
	s.setKey(device, deviceInfo{}, false)
	s.droppedMu.Lock()
	delete(s.dropped, key)
	s.droppedMu.Unlock()
}

// key returns the accounting key of a device. A device the layer did not see
// being created (created before the layer was enabled, or an out-of-memory
// create path) is keyed by its handle with the top bit set, which tokens
// (small counters) never reach.
func (s *state) key(device uintptr) uint64 {
	if d := s.lookup(device); d != nil {
		return d.key
	}
	return uint64(device) | 1<<63
}

// info is what the layer knows of a device: its key and memory properties,
// or, for a device it did not see created, a key from the handle alone.
func (s *state) info(device uintptr) deviceInfo {
	if d := s.lookup(device); d != nil {
		return *d
	}
	return deviceInfo{key: uint64(device) | 1<<63}
}

// lookup is what the layer knows of a device it saw created (nil: none),
// not to be changed.
func (s *state) lookup(device uintptr) *deviceInfo {
	keys := s.keys.Load()
	if l := s.last.Load(); l != nil && l.keys == keys && l.device == device {
		return &l.info
	}
	d, ok := (*keys)[device]
	if !ok {
		return nil
	}
	l := &lastDevice{keys, device, d}
	s.last.Store(l)
	return &l.info
}

func (s *state) setKey(device uintptr, info deviceInfo, add bool) {
	s.keysMu.Lock()
	defer s.keysMu.Unlock()
	old := *s.keys.Load()
	next := make(map[uintptr]deviceInfo, len(old)+1)
	for d, k := range old {
		next[d] = k
	}
	if add {
		next[device] = info
	} else {
		delete(next, device)
	}
	s.keys.Store(&next)
}

// deviceCreated records a successful vkCreateDevice of instance. token is
// what the report callback (if installed) passes as pUserData; 0 when the
// layer could not allocate one. budget says whether VK_EXT_memory_budget
// can be sampled for the device.
func (s *state) deviceCreated(device, instance uintptr, token uint64, hasCallback, budget bool, props accounting.MemoryProperties) {
	if device == 0 {
		return
	}
	key := token
	if key == 0 {
		key = uint64(device) | 1<<63
	}
	info := deviceInfo{key: key, instance: instance, budget: &budgetState{ext: budget}, props: props}
	info.budget.last.Store(-1)
	s.setKey(device, info, true)
	s.lt.deviceCreated(key, device)
	s.engine.DeviceCreated(key, props, hasCallback)
}

// deviceFailed drops what report callbacks recorded during a failed
// vkCreateDevice.
func (s *state) deviceFailed(token uint64) { s.engine.DeviceDestroyed(token) }

// deviceDestroying runs before vkDestroyDevice calls down: what is still
// alive is a leak, reported (once) before the driver's FREE callbacks
// release it.
func (s *state) deviceDestroying(device uintptr) {
	if device != 0 {
		s.reportLeaks(device, s.key(device), "vkDestroyDevice")
	}
}

// deviceDestroyed runs after vkDestroyDevice returned, so FREE callbacks the
// driver sent during it were accounted; whatever is left is released.
func (s *state) deviceDestroyed(device uintptr) {
	if device == 0 {
		return
	}
	key := s.key(device)
	s.engine.DeviceDestroyed(key)
	s.forgetDevice(device, key)
}

// instanceDestroyed reports the devices of instance that the application
// never destroyed: their live objects are leaks, and their memory is
// released as vkDestroyDevice would (the devices died with the instance).
func (s *state) instanceDestroyed(instance uintptr) {
	for device, d := range *s.keys.Load() {
		if d.instance == instance {
			s.reportLeaks(device, d.key, "vkDestroyInstance")
			s.engine.DeviceDestroyed(d.key)
			s.names.DeviceDestroyed(uint64(device))
			s.forgetDevice(device, d.key)
		}
	}
}

// exiting reports what every device still holds as leaks when the process
// exits; the state stays (other exit handlers may still call Vulkan), and a
// later vkDestroyDevice reports only what was created after.
func (s *state) exiting() {
	for device, d := range *s.keys.Load() {
		s.reportLeaks(device, d.key, "exit")
	}
}

// reportLeaks writes a VulkanMemoryLeak event for each object of the device
// not reported as a leak before, named as the store names it, or as it was
// named when the store forgot the device's names (a layer above destroyed
// the device first).
func (s *state) reportLeaks(device uintptr, key uint64, at string) {
	s.droppedMu.Lock()
	dropped := s.dropped[key]
	s.droppedMu.Unlock()
	for _, ev := range s.engine.Leaks(key) {
		var name string
		if nk := nameKeyOf(&ev); nk.typ != 0 {
			var ok bool
			if name, ok = s.names.Get(uint64(device), nk.typ, nk.handle); !ok {
				name = dropped[nk]
			}
		}
		s.out.Leak(ev, name, at)
	}
}

func (s *state) callback(token uint64, ev accounting.CallbackEvent) { s.engine.Callback(token, ev) }

func (s *state) memoryAllocated(device uintptr, memory, size uint64, typeIndex uint32, info accounting.MemoryInfo) {
	di := s.info(device)
	info.Desc = memoryDescriptor(di.props, typeIndex, info)
	s.engine.MemoryAllocatedWith(di.key, memory, size, typeIndex, info)
}

// allocationFailed records a vkAllocateMemory that returned an error.
func (s *state) allocationFailed(device uintptr, size uint64, typeIndex uint32) {
	s.engine.AllocationFailed(s.key(device), size, typeIndex)
}

func (s *state) memoryFreed(device uintptr, memory uint64) {
	if memory == 0 {
		return
	}
	key := s.key(device)
	s.engine.MemoryFreed(key, memory)
}

// bufferCreated records a vkCreateBuffer made at site (a perfetto.Callstack,
// 0: unknown).
func (s *state) bufferCreated(device uintptr, buffer, usage, size uint64, site uint32) {
	s.engine.BufferCreatedWith(s.key(device), buffer, usage, size, descs.buffer(describe.Buffer{Size: size, Usage: usage}), site)
}

// imageCreated records a vkCreateImage with what its create info says.
func (s *state) imageCreated(device uintptr, image uint64, info describe.Image, site uint32) {
	s.engine.ImageCreatedWith(s.key(device), image, info.Usage, info.Flags, descs.image(info), site)
}

func (s *state) resourceDestroyed(device uintptr, kind accounting.ResourceKind, handle uint64) {
	if handle == 0 {
		return
	}
	s.engine.ResourceDestroyed(s.key(device), kind, handle)
}

func (s *state) requirements(device uintptr, kind accounting.ResourceKind, handle, size uint64) {
	s.engine.RequirementsKnown(s.key(device), kind, handle, size)
}

// planeAspectNone marks a whole-resource requirement or bind.
const planeAspectNone = 0

func (s *state) planeRequirements(device uintptr, image uint64, aspect uint32, size uint64) {
	s.engine.PlaneRequirementsKnown(s.key(device), image, aspect, size)
}

// bound records one successful bind. query asks the driver for the
// resource's (or plane's) requirement size; it is called only when the
// engine has none recorded, since already-recorded sizes are never
// re-queried.
func (s *state) bound(device uintptr, kind accounting.ResourceKind, handle, memory, offset uint64, aspect uint32, query func() uint64) {
	key := s.key(device)
	if memory == 0 {
		// A swapchain bind: no memory of the application's to attribute and
		// no requirements to ask for; the engine counts it.
		s.engine.Bound(key, kind, handle, 0, offset)
		return
	}
	if aspect != planeAspectNone {
		if s.engine.NeedsPlaneSize(key, handle, aspect) {
			if size := query(); size != 0 {
				s.engine.PlaneRequirementsKnown(key, handle, aspect, size)
			}
		}
		s.engine.PlaneBound(key, handle, aspect, memory, offset)
		return
	}
	s.engine.BoundQuerying(key, kind, handle, memory, offset, query)
}
