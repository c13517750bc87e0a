package tracesummary

import (
	"slices"
	"strconv"
)

// Totals is what the device memory of a heap (or of every heap) held at one
// moment, each byte counted once:
//
//   - Allocated: the application's VkDeviceMemory (DEVICE_MEMORY objects);
//   - Driver: the driver's internal allocations (DRIVER objects);
//   - Bound: the bytes of Allocated that at least one buffer, image or
//     video session binding covers (the union of the bound ranges, cut at
//     the allocation's end): a byte two resources alias counts once;
//   - Unbound: Allocated minus Bound (free space and alignment holes of
//     the blocks; a dedicated allocation's padding past its resource too);
//   - Aliased: the bytes of Bound that two or more bindings cover;
//   - Resources: the sum of the bound resources' sizes, as the usage
//     cluster counters count them (each binding in full, so an aliased byte
//     counts once per resource): the app cluster counters add up to
//     Unbound + Resources, which exceeds Allocated by the aliasing.
type Totals struct {
	Heap      string `json:"heap"` // the heap index, or "all"
	Allocated Bytes  `json:"allocated_bytes"`
	Driver    Bytes  `json:"driver_bytes"`
	Bound     Bytes  `json:"bound_bytes"`
	Unbound   Bytes  `json:"unbound_bytes"`
	Aliased   Bytes  `json:"aliased_bytes"`
	Resources Bytes  `json:"resource_bytes"`
	// Blocks counts the live VkDeviceMemory objects.
	Blocks int `json:"blocks"`
}

// HeapTotals are a heap's (or every heap's) totals at its peak and at the
// end of the trace. The peak is the moment (the state after every event of
// a timestamp) Allocated + Driver stood at its maximum, and of those the one
// the most bytes were bound in (by the bindings' own heap, summed as the
// clusters do), the last of those: a program that allocates, binds, then
// destroys before it frees holds its most memory from the allocation to
// the first free, and the moment everything was bound in it says the
// most.
type HeapTotals struct {
	Heap   string `json:"heap"`
	Peak   Totals `json:"peak"`
	PeakNS uint64 `json:"peak_ns"` // since the first event
	Final  Totals `json:"final"`
}

// AllHeaps is the Heap of the totals over every heap.
const AllHeaps = "all"

// tally is a heap's running totals.
type tally struct {
	allocated, driver, bound, aliased, resources Bytes
	blocks                                       int
	// binds sums the sizes of the bindings by their events' heap: the
	// peak's second key, which the SQL module can keep as a running sum.
	binds Bytes
}

func (t tally) totals(heap string) Totals {
	return Totals{Heap: heap, Allocated: t.allocated, Driver: t.driver, Bound: t.bound, Unbound: t.allocated.Minus(t.bound),
		Aliased: t.aliased, Resources: t.resources, Blocks: t.blocks}
}

// held is what a tally's peak compares first: the memory the device holds.
func (t tally) held() Bytes { return t.allocated.Plus(t.driver) }

// atLeast reports whether t is a peak at least as high as p (see
// HeapTotals).
func (t tally) atLeast(p tally) bool {
	th, ph := t.held(), p.held()
	return ph.Less(th) || th == ph && !t.binds.Less(p.binds)
}

// heapState is one heap's running tally and its peak.
type heapState struct {
	cur, peak tally
	peakTS    uint64
	seen      bool // a peak was taken
}

// memory follows the device memory blocks and what is bound in them, for
// the totals and the blocks section.
type memory struct {
	blocks  map[blockKey]*block
	heaps   map[uint32]*heapState
	all     heapState
	dirty   bool // a change since the last settle
	ts      uint64
	maxKept int
	kept    []Block   // the largest blocks ended (or their layouts), bounded
	strs    *interner // the summary's: sources and descriptors
	spare   []*block  // freed blocks, reused: most live briefly
}

type blockKey struct {
	driver bool
	mem    uint64
}

// block is a live VkDeviceMemory (or driver allocation) and its bindings.
type block struct {
	created    bool // its CREATE was seen (else only binds so far)
	heap, desc uint32
	size       uint64
	binds      []binding
	index      map[bindKey]int // binds by key
	cover      coverage        // the bound ranges, cut at size
	res        Bytes
	// fullest is its layout when the most bytes were first bound in it,
	// copied from binds only before a change that may lower them
	// (pending until then), so a block filling up costs no copy per bind.
	fullest     []binding
	fullestAt   uint64
	fullestSize uint64
	pending     bool
	createdAt   uint64
}

type bindKey struct {
	src                 uint32
	handle, off, rangeK uint64
}

// binding is one bound range of a block.
type binding struct {
	src       uint32
	handle    uint64
	key       uint64 // sparse resource offset or video binding index
	off, size uint64
	desc      uint32
	heap      uint32 // its event's
	name      string
}

func newMemory(maxBlocks int, strs *interner) memory {
	return memory{blocks: map[blockKey]*block{}, heaps: map[uint32]*heapState{}, maxKept: maxBlocks, strs: strs}
}

// apply takes one allocation event of source src (DEVICE_MEMORY, DRIVER or
// a resource's), in time order; name is the bound object's name if known.
func (m *memory) apply(e *event, src string, name string) {
	if e.ts != m.ts {
		m.settle()
		m.ts = e.ts
	}
	m.dirty = true // every event's moment is a candidate peak, as in the SQL module
	switch src {
	case "DEVICE_MEMORY", "DRIVER":
		m.allocation(e, src == "DRIVER")
	case "BUFFER", "IMAGE", "VIDEO_SESSION":
		m.bind(e, name)
	}
}

func (m *memory) heap(h uint32) *heapState {
	s := m.heaps[h]
	if s == nil {
		s = &heapState{}
		m.heaps[h] = s
	}
	return s
}

// change applies f to the tallies of heap h and of every heap.
func (m *memory) change(h uint32, f func(t *tally)) {
	f(&m.heap(h).cur)
	f(&m.all.cur)
}

func (m *memory) allocation(e *event, driver bool) {
	k := blockKey{driver, e.mem}
	b := m.blocks[k]
	switch e.op {
	case opAdd:
		if b == nil {
			b = m.newBlock()
			m.blocks[k] = b
		}
		if b.created && b.size == e.size && b.heap == e.heap {
			return // a replay, or the driver's report again
		}
		m.account(k, b, -1)
		b.freeze()
		size := b.size
		b.created, b.size, b.heap, b.createdAt = true, e.size, e.heap, e.ts
		if e.desc != 0 {
			b.desc = e.desc
		}
		if size != b.size {
			b.cover = coverage{}
			for _, x := range b.binds {
				lo, hi := b.clip(x)
				b.cover.add(lo, hi, 1)
			}
		}
		m.account(k, b, 1)
		b.record(e.ts)
	case opRemove:
		if b == nil {
			return
		}
		m.account(k, b, -1)
		m.keep(k, b)
		delete(m.blocks, k)
		m.free(b)
	}
}

func (m *memory) newBlock() *block {
	if n := len(m.spare); n > 0 {
		b := m.spare[n-1]
		m.spare = m.spare[:n-1]
		return b
	}
	return &block{}
}

// free keeps b's storage for the next block (a few, at most).
func (m *memory) free(b *block) {
	if len(m.spare) >= 64 {
		return
	}
	clear(b.index)
	*b = block{binds: b.binds[:0], index: b.index, cover: coverage{runs: b.cover.runs[:0]}, fullest: b.fullest[:0]}
	m.spare = append(m.spare, b)
}

// account adds (sign 1) or removes (-1) a block's bytes from the tallies.
func (m *memory) account(k blockKey, b *block, sign int) {
	if !b.created {
		return
	}
	m.change(b.heap, func(t *tally) {
		add := func(x *Bytes, n Bytes) {
			if sign > 0 {
				*x = x.Plus(n)
			} else {
				*x = x.Minus(n)
			}
		}
		if k.driver {
			add(&t.driver, BytesOf(b.size))
			return
		}
		add(&t.allocated, BytesOf(b.size))
		add(&t.bound, BytesOf(b.cover.bound))
		add(&t.aliased, BytesOf(b.cover.alias))
		add(&t.resources, b.res)
		t.blocks += sign
	})
}

func (m *memory) bind(e *event, name string) {
	k := blockKey{false, e.mem}
	b := m.blocks[k]
	if b == nil {
		if e.op != opAdd {
			return
		}
		b = m.newBlock() // bound before its CREATE: a placeholder until then
		m.blocks[k] = b
	}
	bk := bindKey{e.src, e.handle, e.off, e.key}
	i, ok := b.find(bk)
	if e.op == opAdd && ok && b.binds[i].size == e.size && b.binds[i].heap == e.heap || e.op != opAdd && !ok {
		return // a replay, or the end of a binding the trace did not see begin
	}
	m.account(k, b, -1)
	if ok { // unbound, or bound again with another size or heap
		b.freeze()
		x := b.binds[i]
		m.change(x.heap, func(t *tally) { t.binds = t.binds.Minus(BytesOf(x.size)) })
		b.res = b.res.Minus(BytesOf(x.size))
		lo, hi := b.clip(x)
		b.cover.add(lo, hi, -1)
		last := len(b.binds) - 1
		b.binds[i] = b.binds[last]
		b.binds = b.binds[:last]
		switch {
		case len(b.binds) < indexLen: // found by scans again; indexed anew when many
			clear(b.index)
		case i < last:
			b.index[bindKeyOf(b.binds[i])] = i
			delete(b.index, bk)
		default:
			delete(b.index, bk)
		}
	}
	if e.op == opAdd {
		x := binding{src: e.src, handle: e.handle, key: e.key, off: e.off, size: e.size, desc: e.desc, heap: e.heap, name: name}
		b.binds = append(b.binds, x)
		b.indexed(bk, len(b.binds)-1)
		m.change(x.heap, func(t *tally) { t.binds = t.binds.Add(x.size) })
		b.res = b.res.Add(x.size)
		lo, hi := b.clip(x)
		b.cover.add(lo, hi, 1)
	}
	m.account(k, b, 1)
	b.record(e.ts)
}

func bindKeyOf(x binding) bindKey { return bindKey{x.src, x.handle, x.off, x.key} }

// indexLen is how many bindings a block has before they are indexed by
// key: fewer are found faster by a scan.
const indexLen = 16

// find returns the index of the binding of key k.
func (b *block) find(k bindKey) (int, bool) {
	if b.index != nil && len(b.binds) >= indexLen {
		i, ok := b.index[k]
		return i, ok
	}
	for i := range b.binds {
		if bindKeyOf(b.binds[i]) == k {
			return i, true
		}
	}
	return 0, false
}

// indexed records that binds[i] has key k, indexing them all once they
// are many.
func (b *block) indexed(k bindKey, i int) {
	switch {
	case len(b.binds) < indexLen:
	case len(b.index) == 0:
		if b.index == nil {
			b.index = make(map[bindKey]int, len(b.binds))
		}
		for j := range b.binds {
			b.index[bindKeyOf(b.binds[j])] = j
		}
	default:
		b.index[k] = i
	}
}

// clip is x's range cut at the block's end.
func (b *block) clip(x binding) (lo, hi uint64) {
	return min(x.off, b.size), min(satAdd(x.off, x.size), b.size)
}

// record notes the block's bound bytes after a change at ts: a new most
// makes the current layout the fullest (copied later, by freeze).
func (b *block) record(ts uint64) {
	if b.created && b.cover.bound > b.fullestSize {
		b.fullestSize, b.fullestAt, b.pending = b.cover.bound, ts, true
	}
}

// freeze copies the layout that is the fullest before it changes.
func (b *block) freeze() {
	if b.pending {
		b.fullest, b.pending = append(b.fullest[:0], b.binds...), false
	}
}

// fullestLayout is the bindings of the fullest layout.
func (b *block) fullestLayout() []binding {
	if b.pending {
		return b.binds
	}
	return b.fullest
}

// settle takes the peaks after a timestamp's events.
func (m *memory) settle() {
	if !m.dirty {
		return
	}
	m.dirty = false
	take := func(s *heapState) {
		if !s.seen || s.cur.atLeast(s.peak) {
			s.peak, s.peakTS, s.seen = s.cur, m.ts, true
		}
	}
	take(&m.all)
	for _, s := range m.heaps {
		take(s)
	}
}

// totals returns every heap's totals in heap order, then all heaps'.
func (m *memory) totals(t0 uint64) []HeapTotals {
	m.settle()
	var out []HeapTotals
	row := func(name string, s *heapState) HeapTotals {
		return HeapTotals{Heap: name, Peak: s.peak.totals(name), PeakNS: s.peakTS - min(s.peakTS, t0), Final: s.cur.totals(name)}
	}
	heaps := make([]uint32, 0, len(m.heaps))
	for h := range m.heaps {
		heaps = append(heaps, h)
	}
	slices.Sort(heaps)
	for _, h := range heaps {
		out = append(out, row(strconv.FormatUint(uint64(h), 10), m.heaps[h]))
	}
	if len(m.heaps) > 0 {
		out = append(out, row(AllHeaps, &m.all))
	}
	return out
}
