package accounting

import (
	"cmp"
	"maps"
	"slices"
)

// Snapshot replays the current state into sink for a new tracing session:
// first every non-zero counter (in TrackNames order), the non-zero per-heap
// counters when sink is a HeapSink, then for each device
// (ascending key) and each allocation (handle key space first, ascending
// key) a CREATE followed by a BIND per sub-allocation in offset order (slot
// binds, then range binds), then the device's swapchain images (ascending swapchain, in the order they
// became known). Placeholders (memory known only from binds) replay their
// BINDs without a CREATE, exactly as they were reported live. Names are the
// caller's to replay afterwards.
func (e *Engine) Snapshot(sink Sink) {
	if sink == nil {
		return
	}
	e.lock()
	defer e.unlock()
	for t, v := range e.reported {
		if v != 0 {
			sink.Counter(trackNames[t], v)
		}
	}
	e.snapshotHeaps(sink)
	for _, d := range sortedDevices(e.devices) {
		for _, a := range sortedAllocs(d) {
			if a.created {
				sink.Allocation(allocationEvent(a, OpCreate))
			}
			for s := range a.subs.all() {
				sink.Allocation(bindingEvent(s.res, int(s.plane), OpBind))
			}
			for _, b := range a.ranges {
				sink.Allocation(rangeEvent(b, OpBind))
			}
		}
		for _, sc := range slices.Sorted(maps.Keys(d.swapchains)) {
			for _, r := range d.swapchains[sc] {
				sink.Allocation(swapchainEvent(d, r, OpBind))
			}
		}
	}
}

// Total returns the current value of a counter track by name (0 for unknown
// names).
func (e *Engine) Total(trackName string) int64 {
	i := slices.Index(trackNames[:], trackName)
	if i < 0 {
		return 0
	}
	e.lock()
	defer e.unlock()
	return e.reported[i]
}

// Totals returns every non-zero counter track.
func (e *Engine) Totals() map[string]int64 {
	e.lock()
	defer e.unlock()
	m := make(map[string]int64)
	for t, v := range e.reported {
		if v != 0 {
			m[trackNames[t]] = v
		}
	}
	return m
}

// Stats returns the counts of ignored inputs.
func (e *Engine) Stats() Stats {
	e.lock()
	defer e.unlock()
	return e.stats
}

// AllocationInfo describes one tracked allocation (or placeholder).
type AllocationInfo struct {
	Device       uint64
	Space        KeySpace
	ID           uint64 // key within Space
	Placeholder  bool   // known only from binds or memory flags; no CREATE reported
	Driver       bool
	Size         uint64
	MemoryFlags  uint32
	ObjectType   int32
	ObjectHandle uint64
	Unbound      uint64 // bytes applied to UnboundTrack
	UnboundTrack string
	// Info is what vkAllocateMemory said: dedication, import or export.
	Info     MemoryInfo
	Bindings []BindingInfo // in offset order
}

// BindingInfo describes one sub-allocation.
type BindingInfo struct {
	Kind     ResourceKind
	Resource uint64
	Plane    int // 0 unless the image is disjoint
	// Range marks a sparse range or video session binding; Key is its
	// resource offset or memoryBindIndex.
	Range  bool
	Key    uint64
	Offset uint64
	Size   uint64
	Track  string
}

// Allocations returns every tracked allocation in Snapshot order.
func (e *Engine) Allocations() []AllocationInfo {
	e.lock()
	defer e.unlock()
	var out []AllocationInfo
	for _, d := range sortedDevices(e.devices) {
		for _, a := range sortedAllocs(d) {
			info := AllocationInfo{
				Device: d.key, Space: a.key.space, ID: a.key.id, Placeholder: !a.created,
				Driver: a.driver, Size: a.total, MemoryFlags: a.flags,
				ObjectType: a.objectType, ObjectHandle: a.objectHandle,
				Unbound: a.unbound, UnboundTrack: trackNames[a.unboundTrack], Info: a.info,
			}
			for s := range a.subs.all() {
				sl := s.res.at(int(s.plane))
				info.Bindings = append(info.Bindings, BindingInfo{
					Kind: s.res.key.kind, Resource: s.res.key.handle, Plane: int(s.plane),
					Offset: sl.offset, Size: sl.size, Track: trackNames[sl.track],
				})
			}
			for _, b := range a.ranges {
				info.Bindings = append(info.Bindings, BindingInfo{
					Kind: b.res.key.kind, Resource: b.res.key.handle, Range: b.key < regionKeys, Key: b.key,
					Offset: b.offset, Size: b.size, Track: trackNames[b.track],
				})
			}
			out = append(out, info)
		}
	}
	return out
}

// ResourceInfo describes one known buffer or image.
type ResourceInfo struct {
	Usage    uint64
	Disjoint bool
	// Size is the recorded requirement size; for a disjoint image the sum
	// of its plane sizes (saturating).
	Size       uint64
	PlaneSizes [maxPlanes]uint64 // per plane of a disjoint image
	BoundSlots int               // bound planes (or 1 when a whole resource is bound)
	// Ranges and RangeBytes count the range binds (sparse ranges and
	// regions, video session bindings) and their bytes (saturating).
	Ranges     int
	RangeBytes uint64
	// Swapchain is the swapchain whose image this is (Presentable) or
	// whose memory it is bound to.
	Swapchain   uint64
	Presentable bool
}

// Resource returns what the engine knows about a buffer or image.
func (e *Engine) Resource(dev uint64, kind ResourceKind, handle uint64) (ResourceInfo, bool) {
	e.lock()
	defer e.unlock()
	d := e.devices[dev]
	if d == nil {
		return ResourceInfo{}, false
	}
	r := d.resources.At(resKey{kind, handle})
	if r == nil {
		return ResourceInfo{}, false
	}
	info := ResourceInfo{Usage: r.usage, Disjoint: r.disjoint, Swapchain: r.swapchain, Presentable: r.presentable}
	if r.rs != nil {
		info.Ranges = len(r.rs.ranges)
		for _, b := range r.rs.ranges {
			info.RangeBytes = addSat(info.RangeBytes, b.size)
		}
	}
	for i := range r.nslots() {
		s := r.at(i)
		if r.disjoint {
			info.PlaneSizes[i] = s.size
		}
		info.Size = addSat(info.Size, s.size)
		if s.mem != nil {
			info.BoundSlots++
		}
	}
	return info, true
}

// Devices returns the keys of the devices with state, ascending.
func (e *Engine) Devices() []uint64 {
	e.lock()
	defer e.unlock()
	var out []uint64
	for _, d := range sortedDevices(e.devices) {
		out = append(out, d.key)
	}
	return out
}

func sortedDevices(m map[uint64]*device) []*device {
	out := make([]*device, 0, len(m))
	for _, d := range m {
		out = append(out, d)
	}
	slices.SortFunc(out, func(x, y *device) int { return cmp.Compare(x.key, y.key) })
	return out
}

func sortedAllocs(d *device) []*allocation {
	out := make([]*allocation, 0, d.allocs.Len())
	for _, a := range d.allocs.All() {
		out = append(out, a)
	}
	slices.SortFunc(out, func(x, y *allocation) int {
		return cmp.Or(cmp.Compare(x.key.space, y.key.space), cmp.Compare(x.key.id, y.key.id))
	})
	return out
}
