package memreport

import "github.com/vkgen/vkgen/layer/memreport/accounting"

// liveObjects holds the live allocations and bindings memory over time
// follows, in a slab indexed by the mark the engine keeps in each record
// (accounting.AllocationEvent.Mark): an event finds its object without a
// lookup by key, and a steady state allocates nothing.
type liveObjects struct {
	recs []objRec
	free []int32
	n    int // live
}

// objRec is one live allocation or binding.
type objRec struct {
	key    liveKey // for its name
	size   uint64
	handle uint64 // the object's handle in the trace (memory_object_id for driver allocations)
	born   uint64 // the frame it began in
	group  int32  // its growth group once settled; -1 before
	gen    uint32 // bumped at each reuse of the slot: a stale mark does not match
	heap   uint8
	src    accounting.Source
	alive  bool
}

// get returns the object a mark names, nil for none (0, or stale).
func (l *liveObjects) get(mark uint64) (int32, *objRec) {
	i := int64(uint32(mark)) - 1
	if i < 0 || i >= int64(len(l.recs)) {
		return -1, nil
	}
	r := &l.recs[i]
	if !r.alive || r.gen != uint32(mark>>32) {
		return -1, nil
	}
	return int32(i), r
}

// add stores a new object and returns its index and mark.
func (l *liveObjects) add(r objRec) (int32, uint64) {
	var i int32
	if n := len(l.free); n > 0 {
		i, l.free = l.free[n-1], l.free[:n-1]
		r.gen = l.recs[i].gen + 1
		l.recs[i] = r
	} else {
		l.recs = append(l.recs, r)
		i = int32(len(l.recs) - 1)
	}
	l.recs[i].alive = true
	l.n++
	return i, uint64(i+1) | uint64(l.recs[i].gen)<<32
}

func (l *liveObjects) release(i int32) {
	l.recs[i].alive = false
	l.free = append(l.free, i)
	l.n--
}
