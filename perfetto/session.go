package perfetto

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Output receives the encoded packets of one session. Write gets whole,
// framed TracePackets (each `0x0a len packet`, i.e. a valid Trace fragment)
// of one sequence, in that sequence's order; calls are serialised by the
// session. A file output appends them; the system backend copies them into
// its shared-memory chunks per sequence. An error ends the session, except
// LostPackets.
type Output interface {
	Write(seqID uint32, packets []byte) error
	Close() error
}

// LostPackets is the error an Output's Write returns when it had to drop N
// packets of the batch (a full shared memory buffer) yet can go on. An
// output that drops a packet must drop the rest of that batch too: later
// packets may refer to names or tracks the lost one defined. The session
// keeps running, adds N to its dropped count, and starts that sequence's
// next batch with the loss report and its whole incremental state, so what
// follows decodes again.
type LostPackets struct{ N uint64 }

func (e LostPackets) Error() string { return fmt.Sprintf("%d packets lost", e.N) }

// Options tune a session; the zero value gives the defaults.
type Options struct {
	// FlushInterval bounds how long an emitted event stays in memory before it
	// is handed to the output (default DefaultFlushInterval).
	FlushInterval time.Duration
	// BufferBytes is the per-sequence buffer above which events are dropped
	// and counted (default DefaultBufferBytes).
	BufferBytes int
	// Sequences is the number of live sequences (default 2*GOMAXPROCS
	// clamped to 4..32, so concurrent emitters seldom pick the same one).
	Sequences int
	// CategoryFilter, when set, says which categories the session records:
	// instant events, and counters of tracks registered with
	// NewCounterTrackIn, of a category it rejects are never encoded for this
	// session. It is called once per category per session (the answer is
	// cached), possibly from an emitting goroutine, so it must be quick and
	// must not emit. Raw packets (VkObjectName), category-less counters and
	// the categories of NewAlwaysCategory are always recorded.
	CategoryFilter func(Category) bool
	// OmitSequenceID writes packets without trusted_packet_sequence_id, for
	// outputs whose transport assigns it (traced rejects producer-set ids);
	// the Output still gets the sequence number with each Write. Such a
	// session leaves the closing TraceStats to that service too.
	OmitSequenceID bool
	// SmallTrackUUIDs writes the tracks the process numbers itself (counter
	// tracks, slice lanes) with small uuids, 1-3 bytes where a uuid unique
	// among producers takes 10: only for an output that holds no other
	// producer's tracks (StartFileSession sets it).
	SmallTrackUUIDs bool
	// Compress writes a trace file's batches compressed (compress.go): about
	// a tenth of the bytes, read by trace_processor, the Perfetto UI and
	// perfetto/decode. StartFileSession only.
	Compress bool
}

const (
	DefaultFlushInterval = 100 * time.Millisecond
	DefaultBufferBytes   = 1 << 20
	replayChunk          = 256 << 10 // replay writes through once it has this much
)

// DroppedEventsName is the counter track (UNIT_COUNT) on which a session
// reports the running total of events it dropped because an output could not
// keep up; each such value packet also has previous_packet_dropped set.
const DroppedEventsName = "vkgen.perfetto.dropped_events"

var droppedTrack = NewCounterTrack(DroppedEventsName, UnitCount)

// Session is one stream of packets with its own interning state and output.
//
// Locks, in acquisition order: sequence.wmu (one writer of a sequence's
// packets at a time, so they reach the output in order), sequence.mu (its
// buffer), outMu (Output calls; a leaf). An emitter holding sequence.mu only
// ever TryLocks wmu.
type Session struct {
	name    string
	out     Output
	opts    Options
	replay  *sequence
	seqs    []*sequence
	exit    *exitFile // a file session's exit state; nil otherwise
	dropped atomic.Uint64
	live    atomic.Bool // replay done: live sequences may be written
	closed  atomic.Bool // output closed (stopped or failed)

	clearGen atomic.Uint32 // bumped by ClearIncrementalState
	pref     atomic.Uint32 // index in seqs of the sequence pick tries first
	catMu    sync.Mutex
	catOK    atomic.Pointer[[]bool] // CategoryFilter answers by Category; grows under catMu

	// The latest replay's time, or the last event moved past it: a live
	// event stamped no later goes in one nanosecond after (after).
	floor atomic.Uint64

	outMu sync.Mutex
	err   error // under outMu: first output error

	high     atomic.Int32  // sequences past three quarters of their limit (WaitForRoom)
	stalled  atomic.Bool   // WaitForRoom gave up on it until high is 0 again
	ready    chan struct{} // closed when the replay is done
	wakeCh   chan struct{}
	stopCh   chan struct{}
	flushed  chan struct{} // closed when the flusher goroutine has exited
	stopOnce sync.Once
}

var (
	startMu sync.Mutex // serialises session starts and hook registration; held through replays
	hooks   []*hook

	listMu    sync.Mutex
	active    atomic.Pointer[[]*Session] // nil when no session runs
	onEnabled func(bool)                 // under listMu
)

// OnEnabled registers f to be told when Enabled changes (called with listMu
// held: f must not start or stop sessions). One function; a later one
// replaces it. f learns the current state at once.
func OnEnabled(f func(bool)) {
	listMu.Lock()
	defer listMu.Unlock()
	onEnabled = f
	f(active.Load() != nil)
}

type hook struct{ fn func(*Emitter) }

// Enabled reports whether any session is running: one atomic load, for
// layers to skip building event arguments when nobody listens.
func Enabled() bool { return active.Load() != nil }

// Sessions returns the running sessions.
func Sessions() []*Session {
	if p := active.Load(); p != nil {
		return append([]*Session(nil), (*p)...)
	}
	return nil
}

func setActive(f func([]*Session) []*Session) {
	listMu.Lock()
	defer listMu.Unlock()
	var cur []*Session
	if p := active.Load(); p != nil {
		cur = *p
	}
	next := f(append([]*Session(nil), cur...))
	if len(next) == 0 {
		active.Store(nil)
	} else {
		active.Store(&next)
	}
	if onEnabled != nil && (len(cur) == 0) != (len(next) == 0) {
		onEnabled(len(next) != 0)
	}
}

// RegisterReplay adds a session-start hook. Every session that starts later
// runs all hooks, in registration order, before it delivers any live event;
// the hook writes the current state through the Emitter. Sessions already
// running get the new hook's replay at once (a layer that loads after
// tracing began still publishes its state). The returned function removes
// the hook. Hooks must not start or stop sessions.
func RegisterReplay(fn func(*Emitter)) (unregister func()) {
	if fn == nil {
		return func() {}
	}
	h := &hook{fn: fn}
	startMu.Lock()
	defer startMu.Unlock()
	hooks = append(hooks, h)
	for _, s := range Sessions() {
		s.runReplay([]*hook{h})
	}
	return func() {
		startMu.Lock()
		defer startMu.Unlock()
		for i, x := range hooks {
			if x == h {
				hooks = append(hooks[:i:i], hooks[i+1:]...)
				return
			}
		}
	}
}

// StartSession starts a session writing to out: it becomes visible to live
// emitters first (their events are held back), then runs every replay hook,
// writes the replay, and only then lets the held-back live events through.
// So the output holds the complete replay before any live event, and no event
// racing with the start is lost: one that changed state after its hook's
// snapshot appears live after the replay, one that raced with the snapshot
// may appear in both (the later packet carries the current value).
func StartSession(name string, out Output, opts Options) (*Session, error) {
	return startSession(name, out, opts.withDefaults(), nil)
}

func (opts Options) withDefaults() Options {
	if opts.FlushInterval <= 0 {
		opts.FlushInterval = DefaultFlushInterval
	}
	if opts.BufferBytes <= 0 {
		opts.BufferBytes = DefaultBufferBytes
	}
	if opts.Sequences <= 0 {
		opts.Sequences = min(max(2*runtime.GOMAXPROCS(0), 4), 32)
	}
	return opts
}

// startSession is StartSession with opts defaulted and, for a file session,
// the exit state its sequences publish.
func startSession(name string, out Output, opts Options, exit *exitFile) (*Session, error) {
	if out == nil {
		return nil, errors.New("perfetto: nil output")
	}
	s := &Session{
		exit:    exit,
		name:    name,
		out:     out,
		opts:    opts,
		ready:   make(chan struct{}),
		wakeCh:  make(chan struct{}, 1),
		stopCh:  make(chan struct{}),
		flushed: make(chan struct{}),
	}
	s.replay = s.newSequence(1, 0, exit)
	for i := range opts.Sequences {
		s.seqs = append(s.seqs, s.newSequence(uint32(i+2), opts.BufferBytes, exit))
	}

	startMu.Lock()
	setActive(func(l []*Session) []*Session { return append(l, s) })
	s.runReplay(hooks)
	startMu.Unlock()
	s.live.Store(true)
	close(s.ready)
	go s.flusher()
	if err := s.Err(); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

func (s *Session) newSequence(id uint32, limit int, exit *exitFile) *sequence {
	q := &sequence{s: s, id: id, pktSeq: id, limit: limit, wakeAt: limit / 4, exit: exit.seq(id)}
	if s.opts.SmallTrackUUIDs {
		q.small = 1
	}
	if s.opts.OmitSequenceID {
		q.pktSeq = 0
	}
	return q
}

// allows reports whether the session records category c: one nil check
// without a CategoryFilter, else an atomic load and an index once c was
// decided.
func (s *Session) allows(c Category) bool {
	if s.opts.CategoryFilter == nil {
		return true
	}
	if p := s.catOK.Load(); p != nil && int(c) < len(*p) {
		return (*p)[c]
	}
	return s.decideCategories(c)
}

// decideCategories asks the filter about every category registered since the
// last call. An unregistered c is allowed: the emit is a no-op anyway.
func (s *Session) decideCategories(c Category) bool {
	s.catMu.Lock()
	defer s.catMu.Unlock()
	var old []bool
	if p := s.catOK.Load(); p != nil {
		old = *p
	}
	if int(c) < len(old) {
		return old[c]
	}
	n := len(old)
	if p := categories.names.Load(); p != nil {
		n = max(n, len(*p))
	}
	next := make([]bool, n)
	copy(next, old)
	for id := max(1, len(old)); id < n; id++ {
		next[id] = alwaysRecorded(Category(id)) || s.opts.CategoryFilter(Category(id))
	}
	s.catOK.Store(&next)
	return int(c) >= n || next[c]
}

// allowsCounter applies the filter to counter tracks with a category.
func (s *Session) allowsCounter(c CounterTrack) bool {
	if s.opts.CategoryFilter == nil {
		return true
	}
	cat := c.Category()
	return cat == 0 || s.allows(cat)
}

// ClearIncrementalState makes every sequence of the session start its next
// batch with a SEQ_INCREMENTAL_STATE_CLEARED packet that re-emits the packet
// defaults, every name the sequence interned and every track it described
// but lanes, which each batch describes itself (the system backend's answer
// to the service's ClearIncrementalState, so a ring buffer that overwrote
// the originals still decodes). It never blocks: it may be called from
// anywhere, an Output's Write included.
func (s *Session) ClearIncrementalState() { s.clearGen.Add(1) }

// runReplay runs hooks against the session's replay sequence and writes
// everything they emitted. A panicking hook is logged and skipped.
func (s *Session) runReplay(hs []*hook) {
	e := &Emitter{s: s}
	for _, h := range hs {
		func() {
			defer func() {
				if r := recover(); r != nil {
					logf("session %s: replay hook panicked: %v", s.name, r)
				}
			}()
			h.fn(e)
		}()
	}
	if s.exit != nil {
		// A trace file's replay describes the process even when no hook
		// emitted anything, so a program that makes no traced call (one
		// that only enumerates devices, or dies early) still leaves a
		// trace readers accept rather than an empty file.
		s.replay.mu.Lock()
		s.replay.readyLocked()
		s.replay.mu.Unlock()
	}
	for now := Now(); ; { // live events come after the replay in time too (after)
		if f := s.floor.Load(); now <= f || s.floor.CompareAndSwap(f, now) {
			break
		}
	}
	s.flushSeq(s.replay, false)
}

// after returns the time at which an event stamped t (0: now) goes into
// the session: t, unless t is not past the session's last replay (an event
// recorded before the session started, emitted after its replay, say), then
// the nanosecond after the replay and after any event already moved there.
// Readers order by time alone: the replay's state must come first.
func (s *Session) after(t uint64) uint64 {
	if t == 0 {
		t = Now()
	}
	for {
		f := s.floor.Load()
		if t > f {
			return t
		}
		if s.floor.CompareAndSwap(f, f+1) {
			return f + 1
		}
	}
}

// flushSeq hands q's buffered packets to the output; final also closes q.
func (s *Session) flushSeq(q *sequence, final bool) {
	q.wmu.Lock()
	defer q.wmu.Unlock()
	q.mu.Lock()
	if q.handed { // an emitter's full buffer, swapped into spare: it goes first
		q.handed = false
		b := q.spare
		q.mu.Unlock()
		s.write(q, b)
		q.mu.Lock()
	}
	b := q.swapLocked()
	if final {
		q.closed = true
	}
	q.mu.Unlock()
	s.write(q, b)
}

// write hands q's packets to the output; the caller holds q.wmu (which every
// write of q.closed holds too). LostPackets is counted on q and reported with
// its next batch. Any other error ends the
// session: it leaves the fan-out, the output is closed, and the error is
// logged and returned by Err and Stop. Emitters notice through s.closed.
func (s *Session) write(q *sequence, b []byte) {
	s.outMu.Lock()
	defer s.outMu.Unlock()
	if len(b) == 0 || s.closed.Load() {
		return
	}
	err := s.out.Write(q.id, b)
	if q.exit != nil { // written, or never will be
		q.exit.pend.set(nil, 0, 0)
		s.exit.endWrite()
	}
	if err != nil {
		var lost LostPackets
		if errors.As(err, &lost) {
			if q.closed { // the final batch: nothing follows to report it in
				s.dropped.Add(max(lost.N, 1))
			} else {
				q.lost += max(lost.N, 1)
			}
			return
		}
		s.err = err
		logf("session %s: %v; this trace session is stopped", s.name, err)
		setActive(func(l []*Session) []*Session { return remove(l, s) })
		s.closeOutputLocked()
	}
}

func (s *Session) closeOutputLocked() {
	if s.closed.Swap(true) {
		return
	}
	if err := s.out.Close(); err != nil && s.err == nil {
		s.err = err
		logf("session %s: %v", s.name, err)
	}
}

// handOffLocked makes room in q's full buffer without writing it: when no
// write of q is in progress and no batch is already waiting, the buffer
// becomes the batch the flusher writes next, so a flusher slow to get a CPU
// does not turn into drops, and a stalled output never blocks an emitter.
// It reports whether q has room now.
func (s *Session) handOffLocked(q *sequence) bool {
	if !s.live.Load() || q.handed || !q.wmu.TryLock() {
		return false
	}
	q.swapLocked()
	q.handed = true
	q.wmu.Unlock()
	s.wake()
	return true
}

func (s *Session) all() []*sequence {
	return append([]*sequence{s.replay}, s.seqs...)
}

func remove(l []*Session, s *Session) []*Session {
	for i, x := range l {
		if x == s {
			return append(l[:i], l[i+1:]...)
		}
	}
	return l
}

func (s *Session) wake() bool {
	select {
	case s.wakeCh <- struct{}{}:
		return true
	default:
		return false
	}
}

func (s *Session) flusher() {
	defer close(s.flushed)
	t := time.NewTicker(s.opts.FlushInterval)
	defer t.Stop()
	for {
		select {
		case <-s.stopCh:
			return
		case <-t.C:
			calibrateClock()
		case <-s.wakeCh:
		}
		if s.Flush() != nil {
			return
		}
	}
}

// Flush hands every buffered live event to the output now. It returns the
// output error that stopped the session, if any.
func (s *Session) Flush() error {
	<-s.ready
	for _, q := range s.seqs {
		s.flushSeq(q, false)
	}
	return s.Err()
}

// Err returns the output error that stopped the session, if any.
func (s *Session) Err() error {
	s.outMu.Lock()
	defer s.outMu.Unlock()
	return s.err
}

// Stop ends the session: it stops receiving events, writes everything
// buffered, ends a session that numbers its own sequences with TraceStats
// (see appendTraceStats) and closes the output. It returns the first output error. Safe to
// call more than once and from any goroutine (not from a replay hook).
func (s *Session) Stop() error {
	s.stopOnce.Do(func() {
		<-s.ready
		setActive(func(l []*Session) []*Session { return remove(l, s) })
		close(s.stopCh)
		<-s.flushed
		for _, q := range s.all() {
			s.flushSeq(q, true)
		}
		if !s.opts.OmitSequenceID {
			s.replay.wmu.Lock()
			s.write(s.replay, s.appendTraceStats(nil))
			s.replay.wmu.Unlock()
		}
		s.outMu.Lock()
		s.closeOutputLocked()
		s.outMu.Unlock()
	})
	return s.Err()
}

// Name is the name the session was started with (a file session: its path).
func (s *Session) Name() string { return s.name }

// Dropped is the number of events this session dropped so far and reported
// in the trace (drops are reported at each flush).
func (s *Session) Dropped() uint64 { return s.dropped.Load() }

// FlushAll flushes every running session (layers call it at
// vkDestroyInstance when the trace should continue with a later instance).
func FlushAll() error {
	var errs []error
	for _, s := range Sessions() {
		errs = append(errs, s.Flush())
	}
	return errors.Join(errs...)
}

// StopAll stops every running session (process exit, or vkDestroyInstance
// when the trace should end there).
func StopAll() error {
	var errs []error
	for _, s := range Sessions() {
		errs = append(errs, s.Stop())
	}
	return errors.Join(errs...)
}

// pick returns a locked live sequence with room for an event. It prefers
// the sequence emitters last settled on, so a lone emitting thread keeps to
// one (one buffer warm and grown, one batch per flush, one SMB writer);
// when that one is contended it takes an uncontended one from a random
// start. A full sequence is passed over and the emitter settles on the next
// with room, so a burst fills every sequence's buffer before any event is
// dropped; when none has room or all are busy, it waits for the preferred
// one, whose readyLocked then drops the event.
func (s *Session) pick() *sequence {
	n := uint32(len(s.seqs))
	h := s.pref.Load()
	full := false
	if q := s.seqs[h]; q.mu.TryLock() {
		if q.roomLocked() {
			return q
		}
		q.mu.Unlock()
		full = true
	}
	i := uint32(uint64(rand.Uint32()) * uint64(n) >> 32) // no division: the bias is immaterial here
	for k, j := uint32(0), i; k < n; k++ {
		if q := s.seqs[j]; j != h && q.mu.TryLock() {
			if q.roomLocked() {
				if full {
					s.pref.Store(j)
				}
				return q
			}
			q.mu.Unlock()
		}
		if j++; j == n {
			j = 0
		}
	}
	q := s.seqs[h]
	q.mu.Lock()
	return q
}

// unlock releases a sequence picked for one event; yield (the event's
// result) lets a flusher it woke run before this thread emits again.
func (q *sequence) unlock(yield bool) {
	q.publishLocked()
	q.mu.Unlock()
	if yield {
		runtime.Gosched()
	}
}

// Instant emits a TYPE_INSTANT track event on the process track to every
// running session. With no session it costs one atomic load.
func Instant(cat Category, name EventName, args ...Arg) { Stamp(0).Instant(cat, name, args...) }

// InstantOn is Instant on a given track (ThreadTrack for a thread).
func InstantOn(t Track, cat Category, name EventName, args ...Arg) {
	Stamp(0).InstantOn(t, cat, name, args...)
}

// Counter emits a counter value (TYPE_COUNTER) to every running session; the
// track's descriptor precedes its first value on each sequence.
func Counter(c CounterTrack, v int64) { Stamp(0).Counter(c, v) }

// CounterValue is one value of a counter track, for Counters.
type CounterValue struct {
	Track CounterTrack
	Value int64
}

// Counters emits several counter values with one timestamp under one lock
// per session (a total and its per-heap part, say): cheaper than a Counter
// call each.
func Counters(vals ...CounterValue) { Stamp(0).Counters(vals...) }

// VkObjectName emits a raw VulkanApiEvent.VkDebugUtilsObjectName packet
// (TracePacket field 65) to every running session, with an absolute
// CLOCK_BOOTTIME timestamp and explicit clock id.
func VkObjectName(device uint64, objectType int32, object uint64, name string) {
	Stamp(0).VkObjectName(device, objectType, object, name)
}

// Stamp is the time events are emitted at: CLOCK_BOOTTIME ns (Now's clock),
// 0 for now. Its methods are the package-level functions of the same names
// at that time, for events emitted after what they describe happened (a
// layer's deferred hooks emit with their call's time). Trace processors sort
// events by time, so they need not come in order.
type Stamp uint64

// emit writes with f to the sequence s picks, at t.
func (t Stamp) emit(s *Session, f func(q *sequence) bool) {
	q := s.pick()
	q.at = s.after(uint64(t))
	yield := f(q)
	q.at = 0
	q.unlock(yield)
}

// Instant is the package-level Instant at t.
func (t Stamp) Instant(cat Category, name EventName, args ...Arg) {
	t.InstantOn(Track{}, cat, name, args...)
}

// InstantOn is the package-level InstantOn at t.
func (t Stamp) InstantOn(tr Track, cat Category, name EventName, args ...Arg) {
	p := active.Load()
	if p == nil {
		return
	}
	for _, s := range *p {
		if s.allows(cat) {
			t.emit(s, func(q *sequence) bool { return q.eventLocked(tr, cat, name, args, nil, nil) })
		}
	}
}

// Counter is the package-level Counter at t.
func (t Stamp) Counter(c CounterTrack, v int64) {
	p := active.Load()
	if p == nil {
		return
	}
	for _, s := range *p {
		if s.allowsCounter(c) {
			t.emit(s, func(q *sequence) bool { return q.counterLocked(c, v) })
		}
	}
}

// Counters is the package-level Counters at t.
func (t Stamp) Counters(vals ...CounterValue) {
	p := active.Load()
	if p == nil {
		return
	}
	for _, s := range *p {
		t.emit(s, func(q *sequence) bool { return q.countersLocked(s, vals) })
	}
}

// VkObjectName is the package-level VkObjectName at t.
func (t Stamp) VkObjectName(device uint64, objectType int32, object uint64, name string) {
	t.VkObjectNameMarked(0, device, objectType, object, name)
}

// VkObjectNameMarked is VkObjectName for a name the process's exit helper
// writes into the trace files itself unless the process got past mark, a
// position that only grows (layer.DurableMark): file sessions publish the
// mark in their exit state with the packet (exitstate.go), so that a name
// the process emitted just before it died is not written twice.
func (t Stamp) VkObjectNameMarked(mark, device uint64, objectType int32, object uint64, name string) {
	p := active.Load()
	if p == nil {
		return
	}
	for _, s := range *p {
		t.emit(s, func(q *sequence) bool { return q.objectNameLocked(mark, device, objectType, object, name) })
	}
}

// Emitter writes a replay into one session. It is valid only during the hook
// call that received it, and only that goroutine may use it.
type Emitter struct{ s *Session }

func (e *Emitter) locked(f func(q *sequence)) {
	q := e.s.replay
	q.mu.Lock()
	f(q)
	full := len(q.buf) >= replayChunk
	q.publishLocked()
	q.mu.Unlock()
	if full {
		e.s.flushSeq(q, false)
	}
}

// Instant is the replay form of the package-level Instant.
func (e *Emitter) Instant(cat Category, name EventName, args ...Arg) {
	if e.s.allows(cat) {
		e.locked(func(q *sequence) { q.eventLocked(Track{}, cat, name, args, nil, nil) })
	}
}

// InstantOn is the replay form of the package-level InstantOn.
func (e *Emitter) InstantOn(t Track, cat Category, name EventName, args ...Arg) {
	if e.s.allows(cat) {
		e.locked(func(q *sequence) { q.eventLocked(t, cat, name, args, nil, nil) })
	}
}

// Counter is the replay form of the package-level Counter.
func (e *Emitter) Counter(c CounterTrack, v int64) {
	if e.s.allowsCounter(c) {
		e.locked(func(q *sequence) { q.counterLocked(c, v) })
	}
}

// Counters is the replay form of the package-level Counters.
func (e *Emitter) Counters(vals ...CounterValue) {
	e.locked(func(q *sequence) { q.countersLocked(e.s, vals) })
}

// VkObjectName is the replay form of the package-level VkObjectName.
func (e *Emitter) VkObjectName(device uint64, objectType int32, object uint64, name string) {
	e.locked(func(q *sequence) { q.objectNameLocked(0, device, objectType, object, name) })
}

// WriterOutput adapts an io.Writer (not closed by the session) to Output.
func WriterOutput(w io.Writer) Output { return writerOutput{w} }

type writerOutput struct{ w io.Writer }

func (o writerOutput) Write(_ uint32, b []byte) error { _, err := o.w.Write(b); return err }
func (o writerOutput) Close() error                   { return nil }
