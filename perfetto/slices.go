package perfetto

import (
	"math/bits"
	"strconv"

	"github.com/vkgen/vkgen/internal/hashmap"
)

// GroupTrack is a named track that groups others under the process track
// (in a layer: a device, a heap of that device). Its descriptor is written
// once per sequence, before the first slice under it, and again with the
// sequence's state after a loss, until ForgetGroups. Parent 0 means the
// process track.
type GroupTrack struct {
	UUID, Parent uint64
	Name         string
}

// SliceOp says whether a Slice begins or ends.
type SliceOp uint8

const (
	SliceBegin SliceOp = 1 // TrackEvent.TYPE_SLICE_BEGIN
	SliceEnd   SliceOp = 2 // TrackEvent.TYPE_SLICE_END
)

// Slice is the begin or end of a slice on a lane: a track that holds one
// lifetime at a time, so lifetimes that overlap never need to nest, and that
// the caller reuses for the next lifetime once its slice ended (a track per
// lifetime would cost a descriptor each and, in trace_processor, a track
// each: millions in a long trace). The first begin on a lane in each batch
// of a sequence (what one write to the output takes) writes the lane's
// descriptor (uuid Track, parent the last of Groups, name TrackName); a
// group's descriptor is written once per sequence (again after a loss), so
// a lane must keep its parent and name. Tracks that share a parent and a
// name are shown as one track by the Perfetto UI, in lanes.
type Slice struct {
	Op SliceOp
	// Track is the lane's number, unique in the process and not 0: its uuid
	// is the number itself, doubled, with Options.SmallTrackUUIDs (1-3
	// bytes a slice event), else one unique among producers (laneUUID).
	Track     uint64
	Groups    []GroupTrack // the track's ancestors, outermost first (begin only)
	TrackName string       // begin only
	// Name is the slice's name (begin only); when empty, the slice is named
	// TrackName, " 0x" and NameHandle in hex, written without building the
	// string.
	Name       string
	NameHandle uint64
	Arg        Arg       // a debug annotation (begin only; none when its name is 0)
	Detail     Arg       // a second one, likewise
	Callstack  Callstack // where what the slice stands for was made (begin only; 0: none)
}

// InstantSlices emits an instant event on the process track and slice
// events with the same timestamp (the end and begin of a rename, say), under
// one sequence pick, to every running session in which cat is enabled: a
// consumer pairing them sees equal times. The instant carries the counter
// values cv (TrackEvent.extra_counter_values: readers see them as samples of
// their tracks at its timestamp), each track at most once.
func InstantSlices(cat Category, name EventName, sl []Slice, cv []CounterValue, args ...Arg) {
	Stamp(0).InstantSlices(cat, name, sl, cv, args...)
}

// InstantSlices is the package-level InstantSlices at t.
func (t Stamp) InstantSlices(cat Category, name EventName, sl []Slice, cv []CounterValue, args ...Arg) {
	p := active.Load()
	if p == nil {
		return
	}
	for _, s := range *p {
		if s.allows(cat) {
			t.emit(s, func(q *sequence) bool { return q.eventLocked(Track{}, cat, name, args, sl, cv) })
		}
	}
}

// Slices emits slice events of category cat with one timestamp (an end and
// the begin that replaces it, say) to every running session.
func Slices(cat Category, sl ...Slice) { Stamp(0).Slices(cat, sl...) }

// Slices is the package-level Slices at t.
func (t Stamp) Slices(cat Category, sl ...Slice) {
	p := active.Load()
	if p == nil {
		return
	}
	for _, s := range *p {
		if s.allows(cat) {
			t.emit(s, func(q *sequence) bool { return q.slicesLocked(cat, sl) })
		}
	}
}

// InstantSlices is the replay form of the package-level InstantSlices.
func (e *Emitter) InstantSlices(cat Category, name EventName, sl []Slice, cv []CounterValue, args ...Arg) {
	if e.s.allows(cat) {
		e.locked(func(q *sequence) { q.eventLocked(Track{}, cat, name, args, sl, cv) })
	}
}

func (q *sequence) slicesLocked(cat Category, sl []Slice) (yield bool) {
	if ok, yield := q.readyLocked(); !ok {
		return yield
	}
	before := len(q.buf)
	ts := q.now()
	b := q.buf
	for i := range sl {
		b = q.appendSlice(b, ts, cat, &sl[i])
	}
	q.buf = b
	return q.doneLocked(before)
}

// internSliceLocked writes the InternedData a slice begin needs that the
// sequence lacks (its category, its annotation's name and value); cat is
// registered.
func (q *sequence) internSliceLocked(b []byte, cat Category, args []Arg) []byte {
	b, id := beginMsg(b, fInternedData)
	if !known(q.cats, uint32(cat)) {
		catName, _ := categories.lookup(uint32(cat))
		b = appendInterned(b, fIDCategories, uint32(cat), catName)
		q.cats = mark(q.cats, uint32(cat))
	}
	b = q.internArgsLocked(b, args)
	return endMsg(b, id)
}

// appendSlice writes the group and slice track descriptors a begin needs and
// the slice event, interning what the begin needs in its own packet. An
// unregistered category writes the descriptors only.
func (q *sequence) appendSlice(b []byte, ts uint64, cat Category, sl *Slice) []byte {
	track := q.laneUUID(sl.Track)
	if sl.Op != SliceBegin {
		n := sizeVarintField(fTETrackUUID, track) + sizeVarintField(fTEType, uint64(sl.Op))
		b = q.appendPacket(b, ts, true, sizeMsg(fTrackEvent, n))
		b = appendMsgHeader(b, fTrackEvent, n)
		b = appendVarintField(b, fTETrackUUID, track)
		return appendVarintField(b, fTEType, uint64(sl.Op))
	}
	if _, ok := q.lanes.Get(trackKey(track)); !ok { // a lane new to the batch, and maybe its groups
		parent := processUUID
		for _, g := range sl.Groups {
			if g.Parent == 0 {
				g.Parent = processUUID
			}
			b = q.describeGroupLocked(b, ts, g)
			parent = g.UUID
		}
		q.lanes.Set(trackKey(track), struct{}{})
		b = q.appendTrackDesc(b, ts, track, parent, sl.TrackName)
	}
	_, trackAsIs := sanitizedSize(sl.TrackName)
	var buf [3]Arg
	args := buf[:0]
	for _, a := range [...]*Arg{&sl.Arg, &sl.Detail} {
		if a.name != 0 {
			args = append(args, *a)
		}
	}
	if sl.Callstack != 0 {
		args = append(args, CallstackArg(sl.Callstack))
	}
	var in []byte
	interned := known(q.cats, uint32(cat)) && q.argsKnown(args)
	if !interned {
		if _, ok := categories.lookup(uint32(cat)); !ok {
			return b
		}
		in = q.internSliceLocked(q.interning[:0], cat, args)
		q.interning = in
	}
	body := appendVarintField(q.body[:0], fTECategoryIIDs, uint64(cat))
	if sl.Name == "" && trackAsIs && len(sl.TrackName) <= 64 { // written in place, without building the string
		digits := max(1, (bits.Len64(sl.NameHandle)+3)/4)
		body = appendMsgHeader(body, fTEName, len(sl.TrackName)+len(" 0x")+digits)
		body = appendHex(append(append(body, sl.TrackName...), " 0x"...), sl.NameHandle, digits)
	} else if sl.Name == "" {
		body = appendString(body, fTEName, sl.TrackName+" 0x"+strconv.FormatUint(sl.NameHandle, 16))
	} else {
		body = appendString(body, fTEName, sl.Name)
	}
	body = q.appendArgs(body, args, interned)
	q.body = body
	n := sizeVarintField(fTETrackUUID, track) + 2 + len(body)
	b = q.appendPacket(b, ts, true, len(in)+sizeMsg(fTrackEvent, n))
	b = append(b, in...)
	b = appendMsgHeader(b, fTrackEvent, n)
	b = appendVarintField(b, fTETrackUUID, track)
	b = append(b, fTEType<<3, byte(sl.Op))
	return append(b, body...)
}

// ForgetGroups tells the running sessions that the group tracks uuids ended
// (a destroyed device's): no slice begins under them any more, so their
// sequences stop keeping them and re-emitting them after every loss or
// incremental-state clear. A process that creates and destroys many devices
// in one session would otherwise carry every one of them. A later begin
// under one of them describes it again.
func ForgetGroups(uuids ...uint64) {
	for _, s := range Sessions() {
		for _, q := range s.all() {
			q.mu.Lock()
			for _, u := range uuids {
				q.groups.Delete(trackKey(u))
			}
			q.mu.Unlock()
		}
	}
}

// describeGroupLocked writes g's descriptor unless the sequence has
// described it.
func (q *sequence) describeGroupLocked(b []byte, ts uint64, g GroupTrack) []byte {
	if _, ok := q.groups.Get(trackKey(g.UUID)); ok {
		return b
	}
	q.groups.Set(trackKey(g.UUID), g)
	return q.appendTrackDesc(b, ts, g.UUID, g.Parent, g.Name)
}

// laneUUID is the uuid of lane n: even and small with
// Options.SmallTrackUUIDs (counter tracks' are odd), else spread over 64
// bits and tied to the process.
func (q *sequence) laneUUID(n uint64) uint64 {
	if q.small == 1 {
		return n << 1
	}
	return processUUID ^ hashmap.Spread(n)
}

// trackKey is a track uuid as a hashmap key.
type trackKey uint64

func (k trackKey) Hash() uint64 { return uint64(k) }

func (q *sequence) appendTrackDesc(b []byte, ts uint64, uuid, parent uint64, name string) []byte {
	nameLen, asIs := sanitizedSize(name)
	n := sizeVarintField(fTDUUID, uuid) + sizeVarintField(fTDParentUUID, parent) + sizeMsg(fTDName, nameLen)
	b = q.appendPacket(b, ts, false, sizeMsg(fTrackDescriptor, n))
	b = appendMsgHeader(b, fTrackDescriptor, n)
	b = appendVarintField(b, fTDUUID, uuid)
	b = appendVarintField(b, fTDParentUUID, parent)
	return appendSanitized(b, fTDName, name, nameLen, asIs)
}

// appendHex writes the n lowercase hex digits of v (strconv's base-16 form
// when n is its length), without strconv's general path.
func appendHex(b []byte, v uint64, n int) []byte {
	for i := n - 1; i >= 0; i-- {
		b = append(b, "0123456789abcdef"[v>>(4*uint(i))&0xf])
	}
	return b
}
