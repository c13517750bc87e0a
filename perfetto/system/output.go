package system

import (
	"bytes"
	"time"

	"github.com/vkgen/vkgen/perfetto"
	"github.com/vkgen/vkgen/perfetto/system/shmabi"
	"google.golang.org/protobuf/encoding/protowire"
)

// output is the perfetto.Output of one data-source instance: it copies the
// session's packets (encoded without trusted_packet_sequence_id, which only
// the service may set) into SMB chunks, one SMB writer per session sequence,
// and commits them. Write and Close are serialised by the session. Category
// filtering, incremental-state clears and loss reports are the session's
// job (perfetto.Options.CategoryFilter, Session.ClearIncrementalState,
// perfetto.LostPackets).
type output struct {
	c       *conn
	target  uint32
	writers map[uint32]*seqWriter
	pending []chunkRef
	reserve []shmabi.Chunk
	stalled bool        // the last wait for a free chunk timed out
	timer   *time.Timer // paces that wait
}

// stallLimit bounds how long a writer waits for the service to free a chunk
// of a full buffer before it drops the rest of its batch. Each freed chunk
// starts a new wait: a service that keeps reading, however slowly, slows
// the writer (and through the layers' drain, the application) instead of
// losing events; one that stopped costs one wait (issue 31: with the bound
// on a whole Write, 8 threads at full speed lost a quarter of their events
// to a CPU-starved traced).
var stallLimit = 100 * time.Millisecond

// seqWriter is one SMB writer (writer id) and its current chunk. chunkID is
// read from the conn once per chunk, not per packet: the conn's counter sits
// behind a mutex every sequence's writer shares.
type seqWriter struct {
	id      uint16
	cur     shmabi.Chunk
	pl      []byte // cur's payload
	chunkID uint32
	off     int
	count   uint16
	flags   uint8
}

func newOutput(c *conn, cfg dsConfig) *output {
	return &output{c: c, target: cfg.targetBuffer, writers: map[uint32]*seqWriter{}}
}

// Write copies the batch packet by packet. When the buffer is full it
// commits what it wrote and waits for the service to free chunks (see
// acquire); when none came, the packet and the rest of the batch are
// dropped (later packets may use names the lost one defined) and reported
// as perfetto.LostPackets: the session counts them and re-emits the
// sequence's state with its next batch.
func (o *output) Write(seqID uint32, packets []byte) error {
	c := o.c
	c.smbMu.RLock()
	defer c.smbMu.RUnlock()
	if c.buf == nil {
		return nil // connection gone: the instance is being torn down
	}
	w := o.writers[seqID]
	if w == nil {
		id, ok := c.allocWriter(o.target)
		if !ok {
			return o.lost(packets)
		}
		w = &seqWriter{id: id}
		o.writers[seqID] = w
	}
	var err error
	for len(packets) > 0 {
		p, n := nextPacket(packets)
		if n < 0 {
			break // not produced by package perfetto; nothing sane to do with the rest
		}
		// Most packets fit the current chunk: copied behind their size, the
		// chunk header is written once, when the chunk is released.
		if end := w.off + shmabi.PacketHeaderSize + len(p); end <= len(w.pl) && w.count < shmabi.MaxPacketsCount {
			shmabi.PutPacketSize(w.pl[w.off:], len(p))
			copy(w.pl[w.off+shmabi.PacketHeaderSize:end], p)
			w.off = end
			w.count++
		} else if !o.writePacket(w, p) {
			err = o.lost(packets)
			break
		}
		packets = packets[n:]
	}
	o.release(w)
	o.commit()
	return err
}

// commit tells the service about the chunks completed since the last call.
func (o *output) commit() {
	if len(o.pending) > 0 {
		o.c.send(mCommitData, appendCommitData(nil, o.pending, 0), true)
		o.pending = o.pending[:0]
	}
}

// acquire takes a free chunk for writer id. When there is none it commits
// what it completed so far and waits for the service to free one (up to
// stallLimit), instead of dropping a whole batch while the
// service catches up.
// Only the session's flusher, an explicit Flush or Stop, or the control
// goroutine write, never an emitting thread: emitters meanwhile fill the
// session's buffers (and drop, counted, once those are full). After a wait
// that timed out it does not wait again until a chunk was free at once, so
// a stuck service costs one wait, not one per batch.
func (o *output) acquire(id uint16) (shmabi.Chunk, bool) {
	c := o.c
	h := shmabi.Header{WriterID: id}
	if ch, ok := c.buf.AcquireAny(c.nextPage(), shmabi.PageDiv4, h); ok {
		o.stalled = false
		return ch, true
	}
	if o.stalled {
		return shmabi.Chunk{}, false
	}
	o.commit()
	deadline := time.Now().Add(stallLimit)
	for d := 20 * time.Microsecond; time.Now().Before(deadline); d = min(2*d, time.Millisecond) {
		if o.timer == nil {
			o.timer = time.NewTimer(d)
		} else {
			o.timer.Reset(d)
		}
		select {
		case <-c.dead:
			o.timer.Stop()
			return shmabi.Chunk{}, false
		case <-o.timer.C:
		}
		if ch, ok := c.buf.AcquireAny(c.nextPage(), shmabi.PageDiv4, h); ok {
			return ch, true
		}
	}
	o.stalled = true
	return shmabi.Chunk{}, false
}

func (o *output) lost(packets []byte) error {
	n := uint64(countPackets(packets))
	o.c.p.smbDropped.Add(n)
	return perfetto.LostPackets{N: n}
}

const fPacket = 1 // Trace.packet

// nextPacket returns the first Trace.packet of b and the bytes it takes, or
// n < 0 when b does not start with one. Package perfetto writes the tag and
// a one- or two-byte length for nearly every packet.
func nextPacket(b []byte) (p []byte, n int) {
	if len(b) >= 3 && b[0] == fPacket<<3|byte(protowire.BytesType) {
		if l := int(b[1]); l < 0x80 {
			if 2+l <= len(b) {
				return b[2 : 2+l], 2 + l
			}
		} else if l := int(b[1]&0x7f) | int(b[2])<<7; b[2] < 0x80 && 3+l <= len(b) {
			return b[3 : 3+l], 3 + l
		}
	}
	num, typ, n := protowire.ConsumeTag(b)
	if n < 0 || num != fPacket || typ != protowire.BytesType {
		return nil, -1
	}
	p, m := protowire.ConsumeBytes(b[n:])
	if m < 0 {
		return nil, -1
	}
	return p, n + m
}

func countPackets(b []byte) int {
	n := 0
	for len(b) > 0 {
		_, _, k := protowire.ConsumeField(b)
		if k < 0 {
			break
		}
		b = b[k:]
		n++
	}
	return n
}

// Close releases the writers; chunks were committed by the last Write.
func (o *output) Close() error {
	for _, w := range o.writers {
		o.c.freeWriter(w.id)
	}
	o.writers = nil
	return nil
}

// space is what the current chunk can still take, fragment header included.
func (w *seqWriter) space() int {
	if !w.cur.Valid() || w.count >= shmabi.MaxPacketsCount {
		return 0
	}
	return w.cur.PayloadSize() - w.off
}

// writePacket copies r into the writer's chunks, fragmenting it across as
// many chunks as it needs. Every chunk it needs is acquired before anything
// is written, so a full SMB drops whole packets, never leaves half of one.
func (o *output) writePacket(w *seqWriter, r []byte) bool {
	c := o.c
	if w.space() < shmabi.PacketHeaderSize+1 {
		o.release(w)
	}
	n := len(r)
	first := 0
	if w.cur.Valid() {
		first = min(n, w.space()-shmabi.PacketHeaderSize)
	}
	per := c.buf.ChunkSize(shmabi.PageDiv4) - shmabi.ChunkHeaderSize - shmabi.PacketHeaderSize
	need := 0
	if rest := n - first; rest > 0 || !w.cur.Valid() {
		need = max(1, (rest+per-1)/per)
	}
	res := o.reserve[:0]
	for range need {
		ch, ok := o.acquire(w.id)
		if !ok {
			for _, x := range res {
				c.buf.Unacquire(x)
			}
			o.reserve = res[:0]
			return false
		}
		res = append(res, ch)
	}
	o.reserve = res
	var flags uint8
	for off := 0; ; {
		if !w.cur.Valid() {
			w.cur, res = res[0], res[1:]
			w.pl = c.buf.Payload(w.cur)
			w.chunkID, w.off, w.count, w.flags = c.chunkID(w.id), 0, 0, flags
		}
		k := min(n-off, w.space()-shmabi.PacketHeaderSize)
		shmabi.PutPacketSize(w.pl[w.off:], k)
		copy(w.pl[w.off+shmabi.PacketHeaderSize:], r[off:off+k])
		w.off += shmabi.PacketHeaderSize + k
		w.count++
		off += k
		if off == n {
			return true
		}
		w.flags |= shmabi.LastPacketContinuesOnNextChunk
		o.release(w)
		flags = shmabi.FirstPacketContinuesFromPrevChunk
	}
}

// release completes the current chunk and queues it for CommitData; an
// empty one goes back to free.
func (o *output) release(w *seqWriter) {
	if !w.cur.Valid() {
		return
	}
	c := o.c
	if w.count == 0 {
		c.buf.Unacquire(w.cur)
	} else {
		c.buf.SetHeader(w.cur, shmabi.Header{ChunkID: w.chunkID, WriterID: w.id, Count: w.count, Flags: w.flags})
		ref := chunkRef{page: uint32(w.cur.Page), chunk: uint32(w.cur.Index), targetBuffer: o.target}
		if c.emulated {
			// The copy travels in CommitData; the chunk is free at once.
			ref.data = bytes.Clone(c.buf.Bytes(w.cur))
			c.buf.Unacquire(w.cur)
			o.pending = append(o.pending, ref)
		} else if c.buf.ReleaseComplete(w.cur) {
			o.pending = append(o.pending, ref)
		}
		c.bumpChunkID(w.id)
	}
	w.cur, w.pl = shmabi.Chunk{}, nil
}
