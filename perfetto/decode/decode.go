// Package decode reads Perfetto trace files (a stream of Trace.packet
// fields) back into Go values, resolving interned names per sequence the way
// trace_processor does. It understands the subset that package perfetto
// writes (track events, track and counter descriptors, interned data, packet
// defaults, VulkanApiEvent.VkDebugUtilsObjectName) plus anything it can skip,
// so it also reads traces recorded by the official SDK. It is strict about
// interning: an iid used before it was defined on its sequence, or used on a
// packet without SEQ_NEEDS_INCREMENTAL_STATE, is an error. It owns no writing
// and imports nothing Vulkan- or layer-specific.
package decode

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"

	"github.com/vkgen/vkgen/perfetto/internal/pb"
	"google.golang.org/protobuf/encoding/protowire"
)

// Sequence flags (TracePacket.SequenceFlags).
const (
	SeqIncrementalStateCleared = 1
	SeqNeedsIncrementalState   = 2
)

// Track event types (TrackEvent.Type).
const (
	TypeSliceBegin = 1
	TypeSliceEnd   = 2
	TypeInstant    = 3
	TypeCounter    = 4
)

// Packet is one decoded TracePacket; at most one of Event, Track and
// ObjectName is set (they are members of TracePacket's data oneof).
type Packet struct {
	Index int // position in the file
	// Timestamp is the packet's time as trace_processor reads it: a delta
	// on a sequence-scoped incremental clock (ids 64-127, the clock given
	// explicitly or by the sequence's TracePacketDefaults) is added up and
	// converted to the CLOCK_BOOTTIME of the sequence's latest ClockSnapshot
	// (clock.go); any other is as written. ClockID is the clock id written
	// in the packet itself (HasClockID), not a default.
	Timestamp       uint64
	HasTimestamp    bool
	ClockID         uint32
	HasClockID      bool
	SeqID           uint32
	SeqFlags        uint32
	FirstOnSequence bool
	PreviousDropped bool
	ClockSnapshot   bool // the packet holds a ClockSnapshot
	// DefaultTrackUUID is trace_packet_defaults.track_event_defaults.track_uuid
	// when this packet sets it.
	DefaultTrackUUID uint64

	Event      *Event
	Track      *Track
	ObjectName *VkObjectName
}

// Event is a TrackEvent with interned names resolved.
type Event struct {
	Type         int32
	Categories   []string
	Name         string
	TrackUUID    uint64 // explicit, else the sequence default
	Annotations  []Annotation
	CounterValue int64
	HasCounter   bool
	// ExtraCounters are the counter values that go with the event
	// (extra_counter_track_uuids / extra_counter_values), at its timestamp.
	ExtraCounters []ExtraCounter
	// Callstack is the event's interned call stack (callstack_iid),
	// outermost frame first (callstacks.go).
	Callstack []Frame
}

// ExtraCounter is one of an event's extra counter values.
type ExtraCounter struct {
	TrackUUID uint64
	Value     int64
}

// Arg returns the annotation called name.
func (e *Event) Arg(name string) (Annotation, bool) {
	for _, a := range e.Annotations {
		if a.Name == name {
			return a, true
		}
	}
	return Annotation{}, false
}

// Kind is the value type of a debug annotation.
type Kind int

const (
	KindUnknown Kind = iota
	KindInt
	KindUint
	KindString
	KindBool
)

func (k Kind) String() string {
	return [...]string{"unknown", "int", "uint", "string", "bool"}[k]
}

// Annotation is one debug annotation.
type Annotation struct {
	Name string
	Kind Kind
	Int  int64
	Uint uint64
	Str  string
	Bool bool
}

// Value renders the value as text.
func (a Annotation) Value() string {
	switch a.Kind {
	case KindInt:
		return fmt.Sprint(a.Int)
	case KindUint:
		return fmt.Sprint(a.Uint)
	case KindString:
		return a.Str
	case KindBool:
		return fmt.Sprint(a.Bool)
	}
	return "?"
}

// Track is a TrackDescriptor.
type Track struct {
	UUID, ParentUUID uint64
	Name             string // name or static_name
	Process          *Process
	Thread           *Thread
	Counter          *Counter
}

type Process struct {
	Pid     int32
	Name    string
	Cmdline []string
}

type Thread struct {
	Pid  int32
	Tid  int64
	Name string
}

// Counter is a CounterDescriptor.
type Counter struct{ Unit int32 }

// VkObjectName is VulkanApiEvent.VkDebugUtilsObjectName.
type VkObjectName struct {
	Pid        uint32
	Device     uint64
	ObjectType int32
	Object     uint64
	Name       string
}

// Trace is a decoded trace file.
type Trace struct {
	Packets []Packet
	Tracks  map[uint64]*Track // every TrackDescriptor by uuid (the last one wins)
}

// CounterSample is one value on a counter track.
type CounterSample struct {
	Timestamp uint64
	Value     int64
}

// CounterSeries is a counter track with its values in timestamp order.
type CounterSeries struct {
	Track   *Track
	Samples []CounterSample
}

// Counters returns every counter track that has a descriptor, by name.
func (t *Trace) Counters() map[string]*CounterSeries {
	out := map[string]*CounterSeries{}
	byUUID := map[uint64]*CounterSeries{}
	for _, tr := range t.Tracks {
		if tr.Counter != nil {
			cs := &CounterSeries{Track: tr}
			out[tr.Name] = cs
			byUUID[tr.UUID] = cs
		}
	}
	for _, p := range t.Packets {
		if p.Event == nil {
			continue
		}
		if p.Event.Type == TypeCounter {
			if cs := byUUID[p.Event.TrackUUID]; cs != nil {
				cs.Samples = append(cs.Samples, CounterSample{p.Timestamp, p.Event.CounterValue})
			}
		}
		for _, c := range p.Event.ExtraCounters {
			if cs := byUUID[c.TrackUUID]; cs != nil {
				cs.Samples = append(cs.Samples, CounterSample{p.Timestamp, c.Value})
			}
		}
	}
	for _, cs := range out {
		sort.SliceStable(cs.Samples, func(i, j int) bool { return cs.Samples[i].Timestamp < cs.Samples[j].Timestamp })
	}
	return out
}

// Instants returns the packets holding TYPE_INSTANT events, in file order.
func (t *Trace) Instants() []Packet {
	var out []Packet
	for _, p := range t.Packets {
		if p.Event != nil && p.Event.Type == TypeInstant {
			out = append(out, p)
		}
	}
	return out
}

// ObjectNames returns the VkDebugUtilsObjectName packets, in file order.
func (t *Trace) ObjectNames() []Packet {
	var out []Packet
	for _, p := range t.Packets {
		if p.ObjectName != nil {
			out = append(out, p)
		}
	}
	return out
}

// ReadFile decodes the trace file at path; a file that is not a Perfetto
// trace (see Reader) is an error.
func ReadFile(path string) (*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return collect(NewReader(f, path), true)
}

// Decode decodes a whole trace held in memory. Empty input is an empty
// trace. On error the packets decoded so far are returned with it.
func Decode(data []byte) (*Trace, error) {
	return collect(NewReader(bytes.NewReader(data), "trace"), false)
}

func collect(r *Reader, strict bool) (*Trace, error) {
	r.lenient = !strict
	t := &Trace{Tracks: r.Tracks}
	for {
		p, err := r.Next()
		if err == io.EOF {
			return t, nil
		}
		if err != nil {
			return t, err
		}
		t.Packets = append(t.Packets, p.Clone())
	}
}

// Clone returns a copy of p that shares nothing with a Reader's buffers.
func (p *Packet) Clone() Packet {
	c := *p
	if p.Event != nil {
		ev := *p.Event
		ev.Categories = slices.Clone(ev.Categories)
		ev.Annotations = slices.Clone(ev.Annotations)
		ev.ExtraCounters = slices.Clone(ev.ExtraCounters)
		ev.Callstack = slices.Clone(ev.Callstack)
		c.Event = &ev
	}
	return c
}

type seqState struct {
	cats, names, annots, strs interned
	stacks                    stackState
	defaultTrack              uint64
	defaultClock              uint32 // trace_packet_defaults.timestamp_clock_id
	// defaultExtra are the track_event_defaults' extra_counter_track_uuids:
	// the tracks of an event's extra counter values when it names none.
	defaultExtra []uint64
}

// state is what decoding carries from packet to packet.
type state struct {
	seqs map[uint32]*seqState
	// clocks are the sequence-scoped clocks by sequence and clock id: not
	// incremental state (a cleared sequence keeps them), as in
	// trace_processor.
	clocks map[seqClockID]*seqClock
	tracks map[uint64]*Track // nil: track descriptors are not decoded
	// strs holds short strings seen lately (operation names, types), so a
	// value that repeats in every event is not allocated every time. It is
	// direct-mapped by a hash: cheaper than a map, and bounded.
	strs *[strSlots]string
	ev   Event // reused by every packet
	// only, when not 0, is the set (1 << type) of event types decoded
	// past their type field (Decoder.Only).
	only uint32
}

const (
	strBits  = 10
	strSlots = 1 << strBits
)

// MaxSequences bounds the distinct trusted_packet_sequence_ids of one trace
// (a producer has one per writer thread): each keeps its interning state to
// the end, so a corrupt trace with a new id per packet would otherwise grow
// without bound.
const MaxSequences = 1 << 16

func (d *state) str(b []byte) string {
	if len(b) > 64 {
		return string(b)
	}
	// The length and three bytes tell apart the few values that repeat
	// (a collision only costs an allocation).
	h := uint32(len(b))
	if len(b) > 0 {
		h |= uint32(b[0])<<8 | uint32(b[len(b)/2])<<16 | uint32(b[len(b)-1])<<24
	}
	slot := &d.strs[(h*0x9e3779b1)>>(32-strBits)]
	if *slot != string(b) {
		*slot = string(b)
	}
	return *slot
}

// head is what a packet's top-level fields hold: the scalars, and the
// sub-messages as spans of the body (offsets, so that a copy of the body
// keeps them).
type head struct {
	ts                              uint64
	clock, seq, flags               uint32
	hasTS, hasClock, first, dropped bool
	te, td, interned, vk, defaults  span
	snapshot                        span // clock_snapshot
	// deflated is compressed_packets: a zlib stream of a Trace's packets
	// (traced's compression_type DEFLATE); zstd says the packet holds
	// zstd_compressed_packets instead.
	deflated span
	zstd     bool
}

// span is [start, end) in a packet's body; the zero span is an absent
// field (a present one starts after its tag and length).
type span struct{ start, end int32 }

func (s span) of(b []byte) []byte {
	if s.end == 0 {
		return nil
	}
	return b[s.start:s.end]
}

// parseHead walks a packet's top-level fields.
func parseHead(b []byte, h *head) error {
	*h = head{}
	for p := b; len(p) > 0; {
		num, v, raw, rest, err := pb.Next(p)
		if err != nil {
			return err
		}
		p = rest
		var at span
		if raw != nil {
			at = span{int32(len(b) - len(rest) - len(raw)), int32(len(b) - len(rest))}
		}
		switch num {
		case 8:
			h.ts, h.hasTS = v, true
		case 58:
			h.clock, h.hasClock = uint32(v), true
		case 10:
			h.seq = uint32(v)
		case 13:
			h.flags = uint32(v)
		case 87:
			h.first = v != 0
		case 42:
			h.dropped = v != 0
		case 11:
			h.te = at
		case 60:
			h.td = at
		case 12:
			h.interned = at
		case 65:
			h.vk = at
		case 59:
			h.defaults = at
		case 6:
			h.snapshot = at
		case 50:
			h.deflated = at
		case 133:
			h.zstd = true
		}
	}
	return nil
}

// decodeBody decodes a packet of which h is the head into p.
func decodeBody(b []byte, h *head, d *state, p *Packet) error {
	*p = Packet{Timestamp: h.ts, HasTimestamp: h.hasTS, ClockID: h.clock, HasClockID: h.hasClock, SeqID: h.seq,
		SeqFlags: h.flags, FirstOnSequence: h.first, PreviousDropped: h.dropped, ClockSnapshot: h.snapshot.end != 0}
	te, td, interned, vk, defaults := h.te.of(b), h.td.of(b), h.interned.of(b), h.vk.of(b), h.defaults.of(b)
	st := d.seqs[p.SeqID]
	if st == nil && len(d.seqs) >= MaxSequences {
		return fmt.Errorf("sequence %d is more than the %d distinct sequences a trace may have", p.SeqID, MaxSequences)
	}
	if st == nil || p.SeqFlags&SeqIncrementalStateCleared != 0 {
		st = &seqState{}
		d.seqs[p.SeqID] = st
	}
	if defaults != nil {
		if err := decodeDefaults(defaults, p, st); err != nil {
			return fmt.Errorf("trace_packet_defaults: %w", err)
		}
		st.defaultTrack = p.DefaultTrackUUID
	}
	if snap := h.snapshot.of(b); snap != nil {
		if err := d.clockSnapshot(snap, p.SeqID); err != nil {
			return fmt.Errorf("clock_snapshot: %w", err)
		}
	}
	if p.HasTimestamp {
		if err := d.resolveTime(p, st); err != nil {
			return err
		}
	}
	if interned != nil {
		if err := decodeInterned(interned, st); err != nil {
			return fmt.Errorf("interned_data: %w", err)
		}
	}
	if te != nil {
		if err := d.decodeEvent(te, st, p.SeqFlags&SeqNeedsIncrementalState != 0); err != nil {
			return fmt.Errorf("track_event: %w", err)
		}
		p.Event = &d.ev
	}
	if td != nil && d.tracks != nil {
		tr, err := d.decodeTrack(td)
		if err != nil {
			return fmt.Errorf("track_descriptor: %w", err)
		}
		p.Track = tr
		d.tracks[tr.UUID] = tr
	}
	if vk != nil {
		err := pb.Walk(vk, func(num protowire.Number, _ uint64, raw []byte) error {
			if num != 1 {
				return nil
			}
			o := &VkObjectName{}
			p.ObjectName = o
			return pb.Walk(raw, func(num protowire.Number, v uint64, raw []byte) error {
				switch num {
				case 1:
					o.Pid = uint32(v)
				case 2:
					o.Device = v
				case 3:
					o.ObjectType = int32(v)
				case 4:
					o.Object = v
				case 5:
					o.Name = string(raw)
				}
				return nil
			})
		})
		if err != nil {
			return fmt.Errorf("vulkan_api_event: %w", err)
		}
	}
	return nil
}

// decodeDefaults reads a TracePacketDefaults, which replaces the
// sequence's: its track, clock and extra counter tracks.
func decodeDefaults(b []byte, p *Packet, st *seqState) error {
	st.defaultClock, st.defaultExtra = 0, st.defaultExtra[:0]
	return pb.Walk(b, func(num protowire.Number, v uint64, raw []byte) error {
		if num == 58 {
			st.defaultClock = uint32(v)
		}
		if num != 11 {
			return nil
		}
		return pb.Walk(raw, func(num protowire.Number, v uint64, raw []byte) error {
			switch num {
			case 11:
				p.DefaultTrackUUID = v
			case 31: // extra_counter_track_uuids, packed or not
				return pb.Varints(raw, v, func(x uint64) { st.defaultExtra = append(st.defaultExtra, x) })
			}
			return nil
		})
	})
}

func decodeInterned(b []byte, st *seqState) error {
	return pb.Walk(b, func(num protowire.Number, _ uint64, raw []byte) error {
		var m *interned
		switch num {
		case 1:
			m = &st.cats
		case 2:
			m = &st.names
		case 3:
			m = &st.annots
		case 29: // debug_annotation_string_values: {iid = 1, str = 2}
			m = &st.strs
		case 5, 16, 17: // function_names, build_ids, mapping_paths (InternedString)
			m = st.stacks.strings(num)
		default:
			return decodeStackInterned(num, raw, &st.stacks)
		}
		var iid uint64
		var name string
		if err := pb.Walk(raw, func(num protowire.Number, v uint64, raw []byte) error {
			switch num {
			case 1:
				iid = v
			case 2:
				name = string(raw)
			}
			return nil
		}); err != nil {
			return err
		}
		m.set(iid, name)
		return nil
	})
}

// interned is one sequence's table of interned strings by iid. Writers
// number iids densely from 1, so small ones index a slice; others (a
// hand-made trace) go to a map.
type interned struct {
	small []internedName
	big   map[uint64]string
}

type internedName struct {
	s  string
	ok bool
}

const maxSmallIID = 4096

func (t *interned) set(iid uint64, s string) {
	if iid < maxSmallIID {
		if iid >= uint64(len(t.small)) {
			t.small = append(t.small, make([]internedName, iid+1-uint64(len(t.small)))...)
		}
		t.small[iid] = internedName{s, true}
		return
	}
	if t.big == nil {
		t.big = map[uint64]string{}
	}
	t.big[iid] = s
}

func (t *interned) get(iid uint64) (string, bool) {
	if iid < uint64(len(t.small)) {
		n := t.small[iid]
		return n.s, n.ok
	}
	s, ok := t.big[iid]
	return s, ok
}

var errNoFlag = errors.New("interned iid used on a packet without SEQ_NEEDS_INCREMENTAL_STATE")

func resolve(m *interned, iid uint64, what string, flagged bool) (string, error) {
	if !flagged {
		return "", errNoFlag
	}
	s, ok := m.get(iid)
	if !ok {
		return "", fmt.Errorf("%s iid %d not interned on this sequence", what, iid)
	}
	return s, nil
}

// decodeEvent and decodeAnnotation are most of the decoding time, so they
// (and decodePacket) loop over pb.Next rather than take a callback per
// field.
func (d *state) decodeEvent(b []byte, st *seqState, flagged bool) error {
	ev := &d.ev
	*ev = Event{TrackUUID: st.defaultTrack, Categories: ev.Categories[:0], Annotations: ev.Annotations[:0],
		ExtraCounters: ev.ExtraCounters[:0], Callstack: ev.Callstack[:0]}
	var nu, nv int // extra counter uuids and values seen: the i-th of each pair up
	for len(b) > 0 {
		num, v, raw, rest, err := pb.Next(b)
		if err != nil {
			return err
		}
		switch b = rest; num {
		case 3:
			var c string
			c, err = resolve(&st.cats, v, "category", flagged)
			ev.Categories = append(ev.Categories, c)
		case 22:
			ev.Categories = append(ev.Categories, d.str(raw))
		case 10:
			ev.Name, err = resolve(&st.names, v, "event name", flagged)
		case 23:
			ev.Name = d.str(raw)
		case 9:
			ev.Type = int32(v)
			if d.only != 0 && (ev.Type < 0 || ev.Type > 31 || d.only&(1<<ev.Type) == 0) {
				ev.ExtraCounters = ev.ExtraCounters[:0]
				return nil
			}
		case 11:
			ev.TrackUUID = v
		case 30:
			ev.CounterValue, ev.HasCounter = int64(v), true
		case 31, 12: // extra counter track uuids, values; packed or not
			err = pb.Varints(raw, v, func(x uint64) {
				i := &nu
				if num == 12 {
					i = &nv
				}
				if *i == len(ev.ExtraCounters) {
					ev.ExtraCounters = append(ev.ExtraCounters, ExtraCounter{})
				}
				if num == 31 {
					ev.ExtraCounters[*i].TrackUUID = x
				} else {
					ev.ExtraCounters[*i].Value = int64(x)
				}
				*i++
			})
		case 4:
			ev.Annotations = append(ev.Annotations, Annotation{})
			err = d.decodeAnnotation(raw, st, flagged, &ev.Annotations[len(ev.Annotations)-1])
		case 56: // callstack_iid
			ev.Callstack, err = st.stacks.callstack(v, flagged, ev.Callstack[:0])
		}
		if err != nil {
			return err
		}
	}
	if nu == 0 && nv > 0 { // the values' tracks are the sequence's defaults
		for i := range min(nv, len(st.defaultExtra)) {
			ev.ExtraCounters[i].TrackUUID = st.defaultExtra[i]
		}
		nu = len(st.defaultExtra)
	}
	ev.ExtraCounters = ev.ExtraCounters[:min(nu, nv)] // a value without its uuid has no track
	return nil
}

func (d *state) decodeAnnotation(b []byte, st *seqState, flagged bool, a *Annotation) error {
	for len(b) > 0 {
		num, v, raw, rest, err := pb.Next(b)
		if err != nil {
			return err
		}
		switch b = rest; num {
		case 1:
			a.Name, err = resolve(&st.annots, v, "debug annotation name", flagged)
		case 10:
			a.Name = d.str(raw)
		case 2:
			a.Kind, a.Bool = KindBool, v != 0
		case 3:
			a.Kind, a.Uint = KindUint, v
		case 4:
			a.Kind, a.Int = KindInt, int64(v)
		case 6:
			a.Kind, a.Str = KindString, d.str(raw)
		case 17:
			a.Kind = KindString
			a.Str, err = resolve(&st.strs, v, "debug annotation string value", flagged)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (d *state) decodeTrack(b []byte) (*Track, error) {
	tr := &Track{}
	return tr, d.decodeTrackInto(b, tr)
}

// decodeTrackInto decodes a TrackDescriptor into a zero tr. Its name comes
// from the string cache: a layer names a track per object, with few names.
func (d *state) decodeTrackInto(b []byte, tr *Track) error {
	return pb.Walk(b, func(num protowire.Number, v uint64, raw []byte) error {
		switch num {
		case 1:
			tr.UUID = v
		case 5:
			tr.ParentUUID = v
		case 2, 10:
			tr.Name = d.str(raw)
		case 3:
			pr := &Process{}
			tr.Process = pr
			return pb.Walk(raw, func(num protowire.Number, v uint64, raw []byte) error {
				switch num {
				case 1:
					pr.Pid = int32(v)
				case 2:
					pr.Cmdline = append(pr.Cmdline, string(raw))
				case 6:
					pr.Name = string(raw)
				}
				return nil
			})
		case 4:
			th := &Thread{}
			tr.Thread = th
			return pb.Walk(raw, func(num protowire.Number, v uint64, raw []byte) error {
				switch num {
				case 1:
					th.Pid = int32(v)
				case 2:
					th.Tid = int64(v)
				case 5:
					th.Name = string(raw)
				}
				return nil
			})
		case 8:
			c := &Counter{}
			tr.Counter = c
			return pb.Walk(raw, func(num protowire.Number, v uint64, _ []byte) error {
				if num == 3 {
					c.Unit = int32(v)
				}
				return nil
			})
		}
		return nil
	})
}
