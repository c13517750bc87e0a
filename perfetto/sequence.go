package perfetto

import (
	"sync"

	"github.com/vkgen/vkgen/internal/hashmap"
	"google.golang.org/protobuf/encoding/protowire"
)

// sequence is one packet sequence (trusted_packet_sequence_id) of a session:
// its own buffer and interning state behind one mutex. A session has several
// so that concurrent emitters rarely share a lock; which one an event lands
// on does not matter because the trace is sorted by timestamp on import.
// Methods ending in Locked require mu.
type sequence struct {
	wmu     sync.Mutex // held while this sequence's packets are being written
	mu      sync.Mutex
	s       *Session
	id      uint32 // the Output's sequence number
	pktSeq  uint32 // trusted_packet_sequence_id written: id, or 0 with OmitSequenceID
	small   int    // 1 with Options.SmallTrackUUIDs: which encoded uuid to write (counterDef)
	buf     []byte // packets not yet handed to the output
	spare   []byte // the buffer being written; under wmu
	handed  bool   // spare holds a batch an emitter handed over, not yet written; under mu and wmu
	limit   int    // drop events once buf holds this many bytes; 0: never (replay)
	wakeAt  int    // wake the flusher when buf grows past this
	started bool   // header packet written
	at      uint64 // the time of the events being written (Stamp), 0: now; under mu
	opened  bool   // a batch holding the header packet was handed over
	closed  bool   // session over: emits are no-ops
	dropped uint64 // events dropped since the last loss report
	high    bool   // buf is past 3/4 of its limit: counted in the session's high
	touch   int    // bytes of buf to take for writing before the next event (readyLocked)
	// The incremental clock (stamp.go): its value, the time of the latest
	// delta written into buf (0: none yet in this batch), and whether the
	// packets being written take absolute times instead (a resync's).
	clock    uint64
	snapshot uint64 // the latest clock snapshot's time
	absolute bool
	// The extra counter tracks of the sequence's defaults and of the
	// latest event that missed them (extradefaults.go); defaults is the
	// scratch buffer of the packet defaults that change them.
	extraDefault, extraMiss []CounterTrack
	defaults                []byte

	// Under wmu: packets the output lost (LostPackets) and the session's
	// clear generation this sequence last re-emitted its state for.
	lost     uint64
	clearGen uint32

	exit *exitSeq // where a file session publishes buf and the batch in flight; nil otherwise
	gen  uint64   // buffers swapped so far: the generation of buf in exit
	mark uint64   // the latest object-name mark written (exitstate.go)

	cats, names, annots, strs, counters []bool     // interned / described per handle
	stackMarks                          stackMarks // call stacks interned (callstacks.go)
	// An event's InternedData and the variable part of its TrackEvent,
	// built aside so that the packet's size is known before it is written.
	interning, body []byte
	threads         map[int32]struct{}
	groups          hashmap.Map[trackKey, GroupTrack] // group tracks described
	// The lanes described in buf: every batch describes the lanes it
	// begins slices on, so a batch needs no other for them, a trace whose
	// ring buffer dropped older batches included, and a resync need not
	// re-emit thousands of lanes (one per object alive at once).
	lanes hashmap.Map[trackKey, struct{}]

	_ [64]byte // keep neighbouring sequences' hot fields off this cache line
}

// readyLocked reports whether an event may be appended and writes the
// sequence header on first use. When the buffer is full the emitter hands it
// to the flusher if no write is in progress and no batch waits; otherwise the
// event is dropped and counted, and yield asks the caller to let the woken
// flusher run.
func (q *sequence) readyLocked() (ok, yield bool) {
	if q.closed || q.s.closed.Load() {
		return false, false
	}
	if !q.roomLocked() {
		q.dropped++
		return false, q.s.wake()
	}
	if q.touch > 0 && len(q.buf) == 0 {
		// The buffer was last read by the output's write, on another CPU
		// most likely: taking its lines back for writing all at once here
		// overlaps what would otherwise stall event after event (each
		// sequence unlock waits for the stores before it).
		clear(q.buf[:min(cap(q.buf), q.touch)])
		q.touch = 0
	}
	if !q.started {
		q.started = true
		q.buf = q.appendHeader(q.buf, Now(), true, false)
	}
	return true, false
}

// roomLocked reports whether q's buffer takes another event, handing a
// full buffer to the flusher where it can.
func (q *sequence) roomLocked() bool {
	return q.limit == 0 || len(q.buf) < q.limit || q.s.handOffLocked(q)
}

// swapLocked returns the buffered packets and gives the sequence the spare
// buffer; the caller holds mu and wmu and must write the result before
// releasing wmu. After drops (the sequence's own or the output's) or a
// ClearIncrementalState, the batch is prefixed with a resync (see
// appendResync), built in the spare buffer so nothing is allocated.
func (q *sequence) swapLocked() []byte {
	q.dropped += q.lost
	q.lost = 0
	g := q.s.clearGen.Load()
	if !q.closed && (q.dropped > 0 || g != q.clearGen && len(q.buf) > 0) {
		q.clearGen = g
		var b []byte
		if q.opened || !q.started {
			b = append(q.appendResync(q.spare[:0]), q.buf...)
		} else {
			// buf starts the sequence, so the resync follows it: nothing
			// was lost before it (events dropped while it was full never
			// interned anything).
			b = q.appendResync(append(q.spare[:0], q.buf...))
		}
		q.opened = true
		q.buf, q.spare = q.buf[:0], b
		q.newBatchLocked()
		q.lanes.Clear()
		q.emptiedLocked()
		q.publishSwapLocked(b)
		return b
	}
	q.opened = q.started
	b := q.buf
	q.buf = q.spare[:0]
	q.newBatchLocked()
	q.lanes.Clear()
	if q.limit > 0 { // a live sequence: about what the next batch will take
		q.touch = len(b)
	}
	q.emptiedLocked()
	q.spare = b
	q.publishSwapLocked(b)
	return b
}

// newBatchLocked forgets the incremental state a batch sets up for itself:
// the clock and the extra counter defaults.
func (q *sequence) newBatchLocked() {
	q.clock = 0
	q.extraDefault, q.extraMiss = q.extraDefault[:0], q.extraMiss[:0]
}

// publishSwapLocked tells the exit state that batch b took over buf's bytes:
// first pend, marked with the generation it supersedes, then the new buf.
func (q *sequence) publishSwapLocked(b []byte) {
	if q.exit != nil {
		q.exit.pend.set(b, q.gen, q.mark)
		q.gen++
		q.exit.cur.set(q.buf, q.gen, q.mark)
	}
}

// publishLocked tells the exit state what buf holds after an event.
func (q *sequence) publishLocked() {
	if q.exit != nil {
		q.exit.cur.set(q.buf, q.gen, q.mark)
	}
}

// appendResync writes the loss report and the sequence's whole incremental
// state. Losses are made visible: the session-wide running total of dropped
// events goes onto the DroppedEventsName counter, on a packet with
// previous_packet_dropped set. Since trace_processor then treats the
// sequence's incremental state as lost (and a lost packet may indeed have
// defined names or tracks later packets use), a SEQ_INCREMENTAL_STATE_CLEARED
// packet follows that re-emits the defaults, every name the sequence
// interned and every track it described but lanes (each batch describes its
// own), so all that follows decodes on its own even when the ring buffer
// dropped the originals.
func (q *sequence) appendResync(b []byte) []byte {
	ts := Now()
	// Absolute times: the resync may go before packets that continue the
	// batch's clock.
	q.absolute = true
	defer func() { q.absolute = false }()
	if !q.started {
		q.started = true
		b = q.appendHeader(b, ts, true, false)
	} else if q.dropped == 0 {
		b = q.appendState(b, ts, false)
	}
	if q.dropped > 0 {
		total := q.s.dropped.Add(q.dropped)
		q.dropped = 0
		// The cleared header that restarts the state carries the loss, so
		// trace_processor counts it and keeps everything after it, the
		// running total of the loss counter included.
		b = q.appendState(b, ts, true)
		b = q.appendCounter(b, droppedTrack, int64(total))
	}
	return b
}

// appendState re-emits everything later packets may refer to: a cleared
// header carrying every interned name (and previous_packet_dropped when
// dropped), then every counter, thread and group track descriptor of the
// sequence.
func (q *sequence) appendState(b []byte, ts uint64, dropped bool) []byte {
	b = q.appendHeader(b, ts, false, dropped)
	for id, ok := range q.counters {
		if d := CounterTrack(id).def(); ok && d != nil {
			b = q.appendCounterDesc(b, ts, d)
		}
	}
	for tid := range q.threads {
		b = q.appendThreadDesc(b, ts, tid)
	}
	for _, g := range q.groups.All() {
		b = q.appendTrackDesc(b, ts, g.UUID, g.Parent, g.Name)
	}
	return b
}

// doneLocked wakes the flusher when buf crossed the wake mark and reports
// whether the caller should yield once it has unlocked: a woken flusher
// otherwise waits in the emitter's run queue until the emitter is preempted
// (up to 10 ms) when every P is busy, and the buffer overflows meanwhile.
//
// Past three quarters of the limit the sequence counts as high for
// WaitForRoom.
func (q *sequence) doneLocked(before int) (yield bool) {
	if !q.high && q.limit > 0 && len(q.buf) >= q.limit/4*3 {
		q.high = true
		q.s.high.Add(1)
	}
	return before < q.wakeAt && len(q.buf) >= q.wakeAt && q.s.wake()
}

// emptiedLocked notes that buf was handed over (swapped with spare).
func (q *sequence) emptiedLocked() {
	if q.high {
		q.high = false
		q.s.high.Add(-1)
	}
}

// appendHeader writes the packet that (re)starts the sequence's incremental
// state: it clears it, sets the defaults (the process track, the incremental
// clock), describes the process and, on a restart (first false), interns
// again every name the sequence had interned. Its time is absolute.
func (q *sequence) appendHeader(b []byte, ts uint64, first, dropped bool) []byte {
	b, pkt := appendPacketHeader(b, ts, q.pktSeq)
	b = appendVarintField(b, fSequenceFlags, seqIncrementalStateCleared)
	if dropped {
		b = appendVarintField(b, fPreviousPacketDropped, 1)
	}
	if first {
		b = appendVarintField(b, fFirstPacketOnSequence, 1)
	} else {
		b = q.appendAllInterned(b)
	}
	b = q.appendDefaults(b, nil)
	q.extraDefault = q.extraDefault[:0]
	b, td := beginMsg(b, fTrackDescriptor)
	b = appendVarintField(b, fTDUUID, processUUID)
	b, pd := beginMsg(b, fTDProcess)
	b = appendVarintField(b, fPDPid, uint64(pid))
	for _, a := range cmdline {
		b = appendString(b, fPDCmdline, a)
	}
	b = appendString(b, fPDName, processName)
	b = endMsg(b, pd)
	b = endMsg(b, td)
	return endMsg(b, pkt)
}

func (q *sequence) appendAllInterned(b []byte) []byte {
	b, id := beginMsg(b, fInternedData)
	for _, t := range []struct {
		marks []bool
		table *nameTable
		field protowire.Number
	}{{q.cats, &categories, fIDCategories}, {q.names, &eventNames, fIDEventNames}, {q.annots, &annotationNames, fIDAnnotNames},
		{q.strs, &stringValues, fIDStrValues}} {
		for iid, ok := range t.marks {
			if name, valid := t.table.lookup(uint32(iid)); ok && valid {
				b = appendInterned(b, t.field, uint32(iid), name)
			}
		}
	}
	b = q.appendAllStacksLocked(b)
	return endMsg(b, id)
}

func known(marks []bool, id uint32) bool { return int(id) < len(marks) && marks[id] }

func mark(marks []bool, id uint32) []bool {
	for int(id) >= len(marks) {
		marks = append(marks, false)
	}
	marks[id] = true
	return marks
}

func appendInterned(b []byte, num protowire.Number, iid uint32, name string) []byte {
	b, e := beginMsg(b, num)
	b = appendVarintField(b, 1, uint64(iid))
	b = appendString(b, 2, name)
	return endMsg(b, e)
}

// internLocked writes the InternedData entries this event needs and is not
// yet on the sequence; cat and name are registered.
func (q *sequence) internLocked(b []byte, cat Category, name EventName, args []Arg) []byte {
	b, id := beginMsg(b, fInternedData)
	if !known(q.cats, uint32(cat)) {
		catName, _ := categories.lookup(uint32(cat))
		b = appendInterned(b, fIDCategories, uint32(cat), catName)
		q.cats = mark(q.cats, uint32(cat))
	}
	if !known(q.names, uint32(name)) {
		evName, _ := eventNames.lookup(uint32(name))
		b = appendInterned(b, fIDEventNames, uint32(name), evName)
		q.names = mark(q.names, uint32(name))
	}
	b = q.internArgsLocked(b, args)
	return endMsg(b, id)
}

// argsKnown reports whether the sequence has interned every annotation name
// and registered value of args.
func (q *sequence) argsKnown(args []Arg) bool {
	for i := range args {
		if !q.argKnown(&args[i]) {
			return false
		}
	}
	return true
}

func (q *sequence) argKnown(a *Arg) bool {
	if a.kind == argCallstack {
		return a.num == 0 || known(q.stackMarks.stacks, uint32(a.num))
	}
	return known(q.annots, uint32(a.name)) && (a.kind != argStringValue || known(q.strs, uint32(a.num)))
}

// internArgsLocked appends, inside an InternedData message, the annotation
// names and values of args the sequence has not interned. Unregistered ones
// stay unmarked; the event leaves those annotations out.
func (q *sequence) internArgsLocked(b []byte, args []Arg) []byte {
	for i := range args {
		if args[i].kind == argCallstack {
			b = q.internStackLocked(b, Callstack(args[i].num))
			continue
		}
		if n := uint32(args[i].name); !known(q.annots, n) {
			if s, ok := annotationNames.lookup(n); ok {
				b = appendInterned(b, fIDAnnotNames, n, s)
				q.annots = mark(q.annots, n)
			}
		}
		if v := uint32(args[i].num); args[i].kind == argStringValue && !known(q.strs, v) {
			if s, ok := stringValues.lookup(v); ok {
				b = appendInterned(b, fIDStrValues, v, s)
				q.strs = mark(q.strs, v)
			}
		}
	}
	return b
}

// describeThreadLocked writes the thread's TrackDescriptor once per sequence.
func (q *sequence) describeThreadLocked(b []byte, ts uint64, tid int32) []byte {
	if _, ok := q.threads[tid]; ok {
		return b
	}
	if q.threads == nil {
		q.threads = map[int32]struct{}{}
	}
	q.threads[tid] = struct{}{}
	return q.appendThreadDesc(b, ts, tid)
}

func (q *sequence) appendThreadDesc(b []byte, ts uint64, tid int32) []byte {
	b, pkt := q.appendPacketHeader(b, ts, false)
	b, td := beginMsg(b, fTrackDescriptor)
	b = appendVarintField(b, fTDUUID, ThreadTrack(tid).UUID())
	b = appendVarintField(b, fTDParentUUID, processUUID)
	b, th := beginMsg(b, fTDThread)
	b = appendVarintField(b, fThPid, uint64(pid))
	b = appendVarintField(b, fThTid, uint64(tid))
	if n := threadName(tid); n != "" {
		b = appendString(b, fThName, n)
	}
	b = endMsg(b, th)
	b = endMsg(b, td)
	return endMsg(b, pkt)
}

// now is the time of the events being written.
func (q *sequence) now() uint64 {
	if q.at != 0 {
		return q.at
	}
	return Now()
}

// eventLocked writes an instant event and then the slice events sl with the
// same timestamp. The values of cv the session records go with the
// instant as extra counter values (one packet instead of one per value).
// Its packet is sized before it is written, so nothing is shifted.
func (q *sequence) eventLocked(t Track, cat Category, name EventName, args []Arg, sl []Slice, cv []CounterValue) (yield bool) {
	if ok, yield := q.readyLocked(); !ok {
		return yield
	}
	interned := known(q.cats, uint32(cat)) && known(q.names, uint32(name)) && q.argsKnown(args)
	if !interned && !registered(cat, name) {
		return false // invalid handle: a no-op, as documented
	}
	before := len(q.buf)
	ts := q.now()
	b := q.buf
	if t.tid != 0 {
		b = q.describeThreadLocked(b, ts, t.tid)
	}
	var ex [maxExtraCounters]extraCounter
	b, nex := q.counterValuesLocked(b, ts, cv, &ex)
	var in []byte
	if !interned {
		in = q.internLocked(q.interning[:0], cat, name, args)
		q.interning = in
	}
	named, defaults := q.extraUUIDs(ex[:nex])
	body := appendExtraCounters(q.appendArgs(q.body[:0], args, interned), ex[:nex], named)
	q.body = body
	n := sizeVarintField(fTECategoryIIDs, uint64(cat)) + 2 + sizeVarintField(fTENameIID, uint64(name)) + len(body)
	if t.tid != 0 {
		n += sizeVarintField(fTETrackUUID, t.UUID())
	}
	b = q.appendPacket(b, ts, true, len(in)+len(defaults)+sizeMsg(fTrackEvent, n))
	b = append(append(b, in...), defaults...)
	b = appendMsgHeader(b, fTrackEvent, n)
	b = appendVarintField(b, fTECategoryIIDs, uint64(cat))
	b = append(b, fTEType<<3, typeInstant)
	b = appendVarintField(b, fTENameIID, uint64(name))
	if t.tid != 0 {
		b = appendVarintField(b, fTETrackUUID, t.UUID())
	}
	b = append(b, body...)
	for i := range sl {
		b = q.appendSlice(b, ts, cat, &sl[i])
	}
	q.buf = b
	return q.doneLocked(before)
}

// registered reports whether cat and name are registered handles (an event
// with others is a no-op).
func registered(cat Category, name EventName) bool {
	_, okc := categories.lookup(uint32(cat))
	_, okn := eventNames.lookup(uint32(name))
	return okc && okn
}

// maxExtraCounters is the most extra counter values trace_processor reads
// from one event (TrackEventData::kMaxNumExtraCounters).
const maxExtraCounters = 8

// counterValuesLocked describes the tracks of cv the session records that
// the sequence has not described yet and returns them as the event's extra
// counter values, zeros last: trace_processor keeps an event's values up to
// the first 0 and reads every later one as 0. When there are more than it
// reads from one event, it writes them as counter events of their own and
// returns none.
func (q *sequence) counterValuesLocked(b []byte, ts uint64, cv []CounterValue, ex *[maxExtraCounters]extraCounter) (_ []byte, n int) {
	nonzero := 0
	for i, c := range cv {
		d := c.Track.def()
		if d == nil || d.cat != 0 && q.s.opts.CategoryFilter != nil && !q.s.allows(d.cat) { // as allowsCounter
			continue
		}
		if !known(q.counters, uint32(c.Track)) {
			q.counters = mark(q.counters, uint32(c.Track))
			b = q.appendCounterDesc(b, ts, d)
		}
		if n == maxExtraCounters {
			for _, c := range cv[i:] {
				if q.s.allowsCounter(c.Track) {
					b = q.appendCounterAt(b, ts, c.Track, c.Value)
				}
			}
			for _, c := range cv[:i] { // the values that were in ex
				if q.s.allowsCounter(c.Track) {
					b = q.appendCounterAt(b, ts, c.Track, c.Value)
				}
			}
			return b, 0
		}
		e := extraCounter{c.Track, d.extra[q.small], c.Value}
		if c.Value != 0 {
			if nonzero < n {
				copy(ex[nonzero+1:n+1], ex[nonzero:n])
			}
			ex[nonzero] = e
			nonzero++
		} else {
			ex[n] = e
		}
		n++
	}
	return b, n
}

type extraCounter struct {
	track CounterTrack
	uuid  string // the extra_counter_track_uuids field
	value int64
}

// appendExtraCounters writes an event's extra counter values, and their
// tracks' uuids when named (else the sequence's defaults name them).
func appendExtraCounters(b []byte, ex []extraCounter, named bool) []byte {
	for _, e := range ex {
		if named {
			b = append(b, e.uuid...)
		}
	}
	for _, e := range ex {
		b = appendVarintField(b, fTEExtraCounterValues, uint64(e.value))
	}
	return b
}

// appendArgs writes the debug annotations whose names are interned on the
// sequence (unregistered names are skipped); interned says they all are.
func (q *sequence) appendArgs(b []byte, args []Arg, interned bool) []byte {
	for i := range args {
		a := &args[i]
		if !interned && !q.argKnown(a) {
			continue
		}
		if a.kind == argCallstack {
			if a.num != 0 {
				b = appendCallstackIID(b, a.num)
			}
			continue
		}
		var tag byte
		switch a.kind {
		case argInt:
			tag = fDAInt << 3
		case argUint:
			tag = fDAUint << 3
		case argBool:
			tag = fDABool << 3
		case argStringValue:
			tag = fDAStrIID<<3&0x7f | 0x80 // two-byte tag
		default:
			var da int
			b, da = beginMsg(b, fTEDebugAnnots)
			b = appendVarint(append(b, fDANameIID<<3), uint64(a.name))
			b = endMsg(appendString(b, fDAString, a.str), da)
			continue
		}
		// A number is under 128 bytes with its name: a one-byte length,
		// patched.
		b = append(b, fTEDebugAnnots<<3|byte(protowire.BytesType), 0, fDANameIID<<3)
		start := len(b) - 1
		b = appendVarint(b, uint64(a.name))
		b = append(b, tag)
		if a.kind == argStringValue {
			b = append(b, fDAStrIID>>4)
		}
		b = appendVarint(b, a.num)
		b[start-1] = byte(len(b) - start)
	}
	return b
}

func (q *sequence) counterLocked(c CounterTrack, v int64) (yield bool) {
	if ok, yield := q.readyLocked(); !ok {
		return yield
	}
	before := len(q.buf)
	q.buf = q.appendCounter(q.buf, c, v)
	return q.doneLocked(before)
}

// countersLocked writes the values the session records with one timestamp.
func (q *sequence) countersLocked(s *Session, vals []CounterValue) (yield bool) {
	if ok, yield := q.readyLocked(); !ok {
		return yield
	}
	before := len(q.buf)
	ts := q.now()
	for _, cv := range vals {
		if s.allowsCounter(cv.Track) {
			q.buf = q.appendCounterAt(q.buf, ts, cv.Track, cv.Value)
		}
	}
	return q.doneLocked(before)
}

// appendCounter writes the counter's descriptor (once per sequence) and a
// TYPE_COUNTER event. An invalid handle writes nothing.
func (q *sequence) appendCounter(b []byte, c CounterTrack, v int64) []byte {
	return q.appendCounterAt(b, q.now(), c, v)
}

func (q *sequence) appendCounterAt(b []byte, ts uint64, c CounterTrack, v int64) []byte {
	d := c.def()
	if d == nil {
		return b
	}
	if !known(q.counters, uint32(c)) {
		q.counters = mark(q.counters, uint32(c))
		b = q.appendCounterDesc(b, ts, d)
	}
	// The value refers to the descriptor, which is incremental state: where
	// a ring buffer overwrote it, readers skip the value until the next clear.
	b, pkt := q.appendPacketHeader(b, ts, true)
	b, te := beginMsg(b, fTrackEvent)
	b = appendVarintField(b, fTEType, typeCounter)
	b = append(b, d.track[q.small]...)
	b = appendVarintField(b, fTECounterValue, uint64(v))
	b = endMsg(b, te)
	return endMsg(b, pkt)
}

func (q *sequence) appendCounterDesc(b []byte, ts uint64, d *counterDef) []byte {
	b, pkt := q.appendPacketHeader(b, ts, false)
	b, td := beginMsg(b, fTrackDescriptor)
	b = appendVarintField(b, fTDUUID, d.uuids[q.small])
	b = appendVarintField(b, fTDParentUUID, processUUID)
	b = appendString(b, fTDStaticName, d.name)
	b, cd := beginMsg(b, fTDCounter)
	b = appendVarintField(b, fCDUnit, uint64(d.unit))
	b = endMsg(b, cd)
	b = endMsg(b, td)
	return endMsg(b, pkt)
}

func (q *sequence) objectNameLocked(mark, device uint64, objectType int32, object uint64, name string) (yield bool) {
	if ok, yield := q.readyLocked(); !ok {
		return yield
	}
	q.mark = max(q.mark, mark) // published with the packet (exitstate.go)
	before := len(q.buf)
	b, pkt := appendPacketHeader(q.buf, q.now(), q.pktSeq)
	b, ev := beginMsg(b, fVulkanAPIEvent)
	b, on := beginMsg(b, fVkDebugUtilsObjectName)
	b = appendVarintField(b, fVkONPid, uint64(uint32(pid)))
	b = appendVarintField(b, fVkONDevice, device)
	b = appendVarintField(b, fVkONObjectType, uint64(int64(objectType)))
	b = appendVarintField(b, fVkONObject, object)
	b = appendString(b, fVkONObjectName, name)
	b = endMsg(b, on)
	b = endMsg(b, ev)
	q.buf = endMsg(b, pkt)
	return q.doneLocked(before)
}
