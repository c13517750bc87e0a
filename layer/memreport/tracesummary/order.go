package tracesummary

// DefaultWindow is the default reordering window in bytes of trace; see
// Options.Window.
const DefaultWindow = 32 << 20

// event is the part of a packet the summary uses, kept compact because a
// window's worth of them waits in the reorderer.
type event struct {
	ts    uint64
	n     uint64 // arrival index: ties keep file order
	kind  uint8
	op    uint8  // opAdd, opRemove, opOther
	src   uint32 // interned source (object type)
	clust uint32 // interned memory_type
	// handle, memory object, size, offset; a counter keeps its track uuid in
	// handle and its value in size.
	handle, mem, size, off uint64
	name                   string
}

const (
	evAlloc   uint8 = iota
	evName          // VulkanObjectName instant
	evRawName       // DebugMarker's VkDebugUtilsObjectName packet
	evCounter
)

func eventLess(a, b *event) bool {
	if a.ts != b.ts {
		return a.ts < b.ts
	}
	return a.n < b.n
}

// queue is one sequence's waiting events, in time order.
type queue struct {
	ev   []event
	head int
}

func (q *queue) first() *event { return &q.ev[q.head] }

// add appends e, keeping time order (a sequence's own events normally come
// in order, so this rarely moves anything).
func (q *queue) add(e event) {
	q.ev = append(q.ev, e)
	for i := len(q.ev) - 1; i > q.head && eventLess(&q.ev[i], &q.ev[i-1]); i-- {
		q.ev[i], q.ev[i-1] = q.ev[i-1], q.ev[i]
	}
}

func (q *queue) take() event {
	e := q.ev[q.head]
	q.ev[q.head] = event{}
	q.head++
	if q.head == len(q.ev) {
		q.ev, q.head = q.ev[:0], 0
	} else if q.head >= 1024 && q.head*2 >= len(q.ev) {
		q.ev = q.ev[:copy(q.ev, q.ev[q.head:])]
		q.head = 0
	}
	return e
}

// mark says that every packet up to byte pos had a timestamp <= maxTS.
type mark struct {
	pos   int64
	maxTS uint64
}

// reorderer hands events on in timestamp order while reading in file order.
// Emitters write packets to several sequences that reach the file batch by
// batch, so file order is not time order, but a packet is never more than
// window bytes late: it waited in a buffer that was flushed within a flush
// interval of the later packets written before it. So once the reader is
// window bytes past a packet, nothing that follows can be older, and every
// event up to that packet's timestamp can be released. Memory is bounded by
// the window, not by the trace. An event that arrives later than that still
// gets processed, out of order, and is counted in late.
//
// Events wait in one queue per sequence (each sequence writes in time
// order) and are merged through a heap of the queues' first events, so the
// cost per event grows with the number of sequences, not of waiting events.
type reorderer struct {
	window  int64 // < 0: hold everything until flush
	queues  map[uint32]*queue
	heads   pq[*queue] // the non-empty queues by their first event
	marks   []mark
	maxTS   uint64
	water   uint64 // every event up to here may be released
	lastOut uint64
	late    int
	out     func(*event)
}

func newReorderer(window int64, out func(*event)) reorderer {
	return reorderer{window: window, out: out, queues: map[uint32]*queue{},
		heads: pq[*queue]{less: func(a, b **queue) bool { return eventLess((*a).first(), (*b).first()) }}}
}

// push takes event e of sequence seq, read at byte pos.
func (o *reorderer) push(seq uint32, e event, pos int64) {
	o.maxTS = max(o.maxTS, e.ts)
	q := o.queues[seq]
	if q == nil {
		q = &queue{}
		o.queues[seq] = q
	}
	switch {
	case q.head == len(q.ev):
		q.add(e)
		o.heads.push(q)
	case eventLess(&e, q.first()):
		q.add(e) // a new first event: re-sort the heads
		o.reheap()
	default:
		q.add(e)
	}
	if o.window < 0 {
		return
	}
	if len(o.marks) == 0 || pos-o.marks[len(o.marks)-1].pos >= o.window/16 {
		o.marks = append(o.marks, mark{pos, o.maxTS})
	} else {
		o.marks[len(o.marks)-1].maxTS = o.maxTS
	}
	for len(o.marks) > 0 && o.marks[0].pos < pos-o.window {
		o.water = max(o.water, o.marks[0].maxTS)
		o.marks = o.marks[1:]
	}
	for len(o.heads.s) > 0 && o.heads.s[0].first().ts <= o.water {
		o.release()
	}
}

// reheap restores the heap of queues after a first event changed in place.
func (o *reorderer) reheap() {
	qs := o.heads.s
	o.heads.s = o.heads.s[:0:0]
	for _, q := range qs {
		o.heads.push(q)
	}
}

func (o *reorderer) release() {
	q := o.heads.s[0]
	e := q.take()
	if q.head == len(q.ev) {
		o.heads.pop()
	} else {
		o.heads.down()
	}
	if e.ts < o.lastOut {
		o.late++
	}
	o.lastOut = max(o.lastOut, e.ts)
	o.out(&e)
}

// flush releases everything held, at the end of the trace.
func (o *reorderer) flush() {
	for len(o.heads.s) > 0 {
		o.release()
	}
}
