package tracesummary

import "container/heap"

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

type eventHeap []event

func (h eventHeap) Len() int { return len(h) }
func (h eventHeap) Less(i, j int) bool {
	if h[i].ts != h[j].ts {
		return h[i].ts < h[j].ts
	}
	return h[i].n < h[j].n
}
func (h eventHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *eventHeap) Push(x any)   { *h = append(*h, x.(event)) }
func (h *eventHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
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
type reorderer struct {
	window  int64 // < 0: hold everything until flush
	h       eventHeap
	marks   []mark
	maxTS   uint64
	water   uint64 // every event up to here may be released
	lastOut uint64
	late    int
	out     func(*event)
}

func (o *reorderer) push(e event, pos int64) {
	o.maxTS = max(o.maxTS, e.ts)
	heap.Push(&o.h, e)
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
	for len(o.h) > 0 && o.h[0].ts <= o.water {
		o.release()
	}
}

func (o *reorderer) release() {
	e := heap.Pop(&o.h).(event)
	if e.ts < o.lastOut {
		o.late++
	}
	o.lastOut = max(o.lastOut, e.ts)
	o.out(&e)
}

// flush releases everything held, at the end of the trace.
func (o *reorderer) flush() {
	for len(o.h) > 0 {
		o.release()
	}
}
