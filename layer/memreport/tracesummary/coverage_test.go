package tracesummary

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// Random binds and unbinds: the running coverage equals a sweep of the
// ranges bound after every step.
func TestCoverage(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var c coverage
	var live []binding
	const size = 1 << 12
	for step := range 5000 {
		if len(live) > 0 && r.IntN(3) == 0 {
			i := r.IntN(len(live))
			x := live[i]
			live = append(live[:i], live[i+1:]...)
			c.add(min(x.off, size), min(x.off+x.size, size), -1)
		} else {
			x := binding{off: uint64(r.IntN(size + 64)), size: uint64(r.IntN(512))}
			live = append(live, x)
			c.add(min(x.off, size), min(x.off+x.size, size), 1)
		}
		bound, alias := measure(live, size)
		if c.bound != bound || c.alias != alias {
			t.Fatalf("step %d: coverage %d/%d, sweep %d/%d", step, c.bound, c.alias, bound, alias)
		}
	}
	for len(live) > 0 {
		x := live[0]
		live = live[1:]
		c.add(min(x.off, size), min(x.off+x.size, size), -1)
	}
	if c.bound != 0 || c.alias != 0 || len(c.runs) != 0 {
		t.Errorf("empty coverage %+v", c)
	}
}

// measure is the coverage of binds cut at size by a sweep of them all.
func measure(binds []binding, size uint64) (bound, alias uint64) {
	type edge struct {
		at    uint64
		delta int
	}
	edges := make([]edge, 0, 2*len(binds))
	for _, x := range binds {
		lo, hi := min(x.off, size), min(satAdd(x.off, x.size), size)
		if lo < hi {
			edges = append(edges, edge{lo, 1}, edge{hi, -1})
		}
	}
	slices.SortFunc(edges, func(a, b edge) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.delta, b.delta)) })
	depth, last := 0, uint64(0)
	for _, x := range edges {
		if depth >= 1 {
			bound += x.at - last
		}
		if depth >= 2 {
			alias += x.at - last
		}
		depth, last = depth+x.delta, x.at
	}
	return bound, alias
}

// Random binds, rebinds and unbinds of up to 40 ranges in one block (found
// by scans, then by an index, then by scans again): the block's coverage
// always equals a sweep of its bindings, each binding held once.
func TestBlockBindings(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	m := newMemory(2, newInterner())
	const size = 1 << 16
	ts := uint64(1)
	ev := func(op uint8, handle, off, sz uint64) *event {
		ts++
		return &event{ts: ts, op: op, mem: 0x100, handle: handle, off: off, size: sz}
	}
	m.apply(ev(opAdd, 0x100, 0, size), "DEVICE_MEMORY", "")
	live := map[uint64]bool{}
	for step := range 4000 {
		h := uint64(r.IntN(40) + 1)
		if live[h] && r.IntN(2) == 0 {
			m.apply(ev(opRemove, h, h*512, 4096), "BUFFER", "")
			delete(live, h)
		} else {
			m.apply(ev(opAdd, h, h*512, uint64(1024+r.IntN(2)*3072)), "BUFFER", "")
			live[h] = true
		}
		b := m.blocks[blockKey{false, 0x100}]
		bound, alias := measure(b.binds, size)
		if len(b.binds) != len(live) || b.cover.bound != bound || b.cover.alias != alias {
			t.Fatalf("step %d: %d bindings for %d live, coverage %d/%d, sweep %d/%d", step, len(b.binds), len(live), b.cover.bound, b.cover.alias, bound, alias)
		}
	}
	// the block is freed and listed (2 at most kept)
	m.apply(ev(opRemove, 0x100, 0, size), "DEVICE_MEMORY", "")
	if l := m.blockList(0); len(l) != 1 || l[0].Size != size {
		t.Errorf("blocks %+v", l)
	}
}
