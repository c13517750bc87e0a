package accounting

import "testing"

// An allocation's bound bytes are kept bind by bind while its binds lie side
// by side, and walked while some overlap or range binds exist; each step
// checks the unbound bytes against the union, through the transitions
// between the two.
func TestUnboundAcrossAliasesAndRanges(t *testing.T) {
	e, _ := newTestEngine()
	e.DeviceCreated(1, testProps, false)
	e.MemoryAllocated(1, 0x40, 1000, 0)
	unbound := func(step string, want uint64) {
		t.Helper()
		for _, a := range e.Allocations() {
			if a.ID == 0x40 {
				if a.Unbound != want {
					t.Fatalf("%s: unbound %d, want %d", step, a.Unbound, want)
				}
				return
			}
		}
		t.Fatalf("%s: the allocation is gone", step)
	}
	bind := func(h, size, off uint64) {
		e.BufferCreated(1, h, BufferUsageStorage, size)
		e.Bound(1, KindBuffer, h, 0x40, off)
	}
	bind(1, 100, 0)
	bind(2, 200, 100)
	unbound("two side by side", 700)
	bind(3, 100, 50)
	unbound("an alias over both", 700)
	bind(4, 100, 600)
	unbound("one beside while the alias lives", 600)
	e.ResourceDestroyed(1, KindBuffer, 3)
	unbound("the alias destroyed", 600)
	bind(5, 100, 800)
	unbound("one more beside", 500)
	e.ResourceDestroyed(1, KindBuffer, 1)
	unbound("the first destroyed", 600)
	bind(6, 50, 350) // a gap's middle
	unbound("one in a gap", 550)
	bind(7, 100, 399) // touches 6's end
	unbound("one overlapping the last by a byte", 451)
	e.ResourceDestroyed(1, KindBuffer, 7)
	unbound("that one destroyed", 550)

	e.BufferCreated(1, 8, BufferUsageStorage, 1000)
	e.SparseBound(1, KindBuffer, 8, 0, 100, 0x40, 900) // a range bind beside the rest
	unbound("a range bind", 450)
	bind(9, 50, 450)
	unbound("a bind beside, ranges present", 400)
	e.SparseBound(1, KindBuffer, 8, 0, 100, 0, 0) // the range unbound
	unbound("the range unbound", 500)
	bind(10, 50, 500)
	unbound("a bind beside after the ranges", 450)
	e.SparseBound(1, KindBuffer, 8, 0, 100, 0x40, 150) // inside binding 2's bytes
	unbound("a range over a binding", 450)
	e.SparseBound(1, KindBuffer, 8, 200, 50, 0x40, 900) // touching binding 5's end
	unbound("a range beside, one overlapping", 400)
	e.SparseBound(1, KindBuffer, 8, 0, 100, 0, 0)
	unbound("the overlapping range unbound", 400)
	e.SparseBound(1, KindBuffer, 8, 225, 25, 0, 0) // the range's upper half
	unbound("the range shrunk", 425)
	bind(12, 25, 925) // where the range's half was
	unbound("a bind where the range shrank from", 400)
	e.ResourceDestroyed(1, KindBuffer, 12)
	for h := uint64(2); h <= 10; h++ {
		e.ResourceDestroyed(1, KindBuffer, h)
	}
	unbound("all destroyed", 1000)
	bind(11, 1000, 0)
	unbound("one over the whole", 0)
}
