package tracesummary

import (
	"encoding/binary"
	"math/bits"
)

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

// A packed event: a byte of flags (the kind's 4 bits, the op's 2, and
// packSide), 7 bytes of 4-bit lengths of the 13 fields below, then each
// field's low bytes, little-endian, as many as its length (0: the field
// is 0). Fixed-width reads and writes of 8 bytes cost a few instructions
// a field, where varints took a loop a byte: a chunk keeps 8 bytes spare
// past its last event for them.
const (
	packOpShift = 4 // 2 bits
	packSide    = 1 << 6
	packFields  = 13
	packHeader  = 8
	maxPacked   = packHeader + 8*packFields
)

// lowBytes masks a field's bytes by their count.
var lowBytes = [9]uint64{0, 1<<8 - 1, 1<<16 - 1, 1<<24 - 1, 1<<32 - 1, 1<<40 - 1, 1<<48 - 1, 1<<56 - 1, 1<<64 - 1}

// add appends e, which must not precede the last event added.
func (q *queue) add(e *event, free *freeChunks) {
	if !q.has {
		q.head, q.has = *e, true
		q.lastTS, q.lastN = e.ts, e.n
		return
	}
	n := len(q.chunks)
	if n == 0 || cap(q.chunks[n-1])-len(q.chunks[n-1]) < maxPacked+8 {
		size := minChunk
		if n > 0 {
			size = min(2*cap(q.chunks[n-1]), maxChunk)
		}
		q.chunks = append(q.chunks, free.get(size))
		n++
	}
	flags := e.kind | e.op<<packOpShift
	if e.name != "" || e.x != nil {
		flags |= packSide
		q.side = append(q.side, sideRef{e.name, e.x})
	}
	dn := int64(e.n - q.lastN)
	fields := [packFields]uint64{e.ts - q.lastTS, uint64(dn<<1 ^ dn>>63), uint64(e.src), uint64(e.clust), uint64(e.heap), uint64(e.at),
		uint64(e.site), uint64(e.desc), e.handle, e.mem, e.size, e.off, e.key}
	q.lastTS, q.lastN = e.ts, e.n
	c := q.chunks[n-1]
	at := len(c)
	c = c[:cap(c)]
	c[at] = flags
	i := at + packHeader
	var lens uint64
	for j, v := range fields {
		l := (bits.Len64(v) + 7) / 8
		binary.LittleEndian.PutUint64(c[i:], v)
		i += l
		lens |= uint64(l) << (4 * j)
	}
	binary.LittleEndian.PutUint32(c[at+1:], uint32(lens))
	binary.LittleEndian.PutUint16(c[at+5:], uint16(lens>>32))
	c[at+7] = byte(lens >> 48)
	q.chunks[n-1] = c[:i]
}

// drop replaces the head with the next event, if any.
func (q *queue) drop(free *freeChunks) {
	if len(q.chunks) == 0 {
		q.head, q.has = event{}, false
		q.side, q.sideOff = q.side[:0], 0
		return
	}
	first := q.chunks[0]
	c := first[:cap(first)]
	at := q.off
	flags := c[at]
	lens := binary.LittleEndian.Uint64(c[at+1:]) // 7 bytes of lengths, 1 of the first field
	i := at + packHeader
	var fields [packFields]uint64
	for j := range fields {
		l := lens >> (4 * j) & 0xf
		fields[j] = binary.LittleEndian.Uint64(c[i:]) & lowBytes[l]
		i += int(l)
	}
	dn := int64(fields[1]>>1) ^ -int64(fields[1]&1)
	e := event{ts: q.head.ts + fields[0], n: q.head.n + uint64(dn), kind: flags & 0xf, op: flags >> packOpShift & 3}
	e.src, e.clust, e.heap, e.at = uint32(fields[2]), uint32(fields[3]), uint32(fields[4]), uint32(fields[5])
	e.site, e.desc = uint32(fields[6]), uint32(fields[7])
	e.handle, e.mem, e.size, e.off, e.key = fields[8], fields[9], fields[10], fields[11], fields[12]
	if flags&packSide != 0 {
		r := &q.side[q.sideOff]
		e.name, e.x, *r = r.name, r.x, sideRef{}
		if q.sideOff++; q.sideOff >= 64 && 2*q.sideOff >= len(q.side) { // a queue that never empties
			q.side, q.sideOff = q.side[:copy(q.side, q.side[q.sideOff:])], 0
		}
	}
	q.head = e
	q.off = i
	if q.off == len(first) { // read to its end: the writer moved on, or it is the last
		free.put(q.chunks[0])
		q.chunks[0] = nil
		q.chunks, q.off = q.chunks[1:], 0
		if len(q.chunks) == 0 {
			q.chunks = nil
		}
	}
}
