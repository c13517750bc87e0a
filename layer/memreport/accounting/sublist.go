package accounting

import (
	"cmp"
	"iter"
	"slices"
)

// subList is an allocation's bindings sorted by (offset, end) (cmpSub), kept
// in chunks of at most 2*subChunk, so that a bind or an unbind into a block
// that holds thousands of resources (a sub-allocator's) moves the tail of
// one chunk, not of the whole list.
type subList struct {
	chunks [][]sub
	n      int
}

const subChunk = 128

// all yields the bindings in order; the list must not change meanwhile.
func (l *subList) all() iter.Seq[sub] {
	return func(yield func(sub) bool) {
		for _, c := range l.chunks {
			for _, s := range c {
				if !yield(s) {
					return
				}
			}
		}
	}
}

// reset empties the list, keeping its first chunk's array for reuse.
func (l *subList) reset() {
	for _, c := range l.chunks {
		clear(c)
	}
	if len(l.chunks) > 0 {
		l.chunks = append(l.chunks[:0], l.chunks[0][:0])
	}
	l.n = 0
}

// find returns where n goes: its chunk and index there.
func (l *subList) find(n sub) (ci, i int) {
	// The first chunk whose last binding sorts at or after n, else the last.
	ci, _ = slices.BinarySearchFunc(l.chunks, n, func(c []sub, n sub) int {
		if len(c) == 0 {
			return 1
		}
		return cmpSub(c[len(c)-1], n)
	})
	ci = min(ci, len(l.chunks)-1)
	i, _ = slices.BinarySearchFunc(l.chunks[ci], n, cmpSub)
	return ci, i
}

// overlaps reports whether n would overlap the bindings beside its place,
// which tells whether it overlaps any while none overlap each other.
func (l *subList) overlaps(n sub) bool {
	if l.n == 0 {
		return false
	}
	ci, i := l.find(n)
	prev, next := l.at(ci, i-1), l.at(ci, i)
	return prev != nil && prev.end > n.off || next != nil && next.off < n.end
}

// insert adds n in order.
func (l *subList) insert(n sub) {
	if len(l.chunks) == 0 {
		l.chunks = append(l.chunks, nil) // grown by use: most allocations hold one binding
	}
	ci, i := l.find(n)
	c := slices.Insert(l.chunks[ci], i, n)
	l.n++
	if len(c) <= 2*subChunk {
		l.chunks[ci] = c
		return
	}
	// Split in two copies of their own size: the grown array would keep
	// up to four times the bindings' bytes (binds in address order, as a
	// sub-allocator's, never come back to the first half).
	l.chunks[ci] = slices.Clone(c[:subChunk])
	l.chunks = slices.Insert(l.chunks, ci+1, slices.Clone(c[subChunk:]))
}

// at returns the binding at index i of chunk ci, or, for -1 and len, the
// neighbouring chunk's last and first; nil past either end.
func (l *subList) at(ci, i int) *sub {
	switch {
	case i < 0 && ci > 0:
		c := l.chunks[ci-1]
		return &c[len(c)-1]
	case i < 0:
		return nil
	case i < len(l.chunks[ci]):
		return &l.chunks[ci][i]
	case ci+1 < len(l.chunks):
		return &l.chunks[ci+1][0]
	}
	return nil
}

// remove takes out r's slot idx, bound at off, and returns it.
func (l *subList) remove(r *resource, idx int, off uint64) (sub, bool) {
	if l.n == 0 {
		return sub{}, false // no chunk, or the one chunk empty
	}
	ci, _ := slices.BinarySearchFunc(l.chunks, off, func(c []sub, off uint64) int { return cmp.Compare(c[len(c)-1].off, off) })
	for ; ci < len(l.chunks); ci++ {
		c := l.chunks[ci]
		i, _ := slices.BinarySearchFunc(c, off, func(s sub, o uint64) int { return cmp.Compare(s.off, o) })
		for ; i < len(c) && c[i].off == off; i++ {
			if c[i].res == r && int(c[i].plane) == idx {
				s := c[i]
				l.n--
				if len(c) == 1 && len(l.chunks) > 1 {
					l.chunks = slices.Delete(l.chunks, ci, ci+1)
				} else {
					l.chunks[ci] = slices.Delete(c, i, i+1)
				}
				return s, true
			}
		}
		if i < len(c) { // past off within this chunk: not bound here
			break
		}
	}
	return sub{}, false
}
