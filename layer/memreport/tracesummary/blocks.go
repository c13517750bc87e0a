package tracesummary

import (
	"cmp"
	"math/bits"
	"slices"
)

// Block is the layout of one VkDeviceMemory: where its resources were
// bound, the holes between them and the ranges two or more of them share
// (aliasing), as Radeon Memory Visualizer shows an allocation. The layout
// is the block's fullest: the first moment the most of its bytes were bound.
type Block struct {
	Handle     uint64 `json:"handle"` // the VkDeviceMemory
	Heap       uint32 `json:"heap"`
	Size       uint64 `json:"size"`
	Descriptor string `json:"descriptor"` // memory type, properties, dedicated ("" for traces without descriptors)
	CreatedNS  uint64 `json:"created_ns"`
	// FreedNS is when it was freed, -1 when alive at the end.
	FreedNS int64 `json:"freed_ns"`
	// FullestNS is the moment of the layout; Bound and Aliased its bytes
	// covered by one binding or more and by two or more.
	FullestNS uint64  `json:"fullest_ns"`
	Bound     uint64  `json:"bound_bytes"`
	Aliased   uint64  `json:"aliased_bytes"`
	Ranges    []Range `json:"ranges"`   // bindings by offset
	Holes     []Hole  `json:"holes"`    // unbound bytes by offset
	Overlaps  []Hole  `json:"overlaps"` // aliased bytes by offset
}

// Range is one binding in a block.
type Range struct {
	Offset     uint64 `json:"offset"`
	Size       uint64 `json:"size"`
	Type       string `json:"type"` // BUFFER, IMAGE or VIDEO_SESSION
	Handle     uint64 `json:"handle"`
	Name       string `json:"name"`
	Descriptor string `json:"descriptor"`
}

// Hole is a run of bytes of a block; Kind says what a hole is: "alignment"
// when it ends at a binding and is shorter than that binding's offset's
// alignment (the largest power of two dividing it, at most 64 KiB), a
// guess, for the trace says nothing of alignments; "free" otherwise. An
// overlap has no kind.
type Hole struct {
	Offset uint64 `json:"offset"`
	Size   uint64 `json:"size"`
	Kind   string `json:"kind,omitempty"`
}

// maxAlignGuess bounds the alignment a hole is taken for.
const maxAlignGuess = 64 << 10

// keep remembers an ended block among the largest maxKept (0: every one).
func (m *memory) keep(k blockKey, b *block) {
	if k.driver || !b.created {
		return
	}
	if m.maxKept > 0 && len(m.kept) >= m.maxKept && blockOrder(Block{Size: b.size, CreatedNS: b.createdAt, Handle: k.mem}, m.kept[m.maxKept-1]) >= 0 {
		return // not among the largest: no layout to build
	}
	m.kept = append(m.kept, m.layout(k, b, int64(m.ts)))
	if m.maxKept > 0 && (len(m.kept) == m.maxKept || len(m.kept) > 2*m.maxKept) { // kept[:maxKept] sorted from then on
		m.trim()
	}
}

func (m *memory) trim() {
	slices.SortFunc(m.kept, blockOrder)
	if m.maxKept > 0 && len(m.kept) > m.maxKept {
		m.kept = slices.Delete(m.kept, m.maxKept, len(m.kept))
	}
}

func blockOrder(a, b Block) int {
	return cmp.Or(cmp.Compare(b.Size, a.Size), cmp.Compare(a.CreatedNS, b.CreatedNS), cmp.Compare(a.Handle, b.Handle))
}

// layout is block b's Block; freed is its free's time, -1 while alive.
// Times are absolute here; blocks rebases them.
func (m *memory) layout(k blockKey, b *block, freed int64) Block {
	out := Block{Handle: k.mem, Heap: b.heap, Size: b.size, Descriptor: m.strs.str(b.desc), CreatedNS: b.createdAt, FreedNS: freed,
		FullestNS: b.fullestAt, Bound: b.fullestSize}
	binds := slices.Clone(b.fullestLayout())
	slices.SortFunc(binds, func(x, y binding) int {
		return cmp.Or(cmp.Compare(x.off, y.off), cmp.Compare(x.size, y.size), cmp.Compare(x.handle, y.handle))
	})
	var c coverage
	for _, x := range binds {
		lo, hi := b.clip(x)
		c.add(lo, hi, 1)
	}
	out.Aliased = c.alias
	var end uint64 // the bound union so far reaches here
	for i, x := range binds {
		out.Ranges = append(out.Ranges, Range{Offset: x.off, Size: x.size, Type: m.strs.str(x.src), Handle: x.handle, Name: x.name, Descriptor: m.strs.str(x.desc)})
		lo, hi := b.clip(x)
		if lo > end {
			out.Holes = append(out.Holes, Hole{Offset: end, Size: lo - end, Kind: holeKind(lo-end, lo)})
		}
		// overlaps with what came before: the part of [lo, hi) below end
		if i > 0 && lo < end {
			o := Hole{Offset: lo, Size: min(hi, end) - lo}
			if n := len(out.Overlaps); n > 0 && out.Overlaps[n-1].Offset+out.Overlaps[n-1].Size >= o.Offset {
				last := &out.Overlaps[n-1]
				last.Size = max(last.Offset+last.Size, o.Offset+o.Size) - last.Offset
			} else if o.Size > 0 {
				out.Overlaps = append(out.Overlaps, o)
			}
		}
		end = max(end, hi)
	}
	if end < b.size {
		out.Holes = append(out.Holes, Hole{Offset: end, Size: b.size - end, Kind: "free"})
	}
	return out
}

// holeKind guesses what a hole of n bytes ending at a binding's offset at
// is (see Hole).
func holeKind(n, at uint64) string {
	if at != 0 && n < min(uint64(1)<<bits.TrailingZeros64(at), maxAlignGuess) {
		return "alignment"
	}
	return "free"
}

// blockList returns the kept blocks and the live ones, largest first, at
// most maxKept, with times since t0.
func (m *memory) blockList(t0 uint64) []Block {
	for k, b := range m.blocks {
		if !k.driver && b.created {
			m.kept = append(m.kept, m.layout(k, b, -1))
		}
	}
	m.trim()
	out := m.kept
	m.kept = nil
	for i := range out {
		b := &out[i]
		b.CreatedNS -= min(b.CreatedNS, t0)
		b.FullestNS -= min(b.FullestNS, t0)
		if b.FreedNS >= 0 {
			b.FreedNS -= int64(min(uint64(b.FreedNS), t0))
		}
	}
	return out
}
