package tracesummary

import "sort"

// coverage counts how many ranges cover each byte of a block, as runs of
// equal depth: run i covers [runs[i].start, runs[i+1].start) at its depth;
// bytes before the first run and from the last (always depth 0) are
// uncovered. It keeps the bytes covered once or more (bound) and twice or
// more (alias), so a bind or unbind costs a search and the runs it spans,
// not a sweep of every range of the block (a suballocator's block holds
// thousands).
type coverage struct {
	runs         []run
	bound, alias uint64
}

type run struct {
	start uint64
	depth int32
}

// add adds (delta 1) or removes (-1) the range [lo, hi).
func (c *coverage) add(lo, hi uint64, delta int32) {
	if lo >= hi {
		return
	}
	i := c.split(lo)
	j := c.split(hi)
	for k := i; k < j; k++ {
		n, d := c.runs[k+1].start-c.runs[k].start, c.runs[k].depth
		if delta > 0 {
			c.count(d, n, true)
		} else {
			c.count(d-1, n, false)
		}
		c.runs[k].depth = d + delta
	}
	c.compact(max(i-1, 0), min(j+1, len(c.runs)))
}

// count adds (or subtracts) n bytes going from depth d to d+1 (or back).
func (c *coverage) count(d int32, n uint64, up bool) {
	switch {
	case d == 0 && up:
		c.bound += n
	case d == 0:
		c.bound -= n
	case d == 1 && up:
		c.alias += n
	case d == 1:
		c.alias -= n
	}
}

// split makes a run start at at and returns its index.
func (c *coverage) split(at uint64) int {
	i := sort.Search(len(c.runs), func(i int) bool { return c.runs[i].start >= at })
	if i < len(c.runs) && c.runs[i].start == at {
		return i
	}
	var d int32
	if i > 0 {
		d = c.runs[i-1].depth
	}
	c.runs = append(c.runs, run{})
	copy(c.runs[i+1:], c.runs[i:])
	c.runs[i] = run{at, d}
	return i
}

// compact merges the runs of runs[lo:hi] that continue their predecessor's
// depth, and drops a leading run of depth 0.
func (c *coverage) compact(lo, hi int) {
	w := c.runs[lo:hi]
	n := 1
	for k := 1; k < len(w); k++ {
		if w[k].depth != w[n-1].depth {
			w[n] = w[k]
			n++
		}
	}
	c.runs = append(c.runs[:lo+n], c.runs[hi:]...)
	if len(c.runs) > 0 && c.runs[0].depth == 0 {
		c.runs = c.runs[1:]
	}
}
