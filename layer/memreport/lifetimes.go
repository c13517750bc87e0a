package memreport

import (
	"maps"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/vkgen/vkgen/generated"
	"github.com/vkgen/vkgen/internal/hashmap"
	"github.com/vkgen/vkgen/layer/memreport/accounting"
	"github.com/vkgen/vkgen/objectnames"
	"github.com/vkgen/vkgen/perfetto"
)

// lifetimes turns the engine's CREATE/BIND ... DESTROY events into Perfetto
// slices on lanes: a track holds one allocation's or binding's lifetime at a
// time (lifetimes overlap, so open ones cannot share a track) and the next
// lifetime of its kind once that one ended, under a group track per device
// and one per heap of that device. A trace of a million short-lived buffers
// then has as many tracks as buffers were ever alive at once, not a million.
// The slice is named by the object's name; a rename ends the slice and
// begins one with the new name on the same lane at the same timestamp, so
// the slices span the lifetime exactly. A lane holds many lifetimes, so
// every begin carries a "lifetime" annotation, a number unique in the
// process, that groups the slices of one lifetime.
//
// A begin takes the object's name from the name store, under the name's
// shard lock (objectnames.Store.WithName), and a rename (published under
// that lock) ends and begins the open slices: a slice never starts with a
// name the store has already replaced.
//
// Lock order: the engine's lock (the trace sink calls in with the engine
// locked), then the name store's shard lock, then lt.mu. lt never calls the
// engine, nor the store while holding mu.
type lifetimes struct {
	mu      sync.Mutex
	anyOpen atomic.Bool // len(open) > 0, read without mu; stored only when it changes
	open    hashmap.Map[liveKey, liveSlice]
	// ranged lists the keys of an object's open range binds (sparse
	// ranges, video session bindings) by its key without them, for renames.
	ranged hashmap.Map[liveKey, []uint64]
	// devices maps a device key to its VkDevice (track names, name
	// lookups): copy-on-write under mu, read without it.
	devices atomic.Pointer[map[uint64]uintptr]
	names   *objectnames.Store // set by the state; nil: slices are not named
	groups  hashmap.Map[groupKey, []perfetto.GroupTrack]
	// free holds the lanes no lifetime holds, by device, heap and kind
	// (a lane keeps its parent and name).
	free hashmap.Map[laneKey, []uint64]
	// The groups groupsLocked returned last (nil: none): consecutive
	// events nearly always share a device and heap.
	lastGroup  groupKey
	lastGroups []perfetto.GroupTrack
	// planes counts the open lifetimes of image planes other than 0
	// (disjoint images): without any, a rename looks up plane 0 alone.
	planes int
	key    func(uintptr) uint64
	next   uint64 // the last lifetime number
	lanes  uint64 // lanes made so far
}

// liveKey is an allocation (src DEVICE_MEMORY or DRIVER, id its
// memory_object_id) or a binding (src BUFFER, IMAGE or VIDEO_SESSION, id the
// handle, and the plane of a disjoint image or the key of a range bind).
type liveKey struct {
	dev   uint64
	src   accounting.Source
	id    uint64
	plane uint8
	key   uint64
}

type nameKey struct {
	dev    uint64
	typ    generated.ObjectType
	handle uint64
}

type groupKey struct {
	dev  uint64
	heap uint32
}

// laneKey is what a lane's tracks share: the group (device, heap) they are
// under and the kind of object they are named for.
type laneKey struct {
	groupKey
	src accounting.Source
}

func (k liveKey) Hash() uint64 {
	return hashmap.Mix(k.dev ^ hashmap.Mix(k.id^uint64(k.src)<<56^uint64(k.plane)<<48) ^ k.key)
}
func (k nameKey) Hash() uint64  { return hashmap.Mix(k.dev ^ hashmap.Mix(k.handle^uint64(k.typ)<<32)) }
func (k groupKey) Hash() uint64 { return hashmap.Mix(k.dev ^ uint64(k.heap)<<52) }
func (k laneKey) Hash() uint64  { return hashmap.Mix(k.dev ^ uint64(k.heap)<<52 ^ uint64(k.src)<<44) }

// liveSlice is an open lifetime: what its next begin needs.
type liveSlice struct {
	track    uint64 // the lane
	lane     laneKey
	lifetime uint64  // the slices' "lifetime" annotation
	name     nameKey // where renames come from (typ 0: never named)
	handle   uint64  // named by while unnamed
	src      accounting.Source
	stack    perfetto.Callstack    // where the object was made (callstack.go), 0: unknown
	desc     uint32                // the object's descriptor number (descriptors)
	groups   []perfetto.GroupTrack // device, heap
}

// newLifetimes returns empty state; the layer's state sets key (VkDevice to
// device key) before any name arrives.
func newLifetimes() *lifetimes {
	lt := &lifetimes{}
	lt.devices.Store(&map[uint64]uintptr{})
	return lt
}

func liveKeyOf(ev *accounting.AllocationEvent) liveKey {
	switch ev.Source {
	case accounting.SourceBuffer, accounting.SourceImage, accounting.SourceVideoSession:
		return liveKey{ev.Device, ev.Source, ev.ObjectHandle, ev.Plane, ev.Key}
	}
	return liveKey{ev.Device, ev.Source, ev.MemoryObjectID, 0, 0}
}

// nameKeyOf is where an event's object gets its name; typ 0 for driver
// allocations, which have none.
func nameKeyOf(ev *accounting.AllocationEvent) nameKey {
	if int(ev.Source) < len(namedTypes) && namedTypes[ev.Source] != 0 {
		return nameKey{ev.Device, namedTypes[ev.Source], ev.ObjectHandle}
	}
	return nameKey{}
}

// namedTypes are the object types of the sources whose objects have names
// (0: none, driver allocations).
var namedTypes = [...]generated.ObjectType{
	accounting.SourceDeviceMemory: generated.ObjectTypeDeviceMemory, accounting.SourceImage: generated.ObjectTypeImage,
	accounting.SourceBuffer: generated.ObjectTypeBuffer, accounting.SourceVideoSession: generated.ObjectTypeVideoSessionKHR,
}

// trackNames are the object tracks' names by source: the UI shows the
// tracks of one heap with the same name as one track.
var trackNames = [...]string{
	accounting.SourceDriver: "driver", accounting.SourceDeviceMemory: "VkDeviceMemory",
	accounting.SourceImage: "VkImage", accounting.SourceBuffer: "VkBuffer",
	accounting.SourceVideoSession: "VkVideoSessionKHR",
}

// slice updates the open lifetimes for a live CREATE, BIND or DESTROY and
// puts its slice events in sl, returning how many (0: none, e.g. a DESTROY
// of nothing open). A CREATE or BIND of an object already open (the driver
// reported an allocation again) continues on a lane of the heap it reports:
// the open slice is ended first.
func (lt *lifetimes) slice(ev *accounting.AllocationEvent, sl *[2]perfetto.Slice) int {
	if !lt.anyOpen.Load() && !perfetto.Enabled() {
		// Untraced: nothing to end, nothing to begin. A session that starts
		// later begins the live objects' slices in its replay (current).
		return 0
	}
	switch ev.Operation {
	case accounting.OpCreate, accounting.OpBind:
		b, ended := lt.begin(ev, true)
		if ended == 0 {
			sl[0] = b
			return 1
		}
		sl[0], sl[1] = perfetto.Slice{Op: perfetto.SliceEnd, Track: ended}, b
		return 2
	case accounting.OpDestroy:
		k := liveKeyOf(ev)
		lt.mu.Lock()
		defer lt.mu.Unlock()
		ls, open := lt.open.Get(k)
		if !open {
			return 0
		}
		lt.closeLocked(k, &ls)
		sl[0] = perfetto.Slice{Op: perfetto.SliceEnd, Track: ls.track}
		return 1
	}
	return 0
}

// current puts in sl the begin of an object for a session-start replay
// (its open lifetime's, or a new lifetime's when it was created untraced)
// and returns 1; 0 for events that begin nothing.
func (lt *lifetimes) current(ev *accounting.AllocationEvent, sl *[2]perfetto.Slice) int {
	if ev.Operation != accounting.OpCreate && ev.Operation != accounting.OpBind {
		return 0
	}
	sl[0], _ = lt.begin(ev, false)
	return 1
}

// begin returns the slice begin of ev's lifetime, opened unless it is open,
// named from the store under its lock for the name. again: ev reports an
// open lifetime again (the driver's ALLOCATE for a live key), which
// continues under the heap reported now: its open slice ends on the lane
// returned as ended (0: none), which it leaves for one of that heap when
// the heap changed.
func (lt *lifetimes) begin(ev *accounting.AllocationEvent, again bool) (b perfetto.Slice, ended uint64) {
	k := liveKeyOf(ev)
	lt.withName(nameKeyOf(ev), func(name string) {
		lt.mu.Lock()
		defer lt.mu.Unlock()
		ls, ok := lt.open.Get(k)
		switch {
		case !ok:
			ls = lt.openLocked(k, ev)
		case again:
			ended = ls.track
			if lane := (laneKey{groupKey{ev.Device, ev.Heap}, ls.src}); lane != ls.lane {
				lt.release(ls.lane, ls.track)
				ls.lane, ls.track = lane, lt.take(lane)
				ls.groups = lt.groupsLocked(ev.Device, ev.Heap)
				lt.open.Set(k, ls)
			}
		}
		b = lt.beginLocked(&ls, name)
	})
	return b, ended
}

// take returns a free lane of lane's kind, or a new one; under mu.
func (lt *lifetimes) take(lane laneKey) uint64 {
	if free := lt.free.At(lane); len(free) > 0 {
		lt.free.Set(lane, free[:len(free)-1])
		return free[len(free)-1]
	}
	lt.lanes++
	return lt.lanes // perfetto makes the lane's uuid of it
}

// release makes a lane free for the next lifetime of its kind; under mu.
func (lt *lifetimes) release(lane laneKey, track uint64) {
	lt.free.Set(lane, append(lt.free.At(lane), track))
}

// withName calls f with the name of nk's object, under its store lock.
func (lt *lifetimes) withName(nk nameKey, f func(name string)) {
	if nk.typ == 0 || lt.names == nil {
		f("")
		return
	}
	lt.names.WithName(uint64(lt.device(nk.dev)), nk.typ, nk.handle, f)
}

// device is the VkDevice of a device key: a device the layer did not see
// created is keyed by its handle with the top bit set (state.key).
func (lt *lifetimes) device(dev uint64) uintptr {
	if d, ok := (*lt.devices.Load())[dev]; ok {
		return d
	}
	if dev&(1<<63) != 0 {
		return uintptr(dev &^ (1 << 63))
	}
	return 0
}

// openLocked starts a lifetime: a free lane and a new lifetime number.
func (lt *lifetimes) openLocked(k liveKey, ev *accounting.AllocationEvent) liveSlice {
	lt.next++
	lane := laneKey{groupKey{ev.Device, ev.Heap}, ev.Source}
	ls := liveSlice{track: lt.take(lane), lane: lane, lifetime: lt.next, name: nameKeyOf(ev), src: ev.Source, desc: ev.Desc}
	ls.handle = ev.ObjectHandle
	if ev.Source == accounting.SourceDriver {
		ls.handle = ev.MemoryObjectID
	}
	ls.groups = lt.groupsLocked(ev.Device, ev.Heap)
	ls.stack = perfetto.Callstack(ev.Site)
	lt.open.Set(k, ls)
	if !lt.anyOpen.Load() {
		lt.anyOpen.Store(true)
	}
	if k.plane != 0 {
		lt.planes++
	}
	if k.key != 0 {
		obj := liveKey{k.dev, k.src, k.id, k.plane, 0}
		lt.ranged.Set(obj, append(lt.ranged.At(obj), k.key))
	}
	return ls
}

// closeLocked ends a lifetime, ls, and frees its lane.
func (lt *lifetimes) closeLocked(k liveKey, ls *liveSlice) {
	lt.release(ls.lane, ls.track)
	lt.open.Delete(k)
	if lt.open.Len() == 0 {
		lt.anyOpen.Store(false)
	}
	if k.plane != 0 {
		lt.planes--
	}
	if k.key != 0 {
		obj := liveKey{k.dev, k.src, k.id, k.plane, 0}
		keys := lt.ranged.At(obj)
		if i := slices.Index(keys, k.key); i >= 0 {
			keys = slices.Delete(keys, i, i+1)
		}
		if len(keys) == 0 {
			lt.ranged.Delete(obj)
		} else {
			lt.ranged.Set(obj, keys)
		}
	}
}

// beginLocked is the begin of an open lifetime's slice: named name, else by
// the object's type and handle (written by the encoder, so no string is
// built), with the object's descriptor.
func (lt *lifetimes) beginLocked(ls *liveSlice, name string) perfetto.Slice {
	d, _ := descs.arg(ls.desc)
	return perfetto.Slice{
		Op: perfetto.SliceBegin, Track: ls.track, Groups: ls.groups, TrackName: trackNames[ls.src],
		Name: name, NameHandle: ls.handle,
		Arg: perfetto.Uint(argLifetime, ls.lifetime), Detail: d, Callstack: ls.stack,
	}
}

// groupsLocked returns the device and heap group tracks, made once.
func (lt *lifetimes) groupsLocked(dev uint64, heap uint32) []perfetto.GroupTrack {
	k := groupKey{dev, heap}
	if lt.lastGroups != nil && lt.lastGroup == k {
		return lt.lastGroups
	}
	if g, ok := lt.groups.Get(k); ok {
		lt.lastGroup, lt.lastGroups = k, g
		return g
	}
	// The VkDevice is part of the uuid: a sequence describes a track once,
	// so a device key reused by another device needs tracks of its own.
	d := perfetto.ProcessTrackUUID() ^ hashmap.Spread(dev|1<<62) ^ hashmap.Spread(uint64(lt.device(dev)))
	g := []perfetto.GroupTrack{
		{UUID: d, Name: "VkDevice 0x" + strconv.FormatUint(uint64(lt.device(dev)), 16)},
		{UUID: d ^ hashmap.Spread(uint64(heap)+1), Parent: d, Name: "heap " + strconv.FormatUint(uint64(heap), 10)},
	}
	lt.groups.Set(k, g)
	lt.lastGroup, lt.lastGroups = k, g
	return g
}

// rename appends to out the renames of the open slices of a name change's
// object of source src (an end and a begin each), which the caller writes.
// It runs under the name's store lock, as the store publishes the change.
func (lt *lifetimes) rename(r objectnames.Record, src accounting.Source, out []perfetto.Slice) []perfetto.Slice {
	if !lt.anyOpen.Load() {
		return out // untraced, or nothing open: no slice to rename
	}
	dev := lt.key(uintptr(r.Device))
	lt.mu.Lock()
	defer lt.mu.Unlock()
	rename := func(k liveKey) {
		if ls, ok := lt.open.Get(k); ok {
			out = append(out, perfetto.Slice{Op: perfetto.SliceEnd, Track: ls.track}, lt.beginLocked(&ls, r.Name))
		}
	}
	planes := uint8(1)
	if lt.planes > 0 {
		planes = 4
	}
	for plane := range planes {
		rename(liveKey{dev, src, r.Handle, plane, 0})
	}
	if lt.ranged.Len() > 0 {
		for _, key := range lt.ranged.At(liveKey{dev, src, r.Handle, 0, 0}) {
			rename(liveKey{dev, src, r.Handle, 0, key})
		}
	}
	return out
}

func (lt *lifetimes) deviceCreated(dev uint64, device uintptr) {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	lt.setDevices(func(m map[uint64]uintptr) { m[dev] = device })
}

// deviceDestroyed forgets the device (its DESTROY events closed its slices
// already), and tells the sessions its group tracks ended.
func (lt *lifetimes) deviceDestroyed(dev uint64) {
	var ended []uint64
	defer func() { perfetto.ForgetGroups(ended...) }() // after mu: sequence locks never nest in it
	lt.mu.Lock()
	defer lt.mu.Unlock()
	lt.setDevices(func(m map[uint64]uintptr) { delete(m, dev) })
	if lt.lastGroup.dev == dev {
		lt.lastGroups = nil
	}
	for k, g := range lt.groups.All() {
		if k.dev == dev {
			lt.groups.Delete(k)
			for _, t := range g { // the device's own comes with each heap: forgotten twice, harmless
				ended = append(ended, t.UUID)
			}
		}
	}
	for k := range lt.free.All() {
		if k.dev == dev {
			lt.free.Delete(k)
		}
	}
}

// setDevices publishes a changed copy of the device map; under mu.
func (lt *lifetimes) setDevices(change func(map[uint64]uintptr)) {
	m := maps.Clone(*lt.devices.Load())
	change(m)
	lt.devices.Store(&m)
}
