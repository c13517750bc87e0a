package system

import (
	"sync/atomic"

	"github.com/vkgen/vkgen/perfetto"
	"github.com/vkgen/vkgen/perfetto/system/internal/ipc"
	"github.com/vkgen/vkgen/perfetto/system/shmabi"
	"google.golang.org/protobuf/encoding/protowire"
)

// TracePacket / TrackEvent fields this file reads or writes.
const (
	fPacket               = 1 // Trace.packet
	fTimestamp            = 8
	fTrustedSeqID         = 10 // set by the service only; traced rejects packets carrying it
	fTrackEvent           = 11
	fInternedData         = 12
	fSequenceFlags        = 13
	fPrevPacketDropped    = 42
	fTimestampClockID     = 58
	fTracePacketDefaults  = 59
	fTrackDescriptor      = 60
	fFirstPacketOnSeq     = 87
	fTECategoryIIDs       = 3
	fTEType               = 9
	fTETrackUUID          = 11
	fTECounterValue       = 30
	seqIncrementalCleared = 1
	typeCounter           = 4
	clockBoottime         = 6
	maxDescriptors        = 4096 // per writer, for re-emission after a clear
)

// SMBDroppedName is the counter track (UNIT_COUNT) on which a writer reports
// the running total of packets it dropped because the shared memory buffer
// was full; each value packet also has previous_packet_dropped set.
const SMBDroppedName = "vkgen.perfetto.smb_dropped_packets"

var smbDroppedTrack = perfetto.NewCounterTrack(SMBDroppedName, perfetto.UnitCount)

// output is the perfetto.Output of one data-source instance: it copies the
// session's packets into SMB chunks, one SMB writer per session sequence,
// and commits them. Write and Close are serialised by the session.
type output struct {
	c       *conn
	target  uint32
	filter  *catFilter
	writers map[uint32]*seqWriter
	clear   atomic.Uint32 // bumped by ClearIncrementalState
	dropped atomic.Uint64 // packets lost because the SMB was full
	// unreported is set while drops are not yet in the trace; the next
	// writer that gets a chunk reports the running total.
	unreported bool
	scratch    []byte
	extra      []byte
	pending    []chunkRef
	reserve    []shmabi.Chunk
}

// seqWriter is one SMB writer (writer id) and the incremental state its
// sequence carries, so that state can be re-emitted after a clear.
type seqWriter struct {
	id        uint16
	cur       shmabi.Chunk
	off       int
	count     uint16
	flags     uint8
	clearGen  uint32
	needClear bool
	lossDesc  bool
	interned  [4]map[uint64]string // InternedData fields 1..3 by iid
	defaults  []byte
	descs     map[uint64][]byte // TrackDescriptor bytes by uuid
}

func newOutput(c *conn, cfg dsConfig) *output {
	return &output{c: c, target: cfg.targetBuffer, filter: newCatFilter(cfg.trackEvent), writers: map[uint32]*seqWriter{}}
}

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
			n := uint64(countPackets(packets))
			o.dropped.Add(n)
			c.p.smbDropped.Add(n)
			o.unreported = true
			return nil
		}
		w = &seqWriter{id: id, clearGen: o.clear.Load(), descs: map[uint64][]byte{}}
		o.writers[seqID] = w
	}
	if g := o.clear.Load(); g != w.clearGen {
		w.clearGen, w.needClear = g, true
	}
	for len(packets) > 0 {
		num, typ, n := protowire.ConsumeTag(packets)
		if n < 0 || num != fPacket || typ != protowire.BytesType {
			break // not produced by package perfetto; nothing sane to do with the rest
		}
		p, m := protowire.ConsumeBytes(packets[n:])
		if m < 0 {
			break
		}
		packets = packets[n+m:]
		o.emit(w, p)
	}
	if o.unreported && o.writePacket(w, o.lossReport(w)) {
		o.unreported = false
	}
	o.release(w)
	if len(o.pending) > 0 {
		c.send(mCommitData, appendCommitData(nil, o.pending, 0), true)
		o.pending = o.pending[:0]
	}
	return nil
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

// emit rewrites one packet for the service and writes it, preceded by the
// re-emitted incremental state after a clear and by a loss report after
// drops.
func (o *output) emit(w *seqWriter, p []byte) {
	r, cleared, keep := o.rewrite(w, p)
	if !keep {
		return
	}
	if w.needClear && !cleared {
		if !o.writeClear(w) {
			o.drop(w)
			return
		}
	}
	w.needClear = false
	if o.unreported {
		if !o.writePacket(w, o.lossReport(w)) {
			o.drop(w)
			return
		}
		o.unreported = false
	}
	if !o.writePacket(w, r) {
		o.drop(w)
	}
}

// drop counts a lost packet. It may have defined interned names or tracks
// later packets use, so the writer re-emits its incremental state (as after
// ClearIncrementalState) before its next packet.
func (o *output) drop(w *seqWriter) {
	o.dropped.Add(1)
	o.c.p.smbDropped.Add(1)
	o.unreported = true
	w.needClear = true
}

// rewrite copies p without trusted_packet_sequence_id (the service sets it
// per writer) and without a track event whose categories the instance does
// not record, learning the sequence's interned names, defaults and track
// descriptors on the way. keep is false when nothing worth writing remains.
func (o *output) rewrite(w *seqWriter, p []byte) (r []byte, cleared, keep bool) {
	r = o.scratch[:0]
	filtered, useful := false, false
	for b := p; len(b) > 0; {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, false, false
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return nil, false, false
		}
		field, val := b[:n+m], b[n:n+m]
		b = b[n+m:]
		var data []byte
		if typ == protowire.BytesType {
			data, _ = protowire.ConsumeBytes(val)
		}
		switch num {
		case fTrustedSeqID:
			continue
		case fSequenceFlags:
			if v, _ := protowire.ConsumeVarint(val); v&seqIncrementalCleared != 0 {
				cleared = true
				for i := range w.interned {
					w.interned[i] = nil
				}
			}
		case fTrackEvent:
			if !o.filter.all && !o.eventAllowed(data) {
				filtered = true
				continue
			}
			useful = true
		case fInternedData:
			w.learnInterned(data)
			useful = true
		case fTracePacketDefaults:
			w.defaults = append(w.defaults[:0], data...)
			useful = true
		case fTrackDescriptor:
			w.learnDescriptor(data)
			useful = true
		case fTimestamp, fTimestampClockID, fFirstPacketOnSeq:
		default:
			useful = true
		}
		r = append(r, field...)
	}
	o.scratch = r
	return r, cleared, useful || !filtered
}

func (o *output) eventAllowed(te []byte) bool {
	allowed, any := false, false
	check := func(id uint64) {
		any = true
		ok, known := o.filter.cache[id]
		if !known {
			ok = o.filter.allows(perfetto.Category(id).String())
			o.filter.cache[id] = ok
		}
		allowed = allowed || ok
	}
	_ = ipc.Walk(te, func(num protowire.Number, v uint64, data []byte) error {
		if num != fTECategoryIIDs {
			return nil
		}
		if data == nil {
			check(v)
			return nil
		}
		for len(data) > 0 { // packed
			x, k := protowire.ConsumeVarint(data)
			if k < 0 {
				break
			}
			check(x)
			data = data[k:]
		}
		return nil
	})
	return allowed || !any // events without a category (counters) always pass
}

func (w *seqWriter) learnInterned(d []byte) {
	_ = ipc.Walk(d, func(num protowire.Number, _ uint64, e []byte) error {
		if num < 1 || num > 3 || e == nil {
			return nil
		}
		var iid uint64
		var name string
		_ = ipc.Walk(e, func(n protowire.Number, v uint64, s []byte) error {
			if n == 1 {
				iid = v
			} else if n == 2 {
				name = string(s)
			}
			return nil
		})
		if w.interned[num] == nil {
			w.interned[num] = map[uint64]string{}
		}
		w.interned[num][iid] = name
		return nil
	})
}

func (w *seqWriter) learnDescriptor(d []byte) {
	var uuid uint64
	_ = ipc.Walk(d, func(n protowire.Number, v uint64, _ []byte) error {
		if n == 1 {
			uuid = v
		}
		return nil
	})
	if _, ok := w.descs[uuid]; ok || len(w.descs) < maxDescriptors {
		w.descs[uuid] = append([]byte(nil), d...)
	}
}

func appendPacketStart(b []byte) []byte {
	b = appendVarint(b, fTimestamp, perfetto.Now())
	return appendVarint(b, fTimestampClockID, clockBoottime)
}

// writeClear re-emits the sequence's incremental state after the service
// asked to clear it: a SEQ_INCREMENTAL_STATE_CLEARED packet with the packet
// defaults and every interned name the sequence uses, then its track
// descriptors, so later packets referring to them stay valid even though
// the ring buffer may have overwritten the originals.
func (o *output) writeClear(w *seqWriter) bool {
	b := appendPacketStart(o.extra[:0])
	b = appendVarint(b, fSequenceFlags, seqIncrementalCleared)
	if w.defaults != nil {
		b = appendBytes(b, fTracePacketDefaults, w.defaults)
	}
	var id []byte
	for k := 1; k <= 3; k++ {
		for iid, name := range w.interned[k] {
			var e []byte
			e = appendVarint(e, 1, iid)
			e = appendString(e, 2, name)
			id = appendBytes(id, protowire.Number(k), e)
		}
	}
	if id != nil {
		b = appendBytes(b, fInternedData, id)
	}
	o.extra = b
	if !o.writePacket(w, b) {
		return false
	}
	for _, d := range w.descs {
		b = appendPacketStart(o.extra[:0])
		b = appendBytes(b, fTrackDescriptor, d)
		o.extra = b
		if !o.writePacket(w, b) {
			return false
		}
	}
	return true
}

// lossReport is the packet that makes drops visible: the instance's running
// total on the SMBDroppedName counter, with previous_packet_dropped set,
// preceded once per writer by the counter's descriptor.
func (o *output) lossReport(w *seqWriter) []byte {
	b := o.extra[:0]
	if !w.lossDesc {
		var td, cd []byte
		td = appendVarint(td, 1, smbDroppedTrack.UUID())
		td = appendVarint(td, 5, perfetto.ProcessTrackUUID())
		td = appendString(td, 10, SMBDroppedName)
		cd = appendVarint(cd, 3, uint64(perfetto.UnitCount))
		td = appendBytes(td, 8, cd)
		var pkt []byte
		pkt = appendPacketStart(pkt)
		pkt = appendBytes(pkt, fTrackDescriptor, td)
		if o.writePacket(w, pkt) {
			w.lossDesc = true
			w.learnDescriptor(td)
		}
	}
	b = appendPacketStart(b)
	b = appendVarint(b, fPrevPacketDropped, 1)
	var te []byte
	te = appendVarint(te, fTEType, typeCounter)
	te = appendVarint(te, fTETrackUUID, smbDroppedTrack.UUID())
	te = appendVarint(te, fTECounterValue, o.dropped.Load())
	b = appendBytes(b, fTrackEvent, te)
	o.extra = b
	return b
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
		ch, ok := c.buf.AcquireAny(c.nextPage(), shmabi.PageDiv4, shmabi.Header{WriterID: w.id})
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
			w.off, w.count, w.flags = 0, 0, flags
		}
		k := min(n-off, w.space()-shmabi.PacketHeaderSize)
		pl := c.buf.Payload(w.cur)
		shmabi.PutPacketSize(pl[w.off:], k)
		copy(pl[w.off+shmabi.PacketHeaderSize:], r[off:off+k])
		w.off += shmabi.PacketHeaderSize + k
		w.count++
		off += k
		if off == n {
			c.buf.SetHeader(w.cur, shmabi.Header{ChunkID: c.chunkID(w.id), WriterID: w.id, Count: w.count, Flags: w.flags})
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
		c.buf.SetHeader(w.cur, shmabi.Header{ChunkID: c.chunkID(w.id), WriterID: w.id, Count: w.count, Flags: w.flags})
		if c.buf.ReleaseComplete(w.cur) {
			o.pending = append(o.pending, chunkRef{uint32(w.cur.Page), uint32(w.cur.Index), o.target})
		}
		c.bumpChunkID(w.id)
	}
	w.cur = shmabi.Chunk{}
}
