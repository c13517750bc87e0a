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
		lo, hi := min(x.off, size), min(satAddU(x.off, x.size), size)
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
