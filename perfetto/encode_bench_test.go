package perfetto

import "testing"

// BenchmarkEncodeMemoryEvent is the encoder alone (no session, lock or
// flusher) on the events of a DeviceMemoryReport bind and destroy: an
// instant with eight annotations and three extra counter values with a
// slice begin on a lane under two group tracks, then one with the slice's
// end (the lane takes the next buffer's lifetime).
func BenchmarkEncodeMemoryEvent(b *testing.B) {
	cat := NewCategory("bench.memory")
	name := NewEventName("bench.allocation")
	op, src, mt := NewStringValue("BIND"), NewStringValue("BUFFER"), NewStringValue("DEVICE_LOCAL")
	an := make([]AnnotationName, 9)
	for i := range an {
		an[i] = NewAnnotationName("bench.arg" + string(rune('a'+i)))
	}
	ctr := []CounterTrack{NewCounterTrack("bench.ctr.a", UnitSizeBytes), NewCounterTrack("bench.ctr.b", UnitSizeBytes),
		NewCounterTrack("bench.ctr.c", UnitSizeBytes)}
	groups := []GroupTrack{{UUID: 0x1234_5678_9abc_def0, Name: "VkDevice 0x5555"}, {UUID: 0x2234_5678_9abc_def0, Parent: 0x1234_5678_9abc_def0, Name: "heap 0"}}
	q := &sequence{s: &Session{}, id: 3, pktSeq: 3, started: true}
	ts := Now()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if len(q.buf) > 1<<20 {
			q.buf = q.buf[:0]
		}
		q.at = ts + uint64(i)
		h := uint64(0x5566_7788_0000 + i)
		args := [...]Arg{StringOf(an[0], op), StringOf(an[1], src), Uint(an[2], 0x7788_9900_1122), Uint(an[3], 4096),
			Uint(an[4], 0), Uint(an[5], h), StringOf(an[6], mt), Uint(an[7], 0)}
		cv := [...]CounterValue{{ctr[0], int64(i) << 12}, {ctr[1], 1 << 20}, {ctr[2], 0}}
		const track = 0x3234_5678_9abc_def0
		q.eventLocked(Track{}, cat, name, args[:], []Slice{{Op: SliceBegin, Track: track, Groups: groups, TrackName: "VkBuffer",
			NameHandle: h, Arg: Uint(an[8], uint64(i))}}, cv[:])
		cv[0].Value = 0
		q.eventLocked(Track{}, cat, name, args[:], []Slice{{Op: SliceEnd, Track: track}}, cv[:])
	}
	q.at = 0
}
