package tracesummary

import "encoding/binary"

// queue is one sequence's waiting events, in time order: the first one
// decoded (head), the others packed back to back in byte chunks. A
// window's worth of events waits in the queues (about half a million in
// 32 MB of trace); packed they take about a third of an event's 104 bytes
// and hold no pointers for the collector to scan. Names (which the
// decoder already made strings) and the rare annotations of over-time
// events wait in a list of their own (side), in the same order.
type queue struct {
	head   event
	has    bool     // head holds an event
	chunks [][]byte // packed events after head; the first read from off
	off    int
	// last is the (ts, n) of the last event added: the base of the next
	// one's deltas, and what a new event must not precede.
	lastTS, lastN uint64
	side          []sideRef
	sideOff       int
}

// sideRef is what a packed event refers to.
type sideRef struct {
	name string
	x    *timeEvent
}

// Chunks hold minChunk bytes at first and twice as many as the previous
// one after, up to maxChunk: a busy sequence packs its events in large
// chunks, and a trace of many sequences with few events each costs little
// per sequence.
const (
	minChunk     = 1 << 10
	maxChunk     = 64 << 10
	chunkClasses = 7 // minChunk << 6 == maxChunk
)

// freeChunks are recycled chunks by size class.
type freeChunks [chunkClasses][][]byte

// get returns an empty chunk of size bytes, a class's size.
func (f *freeChunks) get(size int) []byte {
	c := &f[class(size)]
	if n := len(*c); n > 0 {
		b := (*c)[n-1]
		*c = (*c)[:n-1]
		return b
	}
	return make([]byte, 0, size)
}

func (f *freeChunks) put(b []byte) {
	c := &f[class(cap(b))]
	*c = append(*c, b[:0])
}

func class(size int) int {
	c := 0
	for s := minChunk; s < size; s <<= 1 {
		c++
	}
	return c
}

func (q *queue) empty() bool   { return !q.has }
func (q *queue) first() *event { return &q.head }

// before says whether e precedes the last event added (so it cannot join
// the queue).
func (q *queue) before(e *event) bool {
	return eventLess(e, &event{ts: q.lastTS, n: q.lastN})
}

// The flags of a packed event's first byte, after the kind's 4 bits; an
// event is at most 1+3*10+9*10 bytes packed.
const (
	packOpShift = 4 // 2 bits
	packSide    = 1 << 6
)

// add appends e, which must not precede the last event added.
func (q *queue) add(e *event, free *freeChunks) {
	if !q.has {
		q.head, q.has = *e, true
		q.lastTS, q.lastN = e.ts, e.n
		return
	}
	var buf [128]byte
	b := buf[:0]
	flags := e.kind | e.op<<packOpShift
	if e.name != "" || e.x != nil {
		flags |= packSide
		q.side = append(q.side, sideRef{e.name, e.x})
	}
	fields := [...]uint64{uint64(e.src), uint64(e.clust), uint64(e.heap), uint64(e.at), e.handle, e.mem, e.size, e.off, e.key}
	var mask uint64
	for i, v := range fields {
		if v != 0 {
			mask |= 1 << i
		}
	}
	b = append(b, flags)
	b = binary.AppendUvarint(b, e.ts-q.lastTS)
	b = binary.AppendVarint(b, int64(e.n-q.lastN))
	b = binary.AppendUvarint(b, mask)
	for _, v := range fields {
		if v != 0 {
			b = binary.AppendUvarint(b, v)
		}
	}
	q.lastTS, q.lastN = e.ts, e.n
	n := len(q.chunks)
	if n == 0 || cap(q.chunks[n-1])-len(q.chunks[n-1]) < len(b) {
		size := minChunk
		if n > 0 {
			size = min(2*cap(q.chunks[n-1]), maxChunk)
		}
		q.chunks = append(q.chunks, free.get(size))
		n++
	}
	q.chunks[n-1] = append(q.chunks[n-1], b...)
}

// drop replaces the head with the next event, if any.
func (q *queue) drop(free *freeChunks) {
	if len(q.chunks) == 0 {
		q.head, q.has = event{}, false
		q.side, q.sideOff = q.side[:0], 0
		return
	}
	c := q.chunks[0][q.off:]
	flags := c[0]
	i := 1
	uv := func() uint64 {
		v, k := binary.Uvarint(c[i:])
		i += k
		return v
	}
	ts := q.head.ts + uv()
	dn, k := binary.Varint(c[i:])
	i += k
	e := event{ts: ts, n: q.head.n + uint64(dn), kind: flags & 0xf, op: flags >> packOpShift & 3}
	mask := uv()
	var fields [9]uint64
	for j := range fields {
		if mask&(1<<j) != 0 {
			fields[j] = uv()
		}
	}
	e.src, e.clust, e.heap, e.at = uint32(fields[0]), uint32(fields[1]), uint32(fields[2]), uint32(fields[3])
	e.handle, e.mem, e.size, e.off, e.key = fields[4], fields[5], fields[6], fields[7], fields[8]
	if flags&packSide != 0 {
		r := &q.side[q.sideOff]
		e.name, e.x, *r = r.name, r.x, sideRef{}
		if q.sideOff++; q.sideOff >= 64 && 2*q.sideOff >= len(q.side) { // a queue that never empties
			q.side, q.sideOff = q.side[:copy(q.side, q.side[q.sideOff:])], 0
		}
	}
	q.head = e
	q.off += i
	if q.off == len(q.chunks[0]) { // read to its end: the writer moved on, or it is the last
		free.put(q.chunks[0])
		q.chunks[0] = nil
		q.chunks, q.off = q.chunks[1:], 0
		if len(q.chunks) == 0 {
			q.chunks = nil
		}
	}
}
