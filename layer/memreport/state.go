package memreport

import (
	"sync"
	"sync/atomic"

	"github.com/vkgen/vkgen/generated"
	"github.com/vkgen/vkgen/layer/memreport/accounting"
	"github.com/vkgen/vkgen/objectnames"
)

// state is the layer's Go state with the cgo taken out: the hooks decode C
// structs into plain values and call these methods, so tests drive the same
// code with synthetic sequences.
type state struct {
	engine *accounting.Engine
	names  *objectnames.Store

	// keys maps a VkDevice to its accounting key (the token its report
	// callback carries as pUserData). Copy-on-write: every intercept reads
	// it, devices come and go rarely.
	keys   atomic.Pointer[map[uintptr]uint64]
	keysMu sync.Mutex
}

func newState(sink accounting.Sink, names *objectnames.Store) *state {
	s := &state{engine: accounting.New(sink), names: names}
	s.keys.Store(&map[uintptr]uint64{})
	return s
}

// key returns the accounting key of a device. A device the layer did not see
// being created (created before the layer was enabled, or an out-of-memory
// create path) is keyed by its handle with the top bit set, which tokens
// (small counters) never reach.
func (s *state) key(device uintptr) uint64 {
	if k, ok := (*s.keys.Load())[device]; ok {
		return k
	}
	return uint64(device) | 1<<63
}

func (s *state) setKey(device uintptr, key uint64, add bool) {
	s.keysMu.Lock()
	defer s.keysMu.Unlock()
	old := *s.keys.Load()
	next := make(map[uintptr]uint64, len(old)+1)
	for d, k := range old {
		next[d] = k
	}
	if add {
		next[device] = key
	} else {
		delete(next, device)
	}
	s.keys.Store(&next)
}

// deviceCreated records a successful vkCreateDevice. token is what the
// report callback (if installed) passes as pUserData; 0 when the layer could
// not allocate one.
func (s *state) deviceCreated(device uintptr, token uint64, hasCallback bool, typeFlags []uint32) {
	if device == 0 {
		return
	}
	key := token
	if key == 0 {
		key = uint64(device) | 1<<63
	}
	s.setKey(device, key, true)
	s.engine.DeviceCreated(key, accounting.MemoryProperties{TypeFlags: typeFlags}, hasCallback)
}

// deviceFailed drops what report callbacks recorded during a failed
// vkCreateDevice.
func (s *state) deviceFailed(token uint64) { s.engine.DeviceDestroyed(token) }

// deviceDestroyed runs after vkDestroyDevice returned, so FREE callbacks the
// driver sent during it were accounted; whatever is left is released.
func (s *state) deviceDestroyed(device uintptr) {
	if device == 0 {
		return
	}
	s.engine.DeviceDestroyed(s.key(device))
	s.names.DeviceDestroyed(uint64(device))
	s.setKey(device, 0, false)
}

func (s *state) callback(token uint64, ev accounting.CallbackEvent) { s.engine.Callback(token, ev) }

func (s *state) memoryAllocated(device uintptr, memory, size uint64, typeIndex uint32, info accounting.MemoryInfo) {
	s.engine.MemoryAllocatedWith(s.key(device), memory, size, typeIndex, info)
}

func (s *state) memoryFreed(device uintptr, memory uint64) {
	if memory == 0 {
		return
	}
	s.engine.MemoryFreed(s.key(device), memory)
	s.names.ObjectDestroyed(uint64(device), generated.ObjectTypeDeviceMemory, memory)
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
	s.engine.ResourceDestroyed(s.key(device), kind, handle)
	t := generated.ObjectTypeBuffer
	switch kind {
	case accounting.KindImage:
		t = generated.ObjectTypeImage
	case accounting.KindVideoSession:
		t = generated.ObjectTypeVideoSessionKHR
	}
	s.names.ObjectDestroyed(uint64(device), t, handle)
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
	if s.engine.NeedsSize(key, kind, handle) {
		if size := query(); size != 0 {
			s.engine.RequirementsKnown(key, kind, handle, size)
		}
	}
	s.engine.Bound(key, kind, handle, memory, offset)
}

func (s *state) debugUtilsName(device uintptr, t int32, handle uint64, name string) {
	// Errors are names the specifications forbid (UNKNOWN type, null
	// handle); the call below reports them to the application, the store
	// just keeps nothing.
	_ = s.names.SetName(uint64(device), generated.ObjectType(t), handle, name)
}

func (s *state) debugMarkerName(device uintptr, t int32, handle uint64, name string) {
	_ = s.names.SetDebugMarkerObjectName(uint64(device), &objectnames.DebugMarkerObjectNameInfo{
		ObjectType: generated.DebugReportObjectType(t), Object: handle, ObjectName: name,
	})
}
