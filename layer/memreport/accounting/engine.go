package accounting

import (
	"cmp"
	"maps"
	"math"
	"math/bits"
	"slices"
	"sync"

	"github.com/vkgen/vkgen/internal/hashmap"
)

// maxPlanes is the number of bind slots per resource: slot 0 for a whole
// buffer or non-disjoint image, slots 0..3 for the planes of a disjoint image.
const maxPlanes = 4

// KeySpace tells which namespace an allocation key lives in.
type KeySpace uint8

const (
	// KeyMemoryHandle: VkDeviceMemory handles (fallback allocations,
	// application DEVICE_MEMORY callbacks, bind targets).
	KeyMemoryHandle KeySpace = iota
	// KeyMemoryObjectID: callback memoryObjectIds (driver-internal
	// allocations, application allocations reported for another object).
	KeyMemoryObjectID
)

type allocKey struct {
	space KeySpace
	id    uint64
}

type resKey struct {
	kind   ResourceKind
	handle uint64
}

func (k allocKey) Hash() uint64 { return hashmap.Mix(k.id ^ uint64(k.space)<<62) }
func (k resKey) Hash() uint64   { return hashmap.Mix(k.handle ^ uint64(k.kind)<<61) }

type device struct {
	key         uint64
	typeFlags   []uint32
	typeHeaps   []uint32
	hasCallback bool
	resources   hashmap.Map[resKey, *resource]
	allocs      hashmap.Map[allocKey, *allocation]
	// byObject indexes allocations by their owner (driver allocations by
	// the resource they were reported for, 5.3 and 5.9; dedicated
	// allocations by their resource), so resource creation needs no scan.
	byObject hashmap.Map[resKey, []*allocation]
	// swapchains lists the images of each swapchain: its own images and
	// the application's images bound to its memory.
	swapchains map[uint64][]*resource
}

type resource struct {
	key      resKey
	usage    uint64 // buffer usage, or image usage widened
	disjoint bool
	desc     uint32 // the sink's descriptor of the resource (AllocationEvent.Desc)
	site     uint32 // the sink's call site of its creation (AllocationEvent.Site)
	// presentable and swapchain: the image is one of swapchain's own
	// (presentable) or is bound to its memory; such images take no other
	// binds or sizes.
	presentable bool
	swapchain   uint64
	slot0       slot // a whole buffer's or image's, or plane 0's
	// planes holds the slots of planes 1..3 of a disjoint image; nil for
	// the others, which have one slot (a buffer's record is half the size).
	planes *[maxPlanes - 1]slot
	// rs holds the range binds of a sparse resource or video session
	// (sparse.go); nil for the others, so the common record stays small.
	rs *rangeSet
}

type slot struct {
	size   uint64 // memory requirement of the resource or plane
	mem    *allocation
	offset uint64
	track  track // where the bound bytes were added
	heap   uint8 // the heap they were added to
	leaked bool  // reported by Leaks since it was bound
	mark   uint64
}

// at is slot idx of r (slotIndex's: above 0 only on a disjoint image).
func (r *resource) at(idx int) *slot {
	if idx == 0 {
		return &r.slot0
	}
	return &r.planes[idx-1]
}

// nslots is how many slots r has.
func (r *resource) nslots() int {
	if r.planes == nil {
		return 1
	}
	return maxPlanes
}

// setDisjoint sets whether r, a new record, is a disjoint image, which has
// a slot per plane.
func (r *resource) setDisjoint(disjoint bool) {
	r.disjoint = disjoint
	if disjoint {
		r.planes = new([maxPlanes - 1]slot)
	}
}

func (r *resource) cluster(memFlags uint32) Cluster {
	switch r.key.kind {
	case KindImage:
		return ClassifyImage(uint32(r.usage), memFlags)
	case KindVideoSession:
		return ClusterVideoSession
	}
	return ClassifyBuffer(r.usage, memFlags)
}

// sub is one bound slot of a resource inside an allocation; subs are kept
// sorted by (off, end) so the bound union is one linear pass (with the
// allocation's range binds, kept apart so the common sub stays small).
type sub struct {
	off, end uint64
	res      *resource
	plane    uint8
}

type allocation struct {
	dev *device
	key allocKey
	// created: a CREATE was emitted (callback or fallback allocation). A
	// record that is not created is a placeholder known only from binds or
	// from memory flags; it is removed when its VkDeviceMemory is freed.
	created bool
	driver  bool
	leaked  bool // reported by Leaks
	mark    uint64
	total   uint64
	flags   uint32
	heap    uint8 // memory heap index (0 until known)
	// typeIndex is the Vulkan memory type of vkAllocateMemory, when hasType:
	// on the fallback path only (a callback device's CREATE comes from the
	// driver before the type is known, and its DESTROY must match it).
	typeIndex    uint32
	hasType      bool
	objectType   int32
	objectHandle uint64
	// ranges are the range binds in this allocation, sorted by (offset,
	// end).
	ranges []*rangeBind
	info   MemoryInfo
	// owner is the resource whose cluster the unbound bytes count in: the
	// buffer/image a driver allocation was reported for or the resource of
	// a dedicated allocation (zero kind: none).
	owner resKey
	subs  subList
	// bound is the union of the bound intervals' lengths (5.7), subs and
	// range binds together. While no two overlap (overlap false), a bind or
	// unbind adds or takes its own length, so that binding into a block
	// holding thousands of resources, or thousands of a sparse resource's
	// pages, does not walk them all; otherwise recomputeUnbound walks the
	// intervals.
	bound        uint64
	overlap      bool
	unboundTrack track
	unboundHeap  uint8
	unbound      uint64 // bytes applied to unboundTrack in unboundHeap
}

// Engine is the accounting state of every device of the process.
// All methods are safe for concurrent use.
type Engine struct {
	mu      sync.Mutex
	sink    Sink
	events  EventCounterSink // sink, when it takes counter changes with events
	pending []CounterChange  // changes held for the call's next event
	idle    IdleSink         // sink, when it tells it writes nothing now
	quiet   bool             // idle said so when the call took the lock
	devices map[uint64]*device
	// totals are exact 128-bit sums, so saturation never causes drift;
	// reported holds the int64 values last reported (saturated).
	totals   [numTracks]total
	reported [numTracks]int64
	heaps    heapTotals
	stats    Stats
	// Records of destroyed resources and freed allocations, reused by the
	// next ones so that a create/destroy cycle allocates nothing.
	freeRes    []*resource
	freeAllocs []*allocation
}

// maxFree bounds each free list: a burst of frees keeps no more than this.
const maxFree = 64

// total is an unsigned 128-bit byte count.
type total struct{ hi, lo uint64 }

// value is the total as a counter value, saturating at math.MaxInt64.
func (c total) value() int64 {
	if c.hi != 0 || c.lo > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(c.lo)
}

// New returns an empty engine reporting to sink; a nil sink discards events
// (the state is still kept so a later Snapshot is complete).
func New(sink Sink) *Engine {
	e := &Engine{sink: sink, devices: make(map[uint64]*device)}
	e.heaps.sink, _ = sink.(HeapSink)
	e.events, _ = sink.(EventCounterSink)
	e.idle, _ = sink.(IdleSink)
	return e
}

// dev returns the state of a device, creating it for a device the engine has
// not seen yet (treated as a device without callback until DeviceCreated).
func (e *Engine) dev(key uint64) *device {
	d := e.devices[key]
	if d == nil {
		d = &device{
			key:        key,
			swapchains: make(map[uint64][]*resource),
		}
		e.devices[key] = d
	}
	return d
}

// DeviceCreated records a successful vkCreateDevice: the memory type flags of
// its physical device and whether the layer's device-memory-report callback
// was installed. State created by earlier events for the same key (callbacks
// fired during device creation) is kept.
func (e *Engine) DeviceCreated(dev uint64, props MemoryProperties, hasCallback bool) {
	e.lock()
	defer e.unlock()
	d := e.dev(dev)
	d.typeFlags = slices.Clone(props.TypeFlags)
	d.typeHeaps = slices.Clone(props.TypeHeaps)
	d.hasCallback = hasCallback
}

// DeviceDestroyed releases everything of the device: each allocation gets its
// sub-allocation and allocation DESTROY events and its bytes leave the
// counters, swapchain images get theirs; resources are forgotten.
func (e *Engine) DeviceDestroyed(dev uint64) {
	e.lock()
	defer e.unlock()
	d := e.devices[dev]
	if d == nil {
		return
	}
	for _, a := range sortedAllocs(d) {
		e.removeAllocation(a)
	}
	for _, sc := range slices.Sorted(maps.Keys(d.swapchains)) {
		for _, r := range d.swapchains[sc] {
			e.emitSwapchain(d, r, OpDestroy)
		}
	}
	delete(e.devices, dev)
}

// BufferCreated records a successful vkCreateBuffer with the create-info usage
// and size (the size is replaced by RequirementsKnown).
func (e *Engine) BufferCreated(dev, buffer, usage, size uint64) {
	e.BufferCreatedWith(dev, buffer, usage, size, 0, 0)
}

// BufferCreatedWith is BufferCreated with the sink's descriptor of the
// buffer and of its call site, which its events carry
// (AllocationEvent.Desc, Site).
func (e *Engine) BufferCreatedWith(dev, buffer, usage, size uint64, desc, site uint32) {
	e.resourceCreated(dev, resKey{KindBuffer, buffer}, usage, false, size, desc, site)
}

// ImageCreated records a successful vkCreateImage with its usage and create
// flags (ImageCreateDisjoint selects per-plane sizes and binds).
func (e *Engine) ImageCreated(dev, image uint64, usage, createFlags uint32) {
	e.ImageCreatedWith(dev, image, usage, createFlags, 0, 0)
}

// ImageCreatedWith is ImageCreated with the sink's descriptor of the image
// and of its call site, which its events carry (AllocationEvent.Desc,
// Site).
func (e *Engine) ImageCreatedWith(dev, image uint64, usage, createFlags, desc, site uint32) {
	e.resourceCreated(dev, resKey{KindImage, image}, uint64(usage), createFlags&ImageCreateDisjoint != 0, 0, desc, site)
}

func (e *Engine) resourceCreated(dev uint64, k resKey, usage uint64, disjoint bool, size uint64, desc, site uint32) {
	e.lock()
	defer e.unlock()
	if k.handle == 0 {
		e.stats.InvalidCalls++
		return
	}
	d := e.dev(dev)
	if old := d.resources.At(k); old != nil {
		// A handle reused without a destroy we saw: drop the stale record.
		e.forget(d, old)
	}
	r := e.newResource(k)
	r.usage, r.desc, r.site = usage, desc, site
	r.setDisjoint(disjoint)
	r.slot0.size = size
	d.resources.Set(k, r)
	// 5.9: driver allocations reported before the resource existed move
	// from driver unbound_memory to the resource's cluster.
	for _, a := range d.byObject.At(k) {
		e.recomputeUnbound(a)
	}
}

// ResourceDestroyed records vkDestroyBuffer/vkDestroyImage (call it before
// calling down): the resource's bindings are removed and its record dropped.
func (e *Engine) ResourceDestroyed(dev uint64, kind ResourceKind, handle uint64) {
	e.lock()
	defer e.unlock()
	d := e.devices[dev]
	if d == nil {
		return
	}
	r := d.resources.At(resKey{kind, handle})
	if r == nil {
		return
	}
	if r.presentable {
		e.stats.InvalidCalls++ // the swapchain owns it
		return
	}
	e.forget(d, r)
}

// forget drops a resource record with its binds. Dedicated allocations of it
// go back to unbound_memory (their memory is no longer anyone's); driver
// allocations keep its cluster, as in the reference (the driver frees them
// in the same vkDestroy* call).
func (e *Engine) forget(d *device, r *resource) {
	e.unbindAll(r)
	d.resources.Delete(r.key)
	if r.swapchain != 0 {
		e.leaveSwapchain(d, r)
	}
	for _, a := range slices.Clone(d.byObject.At(r.key)) {
		if !a.driver {
			e.unindex(a)
			e.recomputeUnbound(a)
		}
	}
	if len(e.freeRes) < maxFree {
		e.freeRes = append(e.freeRes, r) // nothing points to it any more
	}
}

// newResource returns a zeroed record of k, reused where one is free.
func (e *Engine) newResource(k resKey) *resource {
	if n := len(e.freeRes); n > 0 {
		r := e.freeRes[n-1]
		e.freeRes = e.freeRes[:n-1]
		*r = resource{key: k}
		return r
	}
	return &resource{key: k}
}

// RequirementsKnown records the memory requirement size of a buffer or a
// non-disjoint image (vkGet*MemoryRequirements, *2, *2KHR). A resource not
// seen before gets a record of the given kind with no usage.
func (e *Engine) RequirementsKnown(dev uint64, kind ResourceKind, handle, size uint64) {
	e.setSize(dev, kind, handle, -1, size)
}

// PlaneRequirementsKnown records the requirement size of one plane of a
// disjoint image (VkImagePlaneMemoryRequirementsInfo.planeAspect: PLANE_i or
// MEMORY_PLANE_i aspect bit).
func (e *Engine) PlaneRequirementsKnown(dev, image uint64, aspect uint32, size uint64) {
	p, ok := planeIndex(aspect)
	if !ok {
		e.lock()
		e.stats.InvalidCalls++
		e.unlock()
		return
	}
	e.setSize(dev, KindImage, image, p, size)
}

// setSize records a size for slot plane (-1: whole resource).
func (e *Engine) setSize(dev uint64, kind ResourceKind, handle uint64, plane int, size uint64) {
	e.lock()
	defer e.unlock()
	if !validKind(kind) || handle == 0 {
		e.stats.InvalidCalls++
		return
	}
	d := e.dev(dev)
	k := resKey{kind, handle}
	r := d.resources.At(k)
	if r == nil {
		r = e.newResource(k)
		r.setDisjoint(plane >= 0)
		d.resources.Set(k, r)
		for _, a := range d.byObject.At(k) {
			e.recomputeUnbound(a)
		}
	}
	idx, ok := slotIndex(r, plane)
	if !ok || r.swapchain != 0 {
		e.stats.InvalidCalls++
		return
	}
	s := r.at(idx)
	if s.size == size {
		return
	}
	a, off := s.mem, s.offset
	if a == nil {
		s.size = size
		return
	}
	// Bound with another size: rebind in place so counters, unbound bytes
	// and events follow the new size.
	e.unbind(r, idx)
	s.size = size
	if size > 0 {
		e.bind(r, idx, a, off)
	}
}

// NeedsSize reports whether a buffer or non-disjoint image is known and has
// no recorded size, i.e. whether a bind-time requirements query is useful
// (already recorded sizes are never re-queried).
func (e *Engine) NeedsSize(dev uint64, kind ResourceKind, handle uint64) bool {
	return e.needsSize(dev, kind, handle, -1)
}

// NeedsPlaneSize is NeedsSize for one plane of a disjoint image.
func (e *Engine) NeedsPlaneSize(dev, image uint64, aspect uint32) bool {
	p, ok := planeIndex(aspect)
	return ok && e.needsSize(dev, KindImage, image, p)
}

func (e *Engine) needsSize(dev uint64, kind ResourceKind, handle uint64, plane int) bool {
	e.lock()
	defer e.unlock()
	return e.needsSizeLocked(dev, kind, handle, plane)
}

func (e *Engine) needsSizeLocked(dev uint64, kind ResourceKind, handle uint64, plane int) bool {
	d := e.devices[dev]
	if d == nil {
		return false
	}
	r := d.resources.At(resKey{kind, handle})
	if r == nil {
		return false
	}
	idx, ok := slotIndex(r, plane)
	return ok && r.swapchain == 0 && r.at(idx).size == 0
}

// Bound records a successful vkBindBufferMemory/vkBindImageMemory (or one
// VkBind*MemoryInfo of the *2 variants) of a whole buffer or non-disjoint
// image. memory == 0 (a swapchain bind without its swapchain: see
// SwapchainBound) is counted and ignored.
func (e *Engine) Bound(dev uint64, kind ResourceKind, handle, memory, offset uint64) {
	e.boundSlot(dev, kind, handle, -1, memory, offset)
}

// BoundQuerying is Bound that first learns the resource's size from size
// (its memory requirements) when the engine lacks it, as NeedsSize and
// RequirementsKnown would: size runs without the engine's lock (it may call
// the driver), and when the size is known already, the usual case, the bind
// takes the lock once instead of twice.
func (e *Engine) BoundQuerying(dev uint64, kind ResourceKind, handle, memory, offset uint64, size func() uint64) {
	if e.boundIfSized(dev, kind, handle, memory, offset) {
		return
	}
	if s := size(); s != 0 {
		e.RequirementsKnown(dev, kind, handle, s)
	}
	e.Bound(dev, kind, handle, memory, offset)
}

// boundIfSized is Bound unless the resource needs a size (false).
func (e *Engine) boundIfSized(dev uint64, kind ResourceKind, handle, memory, offset uint64) bool {
	e.lock()
	defer e.unlock()
	if e.needsSizeLocked(dev, kind, handle, -1) {
		return false
	}
	e.boundSlotLocked(dev, kind, handle, -1, memory, offset)
	return true
}

// PlaneBound records the bind of one plane of a disjoint image
// (VkBindImagePlaneMemoryInfo.planeAspect).
func (e *Engine) PlaneBound(dev, image uint64, aspect uint32, memory, offset uint64) {
	p, ok := planeIndex(aspect)
	if !ok {
		e.lock()
		e.stats.InvalidCalls++
		e.unlock()
		return
	}
	e.boundSlot(dev, KindImage, image, p, memory, offset)
}

func (e *Engine) boundSlot(dev uint64, kind ResourceKind, handle uint64, plane int, memory, offset uint64) {
	e.lock()
	defer e.unlock()
	e.boundSlotLocked(dev, kind, handle, plane, memory, offset)
}

func (e *Engine) boundSlotLocked(dev uint64, kind ResourceKind, handle uint64, plane int, memory, offset uint64) {
	if memory == 0 {
		e.stats.NullMemoryBinds++
		return
	}
	d := e.devices[dev]
	var r *resource
	if d != nil {
		r = d.resources.At(resKey{kind, handle})
	}
	if r == nil {
		e.stats.DroppedBinds++
		return
	}
	idx, ok := slotIndex(r, plane)
	if !ok || r.swapchain != 0 {
		e.stats.InvalidCalls++
		return
	}
	if r.at(idx).size == 0 {
		e.stats.DroppedBinds++
		return
	}
	e.unbind(r, idx) // rebind replaces
	e.bind(r, idx, e.findOrPlaceholder(d, memory), offset)
}

// MemoryAllocated records a successful vkAllocateMemory. On a device with the
// callback it only stores the memory type's flags (the ALLOCATE callback did
// the accounting); otherwise it is the allocation (fallback path).
func (e *Engine) MemoryAllocated(dev, memory, size uint64, typeIndex uint32) {
	e.MemoryAllocatedWith(dev, memory, size, typeIndex, MemoryInfo{})
}

// MemoryAllocatedWith is MemoryAllocated with what the allocate info's
// chain says. On a callback device the ALLOCATE or IMPORT callback already
// reported the CREATE, so a dedicated owner shows in the counters only. A
// dedicated allocation's unbound bytes count in its resource's cluster while
// the resource lives: the whole allocation is the resource's from
// allocation to free.
func (e *Engine) MemoryAllocatedWith(dev, memory, size uint64, typeIndex uint32, info MemoryInfo) {
	if memory == 0 {
		return
	}
	e.lock()
	defer e.unlock()
	d := e.dev(dev)
	flags, heap := d.typeInfo(typeIndex)
	k := allocKey{KeyMemoryHandle, memory}
	a := d.allocs.At(k)
	if d.hasCallback {
		if a == nil {
			a = e.newAllocation(d, k, false)
		}
		if a.info.External == ExternalImported && info.External == ExternalNone {
			info.External = ExternalImported // the callback said IMPORT
		}
		a.typeIndex, a.hasType = typeIndex, true // for the binds and the free; the ALLOCATE callback had no type
		e.setInfo(a, info)
		e.setFlags(a, flags, heap)
		e.recomputeUnbound(a)
		return
	}
	if a != nil && a.created {
		// Handle reused without a free we saw: retire the old allocation.
		e.removeAllocation(a)
		a = nil
	}
	if a == nil {
		a = e.newAllocation(d, k, false)
	}
	a.created, a.total = true, size
	a.typeIndex, a.hasType = typeIndex, true
	a.objectType, a.objectHandle = ObjectTypeDeviceMemory, memory
	e.setInfo(a, info)
	e.setFlags(a, flags, heap)
	e.recomputeUnbound(a)
	e.emitAllocation(a, OpCreate)
}

// MemoryFreed records vkFreeMemory; call it before calling down. On a
// fallback device it removes the allocation. On a callback device a
// callback-created allocation is left to the FREE callback, but a
// placeholder (memory the callback never reported) is removed.
func (e *Engine) MemoryFreed(dev, memory uint64) {
	if memory == 0 {
		return
	}
	e.lock()
	defer e.unlock()
	d := e.devices[dev]
	var a *allocation
	if d != nil {
		a = d.allocs.At(allocKey{KeyMemoryHandle, memory})
	}
	switch {
	case a == nil:
		if d == nil || !d.hasCallback {
			e.stats.UnknownFrees++
		}
	case a.created && d.hasCallback:
	default:
		e.removeAllocation(a)
	}
}

// Callback records one VK_EXT_device_memory_report callback of the device.
func (e *Engine) Callback(dev uint64, ev CallbackEvent) {
	e.lock()
	defer e.unlock()
	// Application memory reported for its VkDeviceMemory is keyed by the
	// handle so binds and vkFreeMemory find it; everything else by
	// memoryObjectId, in its own key space.
	k := allocKey{KeyMemoryObjectID, ev.MemoryObjectID}
	if !ev.Internal && ev.ObjectType == ObjectTypeDeviceMemory && ev.ObjectHandle != 0 {
		k = allocKey{KeyMemoryHandle, ev.ObjectHandle}
	}
	switch ev.Type {
	case CallbackAllocate, CallbackImport:
		d := e.dev(dev)
		a := d.allocs.At(k)
		if a == nil {
			a = e.newAllocation(d, k, ev.Internal)
		}
		e.unindex(a)
		a.created, a.total = true, ev.Size
		a.objectType, a.objectHandle = ev.ObjectType, ev.ObjectHandle
		if ev.Type == CallbackImport {
			a.info.External = ExternalImported
		}
		if h := heapOf(ev.HeapIndex); h != a.heap {
			e.setFlags(a, a.flags, h)
		}
		if !a.hasType {
			a.typeIndex, a.hasType = d.onlyType(ev.HeapIndex)
		}
		// Only the unbound track depends on this: binds target the handle
		// space, which holds application memory only.
		a.driver = ev.Internal
		if rk, ok := kindOfObjectType(a.objectType); ok && a.driver && a.objectHandle != 0 {
			e.index(a, resKey{rk, a.objectHandle})
		}
		e.recomputeUnbound(a)
		e.emitAllocation(a, OpCreate)
	case CallbackFree, CallbackUnimport:
		d := e.devices[dev]
		var a *allocation
		if d != nil {
			a = d.allocs.At(k)
		}
		if a == nil {
			e.stats.UnknownFrees++
			return
		}
		e.removeAllocation(a)
	case CallbackAllocationFailed:
		src := SourceDeviceMemory
		if ev.Internal {
			src = SourceDriver
		}
		e.failed(AllocationEvent{
			Operation: OpAllocationFailed, Source: src, Device: dev, MemoryObjectID: ev.MemoryObjectID,
			Size: ev.Size, ObjectHandle: ev.ObjectHandle, Heap: ev.HeapIndex,
		})
	default:
		e.stats.InvalidCalls++
	}
}

func (e *Engine) newAllocation(d *device, k allocKey, driver bool) *allocation {
	var a *allocation
	if n := len(e.freeAllocs); n > 0 {
		a = e.freeAllocs[n-1]
		e.freeAllocs = e.freeAllocs[:n-1]
		*a = allocation{subs: a.subs} // emptied by removeAllocation: its first chunk is reused
	} else {
		a = &allocation{}
	}
	a.dev, a.key, a.driver, a.unboundTrack = d, k, driver, trackOf(driver, ClusterUnbound)
	d.allocs.Set(k, a)
	return a
}

func (e *Engine) findOrPlaceholder(d *device, memory uint64) *allocation {
	k := allocKey{KeyMemoryHandle, memory}
	if a := d.allocs.At(k); a != nil {
		return a
	}
	return e.newAllocation(d, k, false)
}

// bind attaches slot idx of r to a at off; the slot must be unbound.
func (e *Engine) bind(r *resource, idx int, a *allocation, off uint64) {
	s := r.at(idx)
	s.mem, s.offset, s.leaked = a, off, false
	s.track, s.heap = trackOf(a.driver, r.cluster(a.flags)), a.heap
	n := sub{off: off, end: addSat(off, s.size), res: r, plane: uint8(idx)}
	a.addBound(n.off, n.end)
	a.subs.insert(n)
	e.add(s.track, s.heap, s.size)
	e.recomputeUnbound(a)
	e.emitBinding(r, idx, OpBind)
}

// unbind detaches slot idx of r if bound.
func (e *Engine) unbind(r *resource, idx int) {
	s := r.at(idx)
	a := s.mem
	if a == nil {
		return
	}
	e.sub(s.track, s.heap, s.size)
	if b, ok := a.subs.remove(r, idx, s.offset); ok {
		a.bound -= b.end - b.off // meaningful only without overlap
	}
	e.recomputeUnbound(a)
	// The DESTROY event after the bytes moved back to unbound, so it carries
	// both counter changes; the slot still names the memory for the event.
	e.emitBinding(r, idx, OpDestroy)
	s.mem = nil
}

// detach removes a bound slot's bytes from its track and reports it, leaving
// the allocation's sub list to the caller.
func (e *Engine) detach(r *resource, idx int) {
	s := r.at(idx)
	e.sub(s.track, s.heap, s.size)
	e.emitBinding(r, idx, OpDestroy)
}

func (e *Engine) unbindAll(r *resource) {
	for i := range r.nslots() {
		e.unbind(r, i)
	}
	for r.rs != nil && len(r.rs.ranges) > 0 {
		e.unbindRange(r.rs.ranges[0])
	}
}

// removeAllocation reports and drops an allocation with its sub-allocations
// (5.8); the resources stay, unbound.
func (e *Engine) removeAllocation(a *allocation) {
	for s := range a.subs.all() {
		e.detach(s.res, int(s.plane))
		s.res.at(int(s.plane)).mem = nil
	}
	for _, b := range a.ranges {
		e.dropRange(b)
	}
	a.subs.reset()
	a.ranges, a.bound, a.overlap = nil, 0, false
	e.sub(a.unboundTrack, a.unboundHeap, a.unbound)
	a.unbound = 0
	e.unindex(a)
	a.dev.allocs.Delete(a.key)
	if a.created {
		e.emitAllocation(a, OpDestroy)
	}
	if len(e.freeAllocs) < maxFree {
		e.freeAllocs = append(e.freeAllocs, a) // nothing points to it any more
	}
}

// index makes k the owner of a.
func (e *Engine) index(a *allocation, k resKey) {
	a.owner = k
	a.dev.byObject.Set(k, append(a.dev.byObject.At(k), a))
}

// unindex drops a from the byObject index of its owner.
func (e *Engine) unindex(a *allocation) {
	k := a.owner
	if k.kind == 0 {
		return
	}
	a.owner = resKey{}
	list := a.dev.byObject.At(k)
	if i := slices.Index(list, a); i >= 0 {
		list = slices.Delete(list, i, i+1)
		if len(list) == 0 {
			a.dev.byObject.Delete(k)
		} else {
			a.dev.byObject.Set(k, list)
		}
	}
}

// setInfo stores what vkAllocateMemory said; a dedicated allocation is
// owned by its resource. The caller recomputes the unbound bytes.
func (e *Engine) setInfo(a *allocation, info MemoryInfo) {
	a.info = info
	if a.owner.kind != 0 && !a.driver {
		e.unindex(a)
	}
	if (info.Dedicated == KindBuffer || info.Dedicated == KindImage) && info.DedicatedHandle != 0 {
		e.index(a, resKey{info.Dedicated, info.DedicatedHandle})
	}
}

// setFlags stores memory property flags and heap; changed flags re-classify
// bound sub-allocations as well as unbound bytes (fix of 7.2.4), a changed
// heap moves them to the new heap's counters.
func (e *Engine) setFlags(a *allocation, flags uint32, heap uint8) {
	if a.flags == flags && a.heap == heap {
		return
	}
	a.flags, a.heap = flags, heap
	e.reclassify(a)
	e.recomputeUnbound(a)
}

// reclassify moves every bound slot of a whose track changed with the
// memory flags to its new track, reported as DESTROY + BIND.
func (e *Engine) reclassify(a *allocation) {
	for _, b := range a.ranges {
		e.reclassifyRange(b)
	}
	for sb := range a.subs.all() {
		r, idx := sb.res, int(sb.plane)
		s := r.at(idx)
		t := trackOf(a.driver, r.cluster(a.flags))
		if t == s.track && s.heap == a.heap {
			continue
		}
		e.detach(r, idx)
		s.track, s.heap = t, a.heap
		e.add(t, s.heap, s.size)
		e.emitBinding(r, idx, OpBind)
	}
}

// addBound adds [off, end), about to be bound, to a.bound, or notes that it
// overlaps a binding or range: while none overlap each other, those beside
// its place are the only ones it could.
func (a *allocation) addBound(off, end uint64) {
	if !a.overlap {
		a.overlap = a.subs.overlaps(sub{off: off, end: end}) || rangesOverlap(a.ranges, off, end)
		a.bound += end - off
	}
}

// recomputeUnbound applies total minus the union of bound intervals (5.7) to
// the allocation's unbound track, moving bytes only when track or amount
// changed; the union is walked only when a.bound cannot be kept as binds
// come and go (overlap).
func (e *Engine) recomputeUnbound(a *allocation) {
	if a.overlap {
		a.bound, a.overlap = unionBound(a)
	}
	var n uint64
	if a.total > a.bound {
		n = a.total - a.bound
	}
	t := trackOf(a.driver, e.unboundCluster(a))
	switch {
	case t != a.unboundTrack || a.heap != a.unboundHeap:
		e.sub(a.unboundTrack, a.unboundHeap, a.unbound)
		e.add(t, a.heap, n)
	case n > a.unbound: // same track: one counter update
		e.add(t, a.heap, n-a.unbound)
	default:
		e.sub(t, a.heap, a.unbound-n)
	}
	a.unboundTrack, a.unboundHeap, a.unbound = t, a.heap, n
}

// unionBound walks a's intervals, subs and ranges merged in order, for the
// length of their union and whether some overlap.
func unionBound(a *allocation) (bound uint64, overlap bool) {
	var curS, curE, maxEnd uint64
	open := false
	chunks := a.subs.chunks
	ci, i := 0, 0
	for j := 0; ; {
		for ci < len(chunks) && i == len(chunks[ci]) {
			ci, i = ci+1, 0
		}
		more := ci < len(chunks)
		if !more && j == len(a.ranges) {
			break
		}
		// The next interval of either sorted list.
		var s sub
		if j == len(a.ranges) || more && chunks[ci][i].off <= a.ranges[j].offset {
			s = chunks[ci][i]
			i++
		} else {
			s = sub{off: a.ranges[j].offset, end: a.ranges[j].memEnd()}
			j++
		}
		overlap = overlap || s.off < maxEnd // empty ones too: bind's check reads neighbours only
		maxEnd = max(maxEnd, s.end)
		if s.end == s.off {
			continue
		}
		if open && s.off <= curE { // overlapping or adjacent
			curE = max(curE, s.end)
			continue
		}
		if open {
			bound += curE - curS
		}
		curS, curE, open = s.off, s.end, true
	}
	if open {
		bound += curE - curS
	}
	return bound, overlap
}

// unboundCluster: an allocation owned by a known resource (a driver
// allocation reported for it, 5.3, or a dedicated allocation) counts its
// unbound bytes under that resource's cluster.
func (e *Engine) unboundCluster(a *allocation) Cluster {
	if a.owner.kind == 0 {
		return ClusterUnbound
	}
	if r := a.dev.resources.At(a.owner); r != nil {
		return r.cluster(a.flags)
	}
	return ClusterUnbound
}

// add and sub move bytes on a track's process-wide counter and on its
// counter of one heap.
func (e *Engine) add(t track, heap uint8, bytes uint64) {
	e.totals[t].add(bytes)
	e.heaps.totals[heap][t].add(bytes)
	e.report(t, heap)
}

func (e *Engine) sub(t track, heap uint8, bytes uint64) {
	e.totals[t].sub(bytes)
	e.heaps.totals[heap][t].sub(bytes)
	e.report(t, heap)
}

func (c *total) add(bytes uint64) {
	var carry uint64
	c.lo, carry = bits.Add64(c.lo, bytes, 0)
	c.hi += carry
}

// sub clamps at 0: never underflow.
func (c *total) sub(bytes uint64) {
	if c.hi == 0 && c.lo < bytes {
		*c = total{}
		return
	}
	var borrow uint64
	c.lo, borrow = bits.Sub64(c.lo, bytes, 0)
	c.hi -= borrow
}

// report emits a track's value, and its value in heap, when they differ from
// the last ones reported: to a HeapSink in one call (held for the call's
// next event by an EventCounterSink), else the process-wide value to
// Counter.
func (e *Engine) report(t track, heap uint8) {
	v := e.totals[t].value()
	changed := v != e.reported[t]
	e.reported[t] = v
	hv, hchanged := e.heaps.update(t, heap)
	switch {
	case e.quiet:
	case e.events != nil:
		if changed || hchanged {
			e.pending = append(e.pending, CounterChange{int(t), v, changed, uint32(heap), hv, hchanged})
		}
	case e.heaps.sink != nil:
		if changed || hchanged {
			e.heaps.sink.Counters(int(t), v, changed, uint32(heap), hv, hchanged)
		}
	case changed && e.sink != nil:
		e.sink.Counter(trackNames[t], v)
	}
}

func (e *Engine) emitAllocation(a *allocation, op Operation) { e.emit(allocationEvent(a, op)) }

func (e *Engine) emitBinding(r *resource, idx int, op Operation) { e.emit(bindingEvent(r, idx, op)) }

// emit writes an event with the counter changes held for it.
func (e *Engine) emit(ev AllocationEvent) {
	switch {
	case e.events != nil:
		e.events.AllocationWith(ev, e.pending)
		e.pending = e.pending[:0]
	case e.sink != nil:
		e.sink.Allocation(ev)
	}
}

// Locker is the engine's lock, for a sink's own state that its calls
// update under it: the sink may take it outside them (never inside).
func (e *Engine) Locker() sync.Locker { return &e.mu }

// lock and unlock guard every public method; lock asks an IdleSink once
// per call whether counter changes are wanted, unlock writes those made
// after the call's last event.
func (e *Engine) lock() {
	e.mu.Lock()
	e.quiet = e.idle != nil && e.idle.Idle()
}

func (e *Engine) unlock() {
	for _, c := range e.pending {
		e.events.Counters(c.Track, c.Total, c.TotalChanged, c.Heap, c.HeapValue, c.HeapChanged)
	}
	e.pending = e.pending[:0]
	e.mu.Unlock()
}

func allocationEvent(a *allocation, op Operation) AllocationEvent {
	src := SourceDeviceMemory
	if a.driver {
		src = SourceDriver
	}
	return AllocationEvent{
		Operation: op, Source: src, Device: a.dev.key, MemoryObjectID: a.key.id,
		Size: a.total, ObjectHandle: a.objectHandle, ObjectType: a.objectType, MemoryType: a.unboundTrack.cluster().String(),
		Cluster: a.unboundTrack.cluster(), Heap: uint32(a.heap), Mark: &a.mark, TypeIndex: a.typeIndex, HasTypeIndex: a.hasType,
		External: a.info.External, HandleTypes: a.info.HandleTypes,
		Dedicated: a.info.Dedicated, DedicatedHandle: a.info.DedicatedHandle, Desc: a.info.Desc, Site: a.info.Site,
	}
}

func bindingEvent(r *resource, idx int, op Operation) AllocationEvent {
	s := r.at(idx)
	return AllocationEvent{
		Operation: op, Source: r.key.kind.source(), Device: s.mem.dev.key, MemoryObjectID: s.mem.key.id,
		Size: s.size, Offset: s.offset, ObjectHandle: r.key.handle, MemoryType: s.track.cluster().String(),
		Cluster: s.track.cluster(), Heap: uint32(s.heap), Plane: uint8(idx), Mark: &s.mark, TypeIndex: s.mem.typeIndex, HasTypeIndex: s.mem.hasType,
		Desc: r.desc, Site: r.site,
	}
}

func cmpSub(x, y sub) int {
	return cmp.Or(cmp.Compare(x.off, y.off), cmp.Compare(x.end, y.end))
}

func addSat(x, y uint64) uint64 {
	if x > math.MaxUint64-y {
		return math.MaxUint64
	}
	return x + y
}

func validKind(k ResourceKind) bool { return k == KindBuffer || k == KindImage }

// slotIndex maps a plane request to a slot: -1 (whole resource) is slot 0 of
// a buffer or non-disjoint image; planes are valid only on disjoint images.
func slotIndex(r *resource, plane int) (int, bool) {
	if plane < 0 {
		return 0, !r.disjoint
	}
	return plane, r.disjoint
}

// planeIndex maps VK_IMAGE_ASPECT_PLANE_{0,1,2}_BIT and
// VK_IMAGE_ASPECT_MEMORY_PLANE_{0..3}_BIT_EXT to a plane slot.
func planeIndex(aspect uint32) (int, bool) {
	switch aspect {
	case 0x10, 0x80:
		return 0, true
	case 0x20, 0x100:
		return 1, true
	case 0x40, 0x200:
		return 2, true
	case 0x400:
		return 3, true
	}
	return 0, false
}
