package tracesummary

import (
	"cmp"
	"slices"
)

// Operations of VulkanMemoryAllocation.
const (
	opOther  uint8 = iota
	opAdd          // CREATE, BIND
	opRemove       // DESTROY
)

func opOf(s string) uint8 {
	switch s {
	case "CREATE", "BIND":
		return opAdd
	case "DESTROY":
		return opRemove
	}
	return opOther
}

type objKey struct {
	src    uint32
	handle uint64
}

// slot is one allocation or binding of an object (a sparse resource or a
// video session has one per range or binding: key).
type slot struct{ mem, off, key, size uint64 }

// lifetime is a live object, or the name waiting for the object a handle
// will be next (an application names a buffer before binding it).
type lifetime struct {
	name    string
	named   bool // by a VulkanObjectName event, which DebugMarker's raw names do not override
	held    bool // has had a memory event
	created uint64
	slots   []slot
	cur     uint64
	peak    uint64
	clust   uint32
	heap    uint32
	site    uint32 // interned call site, from its first event that has one
	desc    uint32 // the last descriptor its events carried
	bound   bool   // a VkDeviceMemory something was bound in (ClusterAllocation)
	leaked  bool   // reported by a VulkanMemoryLeak event
	// grp is the name or descriptor group it adds into and typ its type's;
	// key is grp's key as asked (grp is OtherNames once groups are full).
	grp, typ *group
	key      groupKey
	// what key was made from: most events change none of them
	kname  string
	kclust uint32
	kpeak  uint64
	ksite  uint32
	kdesc  uint32
}

// objects tracks the live lifetimes by (source, handle) and keeps the top
// finished ones.
type objects struct {
	live  map[objKey]*lifetime
	spare []*lifetime // ended ones, reused: most objects live briefly
	top   int
	kept  pq[Object] // the least important at the root
	total int
	keys  keyCache
	groups
}

func newObjects(top, maxGroups int) objects {
	return objects{live: map[objKey]*lifetime{}, top: top, kept: pq[Object]{less: func(a, b *Object) bool { return order(*a, *b) > 0 }},
		groups: newGroups(maxGroups)}
}

// apply takes one allocation or name event, in time order. A replayed CREATE
// or BIND of a slot already held changes nothing, so a session-start replay
// is idempotent.
func (o *objects) apply(e *event, t0 uint64, strs *interner) {
	k := objKey{e.src, e.handle}
	l := o.live[k]
	if l == nil {
		if e.kind == evAlloc && e.op != opAdd {
			return // the end of a lifetime the trace did not see begin
		}
		if n := len(o.spare); n > 0 {
			l, o.spare = o.spare[n-1], o.spare[:n-1]
		} else {
			l = &lifetime{}
		}
		o.live[k] = l
	}
	switch e.kind {
	case evName:
		l.name, l.named = e.name, true
		o.regroup(l, k, l.cur, strs)
		return
	case evRawName:
		if !l.named {
			l.name = e.name
			o.regroup(l, k, l.cur, strs)
		}
		return
	}
	if l.site == 0 {
		l.site = e.site
	}
	if !l.held {
		l.held, l.created = true, e.ts
		l.typ = o.typeGroup(k.src, strs)
	}
	old := l.cur
	i := slices.IndexFunc(l.slots, func(s slot) bool { return s.mem == e.mem && s.off == e.off && s.key == e.key })
	switch {
	case e.op == opAdd && i < 0:
		l.slots = append(l.slots, slot{e.mem, e.off, e.key, e.size})
	case e.op == opAdd:
		l.slots[i].size = e.size
	case e.op == opRemove && i >= 0:
		l.slots = slices.Delete(l.slots, i, i+1)
	}
	l.cur = 0
	for _, s := range l.slots {
		l.cur += s.size
	}
	l.peak = max(l.peak, l.cur)
	l.clust, l.heap = e.clust, e.heap
	if e.desc != 0 {
		l.desc = e.desc
	}
	o.add(l.typ, int64(l.cur)-int64(old))
	o.regroup(l, k, old, strs)
	if e.op == opRemove && len(l.slots) == 0 {
		o.ended(l.grp, l.typ, k.src, l.clusterID(k, strs), l.heap, strs)
		delete(o.live, k)
		o.keep(l.object(k, t0, int64(e.ts-t0), strs))
		*l = lifetime{slots: l.slots[:0]}
		o.spare = append(o.spare, l)
	}
}

func (l *lifetime) object(k objKey, t0 uint64, destroyed int64, strs *interner) Object {
	return Object{Name: l.name, Type: strs.str(k.src), Handle: k.handle, Bytes: l.peak, Final: l.cur,
		Cluster: l.cluster(k, strs), Descriptor: strs.str(l.desc), Created: l.created - t0, Destroyed: destroyed,
		CallSite: strs.str(l.site)}
}

// ClusterAllocation is the Cluster of a VkDeviceMemory something was bound
// in: its bytes are its resources' (rows of their own) and its unbound
// bytes (Totals, Blocks), where the memory_type of its events says only
// where its unbound bytes counted when they were written (unbound_memory
// at its CREATE). A VkDeviceMemory nothing was bound in keeps its
// memory_type: unbound_memory, or its dedicated resource's cluster.
const ClusterAllocation = "allocation"

// cluster is the lifetime's Cluster.
func (l *lifetime) cluster(k objKey, strs *interner) string { return strs.str(l.clusterID(k, strs)) }

// clusterID is cluster interned in strs.
func (l *lifetime) clusterID(k objKey, strs *interner) uint32 {
	if l.bound && strs.str(k.src) == "DEVICE_MEMORY" {
		return strs.id(ClusterAllocation)
	}
	return l.clust
}

// bound marks the live VkDeviceMemory mem (source id src) as one something
// was bound in.
func (o *objects) bound(src uint32, mem uint64) {
	if l := o.live[objKey{src, mem}]; l != nil {
		l.bound = true
	}
}

// regroup moves a held lifetime whose key changed (a name, a larger size)
// to its new group: what it held before the change (old) leaves the old
// group, what it holds now enters the new one.
func (o *objects) regroup(l *lifetime, k objKey, old uint64, strs *interner) {
	if !l.held {
		return
	}
	if l.grp != nil && l.kname == l.name && l.kclust == l.clust && l.kpeak == l.peak && l.ksite == l.site && l.kdesc == l.desc {
		o.add(l.grp, int64(l.cur)-int64(old))
		return
	}
	l.kname, l.kclust, l.kpeak, l.ksite, l.kdesc = l.name, l.clust, l.peak, l.site, l.desc
	var key groupKey
	var grp *group
	var in keyInputs
	var c *cachedKey
	if l.name == "" {
		in = keyInputs{l.site, l.desc, k.src, l.clust, l.peak}
		if c = o.keys.slot(in); c.grp != nil && c.in == in {
			key, grp = c.grp.groupKey, c.grp
		}
	}
	if grp == nil {
		key = objectKey(l.name, strs.str(l.site), strs.str(l.desc), strs.str(k.src), strs.str(l.clust), l.peak)
	}
	if l.grp != nil && key == l.key {
		o.add(l.grp, int64(l.cur)-int64(old))
		return
	}
	if grp == nil {
		grp = o.get(key)
		if c != nil && grp.groupKey == key { // not folded into OtherNames, which counts each time
			c.in, c.grp = in, grp
		}
	}
	o.add(l.grp, -int64(old))
	l.key, l.grp = key, grp
	o.add(l.grp, int64(l.cur))
}

// keyCache holds the groups of recent unnamed objects by what their keys
// are made of: such objects come from a few call sites and sizes, and most
// then build no key string and look up no string in the groups.
type keyCache [64]cachedKey

type cachedKey struct {
	in  keyInputs
	grp *group
}

// keyInputs are what objectKey makes an unnamed object's key of.
type keyInputs struct {
	site, desc, src, clust uint32
	bytes                  uint64
}

func (c *keyCache) slot(in keyInputs) *cachedKey {
	h := (uint64(in.site)<<40 ^ uint64(in.desc)<<20 ^ uint64(in.src)<<10 ^ uint64(in.clust) ^ in.bytes) * 0x9e3779b97f4a7c15
	return &c[h>>58]
}

// keep counts a finished object and keeps it if it is among the top.
func (o *objects) keep(ob Object) {
	o.total++
	switch {
	case o.top <= 0 || len(o.kept.s) < o.top:
		o.kept.push(ob)
	case order(ob, o.kept.s[0]) < 0:
		o.kept.replaceTop(ob)
	}
}

// leaked marks the live lifetime of k, if any, as reported by a leak event.
func (o *objects) leaked(k objKey) {
	if l := o.live[k]; l != nil {
		l.leaked = true
	}
}

// finish ends the objects still alive and returns the kept ones in display
// order with the total count, and every object that still held memory at
// end (ns since t0) without a leak event: what a process that ended without
// teardown (a signal, SIGKILL, _exit) or a recording that stopped first left
// behind, largest first.
func (o *objects) finish(t0, end uint64, strs *interner) ([]Object, int, []Leak) {
	var alive []Leak
	for k, l := range o.live {
		if !l.held {
			continue
		}
		ob := l.object(k, t0, -1, strs)
		o.keep(ob)
		o.ended(l.grp, l.typ, k.src, l.clusterID(k, strs), l.heap, strs)
		if l.cur > 0 && !l.leaked {
			alive = append(alive, Leak{Name: ob.Name, Type: ob.Type, Handle: k.handle, Bytes: l.cur, Cluster: ob.Cluster, Heap: l.heap, At: AtEndOfTrace, Time: end,
				Descriptor: ob.Descriptor, CallSite: ob.CallSite})
		}
	}
	out := o.kept.s
	slices.SortFunc(out, order)
	slices.SortFunc(alive, func(a, b Leak) int {
		return cmp.Or(cmp.Compare(b.Bytes, a.Bytes), cmp.Compare(a.Type, b.Type), cmp.Compare(a.Handle, b.Handle))
	})
	return out, o.total, alive
}

// order is the display order: most bytes first, then type, handle and time.
func order(a, b Object) int {
	return cmp.Or(cmp.Compare(b.Bytes, a.Bytes), cmp.Compare(a.Type, b.Type), cmp.Compare(a.Handle, b.Handle), cmp.Compare(a.Created, b.Created))
}
