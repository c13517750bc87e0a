package memreport

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/vkgen/vkgen/generated"
	"github.com/vkgen/vkgen/layer/memreport/accounting"
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

	now func() time.Duration // the budget sampler's clock
}

type deviceInfo struct {
	key      uint64
	instance uintptr
	budget   *budgetState // nil: no VK_EXT_memory_budget
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
	lt.key = s.key
	return s
}

// key returns the accounting key of a device. A device the layer did not see
// being created (created before the layer was enabled, or an out-of-memory
// create path) is keyed by its handle with the top bit set, which tokens
// (small counters) never reach.
func (s *state) key(device uintptr) uint64 {
	if d, ok := (*s.keys.Load())[device]; ok {
		return d.key
	}
	return uint64(device) | 1<<63
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
	info := deviceInfo{key: key, instance: instance}
	if budget {
		info.budget = &budgetState{}
		info.budget.last.Store(-1)
	}
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
		s.reportLeaks(s.key(device), "vkDestroyDevice")
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
	s.lt.deviceDestroyed(key)
	s.setKey(device, deviceInfo{}, false)
}

// instanceDestroyed reports the devices of instance that the application
// never destroyed: their live objects are leaks, and their memory is
// released as vkDestroyDevice would (the devices died with the instance).
func (s *state) instanceDestroyed(instance uintptr) {
	for device, d := range *s.keys.Load() {
		if d.instance == instance {
			s.reportLeaks(d.key, "vkDestroyInstance")
			s.engine.DeviceDestroyed(d.key)
			s.names.DeviceDestroyed(uint64(device))
			s.lt.deviceDestroyed(d.key)
			s.setKey(device, deviceInfo{}, false)
		}
	}
}

// exiting reports what every device still holds as leaks when the process
// exits; the state stays (other exit handlers may still call Vulkan), and a
// later vkDestroyDevice reports only what was created after.
func (s *state) exiting() {
	for _, d := range *s.keys.Load() {
		s.reportLeaks(d.key, "exit")
	}
}

// reportLeaks writes a VulkanMemoryLeak event for each object of the device
// not reported as a leak before, named as the layer last saw it published
// (another layer may have dropped the store's names of the device already).
func (s *state) reportLeaks(key uint64, at string) {
	for _, ev := range s.engine.Leaks(key) {
		var name string
		switch ev.Source {
		case accounting.SourceBuffer:
			name = s.lt.name(key, generated.ObjectTypeBuffer, ev.ObjectHandle)
		case accounting.SourceImage:
			name = s.lt.name(key, generated.ObjectTypeImage, ev.ObjectHandle)
		case accounting.SourceDeviceMemory:
			name = s.lt.name(key, generated.ObjectTypeDeviceMemory, ev.ObjectHandle)
		}
		s.out.Leak(ev, name, at)
	}
}

func (s *state) callback(token uint64, ev accounting.CallbackEvent) { s.engine.Callback(token, ev) }

func (s *state) memoryAllocated(device uintptr, memory, size uint64, typeIndex uint32, info accounting.MemoryInfo) {
	s.engine.MemoryAllocatedWith(s.key(device), memory, size, typeIndex, info)
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
	s.lt.forget(key, generated.ObjectTypeDeviceMemory, memory)
}

func (s *state) bufferCreated(device uintptr, buffer, usage, size uint64) {
	s.engine.BufferCreated(s.key(device), buffer, usage, size)
}

func (s *state) imageCreated(device uintptr, image uint64, usage, flags uint32) {
	s.engine.ImageCreated(s.key(device), image, usage, flags)
}

func (s *state) resourceDestroyed(device uintptr, kind accounting.ResourceKind, handle uint64) {
	if handle == 0 {
		return
	}
	key := s.key(device)
	s.engine.ResourceDestroyed(key, kind, handle)
	t := generated.ObjectTypeBuffer
	switch kind {
	case accounting.KindImage:
		t = generated.ObjectTypeImage
	case accounting.KindVideoSession:
		t = generated.ObjectTypeVideoSessionKHR
	}
	s.lt.forget(key, t, handle)
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
