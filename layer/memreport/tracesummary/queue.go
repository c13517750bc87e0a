package tracesummary

import "encoding/binary"

// queue is one sequence's waiting events, in time order: the first one
// decoded (head), the others packed back to back in byte chunks. A
// window's worth of events waits in the queues (about half a million in
// 32 MB of trace); packed they take about a third of an event's 104 bytes
// and hold no pointers for the collector to scan. The rare annotations of
// over-time events wait in a list of their own (xs), in the same order.
type queue struct {
	head   event
	has    bool     // head holds an event
	chunks [][]byte // packed events after head; the first read from off
	off    int
	// last is the (ts, n) of the last event added: the base of the next
	// one's deltas, and what a new event must not precede.
	lastTS, lastN uint64
	xs            []*timeEvent
	xoff          int
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

func (f *freeChunks) get(size int) []byte {
	if size <= maxChunk {
		c := &f[class(size)]
		if n := len(*c); n > 0 {
			b := (*c)[n-1]
			*c = (*c)[:n-1]
			return b
		}
		size = minChunk << class(size)
	}
	return make([]byte, 0, size)
}

func (f *freeChunks) put(b []byte) {
	if cap(b) > maxChunk || cap(b) < minChunk || cap(b)&(cap(b)-1) != 0 {
		return // an event larger than a chunk: let it go
	}
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

// The flags of a packed event's first byte, after the kind's 4 bits.
const (
	packOpShift = 4 // 2 bits
	packName    = 1 << 6
	packX       = 1 << 7
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
	if e.name != "" {
		flags |= packName
	}
	if e.x != nil {
		flags |= packX
		q.xs = append(q.xs, e.x)
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
	if e.name != "" {
		b = binary.AppendUvarint(b, uint64(len(e.name)))
	}
	q.lastTS, q.lastN = e.ts, e.n
	n := len(q.chunks)
	if n == 0 || cap(q.chunks[n-1])-len(q.chunks[n-1]) < len(b)+len(e.name) {
		size := minChunk
		if n > 0 {
			size = min(2*cap(q.chunks[n-1]), maxChunk)
		}
		q.chunks = append(q.chunks, free.get(max(size, len(b)+len(e.name))))
		n++
	}
	c := append(q.chunks[n-1], b...)
	q.chunks[n-1] = append(c, e.name...)
}

// drop replaces the head with the next event, if any.
func (q *queue) drop(free *freeChunks) {
	if len(q.chunks) == 0 {
		q.head, q.has = event{}, false
		q.xs, q.xoff = q.xs[:0], 0
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
	if flags&packName != 0 {
		l := int(uv())
		e.name = string(c[i : i+l])
		i += l
	}
	if flags&packX != 0 {
		e.x, q.xs[q.xoff] = q.xs[q.xoff], nil
		if q.xoff++; q.xoff >= 64 && 2*q.xoff >= len(q.xs) { // a queue that never empties
			q.xs, q.xoff = q.xs[:copy(q.xs, q.xs[q.xoff:])], 0
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
