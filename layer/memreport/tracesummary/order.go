package tracesummary

// DefaultWindow is the default reordering window in bytes of trace; see
// Options.Window.
const DefaultWindow = 32 << 20

// event is the part of a packet the summary uses. A window's worth of them
// waits in the reorderer, packed (queue.go).
type event struct {
	ts    uint64
	n     uint64 // arrival index: ties keep file order
	kind  uint8
	op    uint8  // opAdd, opRemove, opOther
	src   uint32 // interned source (object type)
	clust uint32 // interned memory_type
	heap  uint32
	at    uint32 // interned place of a leak
	site  uint32 // interned call site of an allocation event (symbolize.go)
	desc  uint32 // interned descriptor of the object
	// handle, memory object, size, offset; a counter keeps its track uuid in
	// handle and its value in size. key is a sparse range's resource offset
	// or a video binding's index, which tell apart binds of one resource
	// at the same memory and offset.
	handle, mem, size, off, key uint64
	name                        string
	x                           *timeEvent // frame, growth and threshold events' annotations
}

const (
	evAlloc   uint8 = iota
	evName          // VulkanObjectName instant
	evRawName       // DebugMarker's VkDebugUtilsObjectName packet
	evCounter
	evFailure // VulkanMemoryAllocationFailed
	evLeak    // VulkanMemoryLeak
	// Memory over time (overtime.go); they do not set the summary's time origin.
	evFrame
	evGrowth
	evThreshold
)

func eventLess(a, b *event) bool {
	if a.ts != b.ts {
		return a.ts < b.ts
	}
	return a.n < b.n
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
// An event older than the last of its sequence (a writer that does not keep
// time order within a sequence) waits in the misfits heap instead.
type reorderer struct {
	window  int64 // < 0: hold everything until flush
	queues  map[uint32]*queue
	lastSeq uint32 // the sequence of the last push, and its queue
	lastQ   *queue
	heads   pq[*queue] // the non-empty queues by their first event
	misfits pq[event]
	free    freeChunks
	marks   []mark
	maxTS   uint64
	water   uint64 // every event up to here may be released
	lastOut uint64
	late    int
	out     func(*event)
	cur     event // a misfit being handed on (a local would escape to the heap)
}

func newReorderer(window int64, out func(*event)) reorderer {
	return reorderer{window: window, out: out, queues: map[uint32]*queue{}, misfits: pq[event]{less: eventLess},
		heads: pq[*queue]{less: func(a, b **queue) bool { return eventLess((*a).first(), (*b).first()) }}}
}

// push takes event e of sequence seq, read at byte pos.
func (o *reorderer) push(seq uint32, e *event, pos int64) {
	o.maxTS = max(o.maxTS, e.ts)
	q := o.lastQ
	if q == nil || seq != o.lastSeq { // runs of one sequence are the rule
		if q = o.queues[seq]; q == nil {
			q = &queue{}
			o.queues[seq] = q
		}
		o.lastQ, o.lastSeq = q, seq
	}
	switch {
	case q.empty():
		q.add(e, &o.free)
		o.heads.push(q)
	case q.before(e):
		o.misfits.push(*e)
	default:
		q.add(e, &o.free)
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
	for {
		if e := o.next(); e == nil || e.ts > o.water {
			return
		}
		o.release()
	}
}

// next is the oldest waiting event, nil when none waits.
func (o *reorderer) next() *event {
	var e *event
	if len(o.heads.s) > 0 {
		e = o.heads.s[0].first()
	}
	if len(o.misfits.s) > 0 && (e == nil || eventLess(&o.misfits.s[0], e)) {
		e = &o.misfits.s[0]
	}
	return e
}

// release hands on the oldest waiting event; one must wait. A queue's
// event is handed on in place, before its block can be recycled.
func (o *reorderer) release() {
	if len(o.misfits.s) > 0 && (len(o.heads.s) == 0 || eventLess(&o.misfits.s[0], o.heads.s[0].first())) {
		o.cur = o.misfits.pop()
		o.emit(&o.cur)
		return
	}
	q := o.heads.s[0]
	o.emit(q.first())
	q.drop(&o.free)
	if q.empty() {
		o.heads.pop()
	} else {
		o.heads.down()
	}
}

func (o *reorderer) emit(e *event) {
	if e.ts < o.lastOut {
		o.late++
	}
	o.lastOut = max(o.lastOut, e.ts)
	o.out(e)
}

// flush releases everything held, at the end of the trace.
func (o *reorderer) flush() {
	for o.next() != nil {
		o.release()
	}
}
