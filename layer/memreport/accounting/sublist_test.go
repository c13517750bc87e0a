package accounting

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// A subList against a plain sorted slice over random binds and unbinds, many
// at equal offsets and enough to split and empty chunks: the same order, the
// same neighbours of each binding's place, the same removals.
func TestSubListAgainstSortedSlice(t *testing.T) {
	for seed := range uint64(8) {
		rng := rand.New(rand.NewPCG(seed, 7))
		var l subList
		var want []sub
		res := make([]resource, 4000)
		for step := range 20000 {
			if len(want) == 0 || rng.IntN(100) < 55 {
				r := &res[rng.IntN(len(res))]
				plane := uint8(rng.IntN(4))
				if slices.ContainsFunc(want, func(s sub) bool { return s.res == r && s.plane == plane }) {
					continue // one binding per slot, as the engine keeps
				}
				off := uint64(rng.IntN(300)) * 64 // equal offsets, often
				n := sub{off: off, end: off + uint64(rng.IntN(4))*64, res: r, plane: plane}
				i, _ := slices.BinarySearchFunc(want, n, cmpSub)
				if len(l.chunks) > 0 {
					ci, j := l.find(n)
					if prev, next := l.at(ci, j-1), l.at(ci, j); !sameSub(prev, want, i-1) || !sameSub(next, want, i) {
						t.Fatalf("seed %d step %d: the place of %+v: neighbours %v %v, want indices %d %d of %d", seed, step, n, prev, next, i-1, i, len(want))
					}
				}
				want = slices.Insert(want, i, n)
				l.insert(n)
			} else {
				w := want[rng.IntN(len(want))]
				got, ok := l.remove(w.res, int(w.plane), w.off)
				if !ok || got != w {
					t.Fatalf("seed %d step %d: remove %+v: %+v %v", seed, step, w, got, ok)
				}
				i := slices.Index(want, w)
				want = slices.Delete(want, i, i+1)
				if _, ok := l.remove(w.res, int(w.plane), w.off); ok {
					t.Fatalf("seed %d step %d: removed %+v twice", seed, step, w)
				}
			}
			if l.n != len(want) {
				t.Fatalf("seed %d step %d: len %d, want %d", seed, step, l.n, len(want))
			}
			if step%997 == 0 && !slices.Equal(slices.Collect(l.all()), want) {
				t.Fatalf("seed %d step %d: order differs", seed, step)
			}
		}
		if !slices.Equal(slices.Collect(l.all()), want) {
			t.Fatalf("seed %d: order differs at the end", seed)
		}
		l.reset()
		if l.n != 0 || len(slices.Collect(l.all())) != 0 {
			t.Fatalf("seed %d: reset left bindings", seed)
		}
		if _, ok := l.remove(&res[0], 0, 0); ok {
			t.Fatalf("seed %d: removed from an empty list", seed)
		}
	}
}

func sameSub(got *sub, want []sub, i int) bool {
	if i < 0 || i >= len(want) {
		return got == nil
	}
	return got != nil && *got == want[i]
}

// Most allocations hold one binding (dedicated ones, a program's own
// per-resource memory): their records stay small, the list's chunks grown by
// use (a chunk made at full size made each ten times as big).
// TestBindingsAreSmall bounds the heap the engine keeps per live binding,
// the two ways programs bind: an allocation per buffer, and a
// sub-allocator's block holding many (bound in address order). It failed
// with every sub list chunk made at full size (5,403 bytes per allocation
// with one buffer), and with four bind slots in every resource record and
// the grown array kept by the first half of a split chunk (341 bytes per
// buffer in a block).
func TestBindingsAreSmall(t *testing.T) {
	for _, c := range []struct {
		name string
		max  int64
		bind func(e *Engine, i uint64)
	}{
		{"allocation with one bound buffer", 1024, func(e *Engine, i uint64) {
			e.MemoryAllocated(1, 0x1000+i, 4096, 1)
			e.BufferCreated(1, 1<<40+i, BufferUsageStorage, 4096)
			e.Bound(1, KindBuffer, 1<<40+i, 0x1000+i, 0)
		}},
		{"buffer bound into a block", 224, func(e *Engine, i uint64) {
			if i == 0 {
				e.MemoryAllocated(1, 0x1000, 1<<40, 1)
			}
			e.BufferCreated(1, 1<<40+i, BufferUsageStorage, 4096)
			e.Bound(1, KindBuffer, 1<<40+i, 0x1000, 4096*i)
		}},
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		e := New(nil)
		e.DeviceCreated(1, testProps, false)
		const n = 20000
		for i := range uint64(n) {
			c.bind(e, i)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		per := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / n
		runtime.KeepAlive(e)
		if per > c.max {
			t.Errorf("%s: %d bytes of heap each, want at most %d", c.name, per, c.max)
		}
		t.Logf("%s: %d bytes of heap each", c.name, per)
	}
}
