package accounting

import (
	"cmp"
	"slices"
)

// Range binds: memory bound to part of a resource, many per resource. Sparse
// buffers and opaque sparse image ranges (vkQueueBindSparse) bind byte
// ranges of the resource, a later bind replacing what it overlaps; image
// regions of sparse-residency images and the numbered bindings of video
// sessions (vkBindVideoSessionMemoryKHR) are each their own key. Each range
// is one sub-allocation of its memory, counted in the resource's cluster and
// reported as BIND/DESTROY (with Range set and Key the resource offset or
// binding index, except for image regions).

// rangeBind is one bound range of a resource: resource-space [key,
// key+span) on memory [offset, offset+size). For sparse ranges span equals
// size; a video binding has span 1 (its memoryBindIndex) and its own size.
type rangeBind struct {
	res          *resource
	key, span    uint64
	size, offset uint64
	mem          *allocation
	track        track
	heap         uint8 // the heap the bytes were added to
	leaked       bool  // reported by Leaks
	mark         uint64
}

func (b *rangeBind) end() uint64    { return addSat(b.key, b.span) }
func (b *rangeBind) memEnd() uint64 { return addSat(b.offset, b.size) }

// rangeSet is what a resource with range binds has.
type rangeSet struct {
	ranges  []*rangeBind           // sorted by key
	regions map[ImageRegion]uint64 // image regions' keys, numbered as first bound
}

// ranges returns r's range set, creating it.
func (r *resource) ranges() *rangeSet {
	if r.rs == nil {
		r.rs = &rangeSet{}
	}
	return r.rs
}

// SparseBound records one VkSparseMemoryBind of a sparse buffer or an opaque
// image range (vkQueueBindSparse, once it returned VK_SUCCESS): resource
// bytes [resourceOffset, resourceOffset+size) now live in memory at
// memoryOffset, replacing whatever was bound there; memory 0 unbinds them.
func (e *Engine) SparseBound(dev uint64, kind ResourceKind, handle, resourceOffset, size, memory, memoryOffset uint64) {
	e.lock()
	defer e.unlock()
	d, r := e.rangeTarget(dev, kind, handle)
	if r == nil || size == 0 {
		return
	}
	var a *allocation
	if memory != 0 {
		a = e.findOrPlaceholder(d, memory)
	}
	e.replace(r, resourceOffset, size, size, a, memoryOffset)
}

// ImageRegion is where a VkSparseImageMemoryBind binds: the subresource
// (aspect, mip level, array layer) and the texel offset.
type ImageRegion struct {
	Aspect, MipLevel, ArrayLayer uint32
	X, Y, Z                      int32
}

// regionKeys is where the keys of image region binds start: above every
// byte offset of an opaque range, so the two never overlap.
const regionKeys = 1 << 63

// SparseImageBound records one VkSparseImageMemoryBind of a sparse-residency
// image: size bytes (its sparse blocks times the block size, which the layer
// asks the driver for) of memory at memoryOffset back region, replacing an
// earlier bind of the same region; memory 0 unbinds it. Regions are told
// apart by subresource and offset: a region bound at another offset that
// overlaps an earlier one is counted beside it.
func (e *Engine) SparseImageBound(dev, image uint64, region ImageRegion, size, memory, memoryOffset uint64) {
	e.lock()
	defer e.unlock()
	d, r := e.rangeTarget(dev, KindImage, image)
	if r == nil {
		return
	}
	rs := r.ranges()
	key, ok := rs.regions[region]
	if !ok {
		if rs.regions == nil {
			rs.regions = map[ImageRegion]uint64{}
		}
		key = regionKeys + uint64(len(rs.regions))
		rs.regions[region] = key
	}
	var a *allocation
	switch {
	case memory == 0:
	case size == 0:
		e.stats.DroppedBinds++ // the driver told no block size
		return
	default:
		a = e.findOrPlaceholder(d, memory)
	}
	e.replace(r, key, 1, size, a, memoryOffset)
}

// VideoSessionCreated records a successful vkCreateVideoSessionKHR, with
// the sink's descriptor of its call site (AllocationEvent.Site); the
// session is destroyed with ResourceDestroyed(dev, KindVideoSession, ...).
func (e *Engine) VideoSessionCreated(dev, session uint64, site uint32) {
	e.resourceCreated(dev, resKey{KindVideoSession, session}, 0, false, 0, 0, site)
}

// VideoSessionBound records one VkBindVideoSessionMemoryInfoKHR of a
// successful vkBindVideoSessionMemoryKHR: size bytes of memory at offset
// back the session's binding bindIndex.
func (e *Engine) VideoSessionBound(dev, session uint64, bindIndex uint32, memory, offset, size uint64) {
	e.lock()
	defer e.unlock()
	d, r := e.rangeTarget(dev, KindVideoSession, session)
	if r == nil {
		return
	}
	if memory == 0 || size == 0 {
		e.stats.InvalidCalls++
		return
	}
	e.replace(r, uint64(bindIndex), 1, size, e.findOrPlaceholder(d, memory), offset)
}

// rangeTarget returns the known resource range binds go to with its
// device, or a nil resource (counted as a dropped bind).
func (e *Engine) rangeTarget(dev uint64, kind ResourceKind, handle uint64) (*device, *resource) {
	d := e.devices[dev]
	var r *resource
	if d != nil {
		r = d.resources.At(resKey{kind, handle})
	}
	if r == nil || r.swapchain != 0 {
		e.stats.DroppedBinds++
		return d, nil
	}
	return d, r
}

// replace binds resource space [key, key+span) to a at off (size bytes),
// or unbinds it when a is nil. A range it overlaps keeps its part before
// key in place (a BIND with the smaller size) and its part after the space
// as a range of its own; a range with nothing before key goes. Bytes leave
// before new ones come, so no counter overshoots; rebinding what is bound
// changes nothing.
func (e *Engine) replace(r *resource, key, span, size uint64, a *allocation, off uint64) {
	hi := addSat(key, span)
	var old []*rangeBind
	// The ranges do not overlap, so their ends are sorted like their keys:
	// the overlapped ones start at the first that ends after key.
	list := r.ranges().ranges
	i, _ := slices.BinarySearchFunc(list, key, func(b *rangeBind, k uint64) int {
		if b.end() <= k {
			return -1
		}
		return 1
	})
	for _, b := range list[i:] {
		if b.key >= hi {
			break
		}
		if a != nil && b.key == key && b.span == span && b.size == size && b.mem == a && b.offset == off {
			return
		}
		old = append(old, b)
	}
	for _, b := range old {
		end := b.end()
		if b.key < key {
			e.shrinkRange(b, key-b.key)
		} else {
			e.unbindRange(b)
		}
		if end > hi {
			e.bindRange(r, hi, end-hi, end-hi, b.mem, addSat(b.offset, hi-b.key))
		}
	}
	if a != nil {
		e.bindRange(r, key, span, size, a, off)
	}
}

// shrinkRange keeps the first n bytes of a sparse range.
func (e *Engine) shrinkRange(b *rangeBind, n uint64) {
	a := b.mem
	a.ranges = deleteRange(a.ranges, b)
	e.sub(b.track, b.heap, b.size-n)
	a.bound -= b.memEnd() - addSat(b.offset, n) // within its old bytes: no new overlap
	b.span, b.size = n, n
	a.ranges = insertRange(a.ranges, b)
	e.recomputeUnbound(a)
	e.emitRange(b, OpBind)
}

// insertRange and deleteRange keep an allocation's ranges sorted by
// (offset, end).
func insertRange(list []*rangeBind, b *rangeBind) []*rangeBind {
	i, _ := slices.BinarySearchFunc(list, b, cmpRange)
	return slices.Insert(list, i, b)
}

func deleteRange(list []*rangeBind, b *rangeBind) []*rangeBind {
	i, _ := slices.BinarySearchFunc(list, b, cmpRange)
	for ; i < len(list) && list[i].offset == b.offset; i++ {
		if list[i] == b {
			return slices.Delete(list, i, i+1)
		}
	}
	return list
}

// rangesOverlap reports whether [off, end) overlaps the ranges of list
// (sorted) beside its place.
func rangesOverlap(list []*rangeBind, off, end uint64) bool {
	i, _ := slices.BinarySearchFunc(list, off, func(b *rangeBind, off uint64) int { return cmp.Compare(b.offset, off) })
	return i > 0 && list[i-1].memEnd() > off || i < len(list) && list[i].offset < end
}

func cmpRange(x, y *rangeBind) int {
	return cmp.Or(cmp.Compare(x.offset, y.offset), cmp.Compare(x.memEnd(), y.memEnd()))
}

func (e *Engine) bindRange(r *resource, key, span, size uint64, a *allocation, off uint64) {
	b := &rangeBind{res: r, key: key, span: span, size: size, mem: a, offset: off,
		track: trackOf(a.driver, r.cluster(a.flags)), heap: a.heap}
	rs := r.ranges()
	i, _ := slices.BinarySearchFunc(rs.ranges, key, func(x *rangeBind, k uint64) int { return cmp.Compare(x.key, k) })
	rs.ranges = slices.Insert(rs.ranges, i, b)
	a.addBound(off, b.memEnd())
	a.ranges = insertRange(a.ranges, b)
	e.add(b.track, b.heap, size)
	e.recomputeUnbound(a)
	e.emitRange(b, OpBind)
}

// unbindRange removes a range with its sub-allocation.
func (e *Engine) unbindRange(b *rangeBind) {
	a := b.mem
	a.ranges = deleteRange(a.ranges, b)
	a.bound -= b.memEnd() - b.offset // meaningful only without overlap
	e.dropRange(b)
	e.recomputeUnbound(a)
}

// dropRange reports a range's end and removes it from its resource, leaving
// the allocation's range list to the caller.
func (e *Engine) dropRange(b *rangeBind) {
	e.sub(b.track, b.heap, b.size)
	e.emitRange(b, OpDestroy)
	rs := b.res.rs
	i, _ := slices.BinarySearchFunc(rs.ranges, b.key, func(x *rangeBind, k uint64) int { return cmp.Compare(x.key, k) })
	for ; i < len(rs.ranges) && rs.ranges[i].key == b.key; i++ {
		if rs.ranges[i] == b {
			rs.ranges = slices.Delete(rs.ranges, i, i+1)
			break
		}
	}
}

// reclassifyRange moves a range to the track and heap its memory now gives.
func (e *Engine) reclassifyRange(b *rangeBind) {
	t := trackOf(b.mem.driver, b.res.cluster(b.mem.flags))
	if t == b.track && b.heap == b.mem.heap {
		return
	}
	e.sub(b.track, b.heap, b.size)
	e.emitRange(b, OpDestroy)
	b.track, b.heap = t, b.mem.heap
	e.add(t, b.heap, b.size)
	e.emitRange(b, OpBind)
}

func (e *Engine) emitRange(b *rangeBind, op Operation) {
	e.emit(rangeEvent(b, op))
}

func rangeEvent(b *rangeBind, op Operation) AllocationEvent {
	return AllocationEvent{
		Operation: op, Source: b.res.key.kind.source(), Device: b.mem.dev.key, MemoryObjectID: b.mem.key.id,
		Size: b.size, Offset: b.offset, ObjectHandle: b.res.key.handle, MemoryType: b.track.cluster().String(),
		Cluster: b.track.cluster(), Heap: uint32(b.heap), Mark: &b.mark, Range: b.key < regionKeys, Key: b.key, TypeIndex: b.mem.typeIndex, HasTypeIndex: b.mem.hasType, Desc: b.res.desc, Site: b.res.site,
	}
}
