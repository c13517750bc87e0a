package perfetto

import (
	"encoding/hex"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/encoder.golden from the current encoder")

// TestEncoderGolden pins the exact bytes the encoder writes for a varied set
// of events (every Arg kind, interned values, extra counters with zeros and
// past the per-event limit, slices with groups and generated names, counters,
// object names, long and invalid UTF-8 strings, messages whose lengths take
// two and three bytes) on sequences with one- and two-byte ids and none. The
// golden was recorded from the encoder before it was tuned for speed; any
// change to the bytes must keep trace_processor reading the same rows.
func TestEncoderGolden(t *testing.T) {
	var out strings.Builder
	for _, c := range goldenCases(t) {
		out.WriteString("# " + c.name + "\n")
		for b := c.bytes; len(b) > 0; {
			n := min(len(b), 32)
			out.WriteString(hex.EncodeToString(b[:n]) + "\n")
			b = b[n:]
		}
	}
	path := filepath.Join("testdata", "encoder.golden")
	if *update {
		if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(out.String(), "\n")
	wl := strings.Split(string(want), "\n")
	for i := range max(len(got), len(wl)) {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			section := ""
			for j := i; j >= 0 && j < len(wl); j-- {
				if strings.HasPrefix(wl[j], "# ") {
					section = wl[j]
					break
				}
			}
			t.Fatalf("encoder output differs from testdata/encoder.golden at line %d (%s):\n got %s\nwant %s", i+1, section, g, w)
		}
	}
}

type goldenCase struct {
	name  string
	bytes []byte
}

// withFreshRegistry gives the test its own name tables and process identity,
// so the bytes do not depend on what else the test binary registered or on
// the pid.
func withFreshRegistry(t *testing.T) {
	savedPid, savedUUID, savedName, savedCmd := pid, processUUID, processName, cmdline
	type saved struct {
		t     *nameTable
		names *[]string
		index map[string]uint32
	}
	var tables []saved
	for _, nt := range []*nameTable{&categories, &eventNames, &annotationNames, &stringValues} {
		nt.mu.Lock()
		tables = append(tables, saved{nt, nt.names.Load(), nt.index})
		nt.names.Store(nil)
		nt.index = nil
		nt.mu.Unlock()
	}
	counters.mu.Lock()
	defs, cidx := counters.defs.Load(), counters.index
	counters.defs.Store(nil)
	counters.index = nil
	counters.mu.Unlock()
	t.Cleanup(func() {
		pid, processUUID, processName, cmdline = savedPid, savedUUID, savedName, savedCmd
		for _, s := range tables {
			s.t.mu.Lock()
			s.t.names.Store(s.names)
			s.t.index = s.index
			s.t.mu.Unlock()
		}
		counters.mu.Lock()
		counters.defs.Store(defs)
		counters.index = cidx
		counters.mu.Unlock()
	})
	pid, processUUID, processName, cmdline = 4321, 0x1234_5678_9abc_def1, "golden", []string{"golden", "-x"}
}

func goldenCases(t *testing.T) []goldenCase {
	withFreshRegistry(t)
	cat := NewCategory("cat")
	cat2 := NewCategory("cat.disabled")
	ev := NewEventName("event")
	ev2 := NewEventName("other event")
	anInt := NewAnnotationName("int")
	anUint := NewAnnotationName("uint")
	anBool := NewAnnotationName("bool")
	anStr := NewAnnotationName("str")
	anVal := NewAnnotationName("val")
	anLate := NewAnnotationName("late")
	vA := NewStringValue("ALLOCATE")
	vB := NewStringValue("FREE")
	var ctr []CounterTrack
	for i := range 11 {
		ctr = append(ctr, NewCounterTrack("ctr."+string(rune('a'+i)), Unit(i%4)))
	}
	ctrOff := NewCounterTrackIn(cat2, "ctr.disabled", UnitSizeBytes)
	ctrCat := NewCounterTrackIn(cat, "ctr.cat", UnitCount)

	long := strings.Repeat("é", 2100)        // past MaxStringLen: cut
	invalid := "bad\xff\xfeutf8\xc3"         // invalid bytes become U+FFFD
	mid := strings.Repeat("m", 200)          // a two-byte length
	longTrack := strings.Repeat("track", 14) // over 64 bytes: the string path

	filtered := &Session{opts: Options{CategoryFilter: func(c Category) bool { return c != cat2 }}}
	newSeq := func(s *Session, id uint32) *sequence {
		if s == nil {
			s = &Session{}
		}
		return &sequence{s: s, id: id, pktSeq: id, started: true}
	}
	var cases []goldenCase
	run := func(name string, q *sequence, ts uint64, f func(q *sequence)) {
		q.at = ts
		q.buf = q.buf[:0]
		f(q)
		q.at = 0
		cases = append(cases, goldenCase{name, append([]byte(nil), q.buf...)})
	}

	q := newSeq(nil, 1)
	run("header first", q, 0, func(q *sequence) { q.buf = q.appendHeader(q.buf, 1000, true, false) })
	run("instant every arg kind", q, 1001, func(q *sequence) {
		q.eventLocked(Track{}, cat, ev, []Arg{Int(anInt, -5), Int(anInt, 1<<40), Uint(anUint, 0), Uint(anUint, 1<<63),
			Bool(anBool, true), Bool(anBool, false), String(anStr, "short"), String(anStr, ""), StringOf(anVal, vA),
			StringOf(anVal, 0), StringOf(anVal, 999), Int(0, 3), Int(777, 4)}, nil, nil)
	})
	run("instant interned again", q, 1002, func(q *sequence) {
		q.eventLocked(Track{}, cat, ev, []Arg{StringOf(anVal, vA), Uint(anUint, 127), Uint(anUint, 128), Uint(anUint, 16383), Uint(anUint, 16384)}, nil, nil)
	})
	run("instant new value and name", q, 1003, func(q *sequence) {
		q.eventLocked(Track{}, cat, ev2, []Arg{StringOf(anVal, vB), Int(anLate, -1)}, nil, nil)
	})
	run("instant no args", q, 1<<40, func(q *sequence) { q.eventLocked(Track{}, cat, ev, nil, nil, nil) })
	run("instant long and invalid strings", q, 1004, func(q *sequence) {
		q.eventLocked(Track{}, cat, ev, []Arg{String(anStr, long), String(anStr, invalid), String(anStr, mid)}, nil, nil)
	})
	run("instant three-byte length", q, 1005, func(q *sequence) {
		q.eventLocked(Track{}, cat, ev, []Arg{String(anStr, long), String(anStr, long), String(anStr, long),
			String(anStr, long), String(anStr, long)}, nil, nil)
	})
	run("instant unregistered", q, 1006, func(q *sequence) {
		q.eventLocked(Track{}, cat, 999, []Arg{Int(anInt, 1)}, nil, nil)
		q.eventLocked(Track{}, 999, ev, []Arg{Int(anInt, 1)}, nil, nil)
		q.eventLocked(Track{}, cat, 999, nil, nil, []CounterValue{{ctr[0], 1}})
	})
	run("instant on thread", q, 1007, func(q *sequence) {
		q.eventLocked(Track{tid: 0x7ffffff0}, cat, ev, []Arg{Int(anInt, 1)}, nil, nil)
		q.eventLocked(Track{tid: 0x7ffffff0}, cat, ev, nil, nil, nil)
	})
	run("extra counters with zeros", q, 1008, func(q *sequence) {
		q.eventLocked(Track{}, cat, ev, []Arg{Int(anInt, 2)}, nil, []CounterValue{{ctr[0], 0}, {ctr[1], 5}, {ctr[2], -7},
			{ctr[3], 0}, {0, 3}, {999, 4}, {ctrCat, 1 << 33}})
	})
	run("extra counters again", q, 1009, func(q *sequence) {
		q.eventLocked(Track{}, cat, ev, nil, nil, []CounterValue{{ctr[1], 0}, {ctr[0], 9}})
	})
	run("extra counters over the limit", q, 1010, func(q *sequence) {
		var cv []CounterValue
		for i, c := range ctr {
			cv = append(cv, CounterValue{c, int64(i%3) * 1000})
		}
		q.eventLocked(Track{}, cat, ev, []Arg{Uint(anUint, 1)}, nil, cv)
	})
	groups := []GroupTrack{{UUID: 0x100, Name: "device"}, {UUID: 0x101, Parent: 0x100, Name: "heap 0"}}
	run("instant with slice begin", q, 1011, func(q *sequence) {
		q.eventLocked(Track{}, cat, ev, []Arg{Int(anInt, 1)}, []Slice{{Op: SliceBegin, Track: 0x200, Groups: groups,
			TrackName: "VkBuffer", NameHandle: 0xdeadbeef, Arg: StringOf(anVal, vA)}}, []CounterValue{{ctr[4], 64}})
	})
	run("instant with slice end", q, 1012, func(q *sequence) {
		q.eventLocked(Track{}, cat, ev, nil, []Slice{{Op: SliceEnd, Track: 0x200}}, nil)
	})
	run("slices", q, 1013, func(q *sequence) {
		q.slicesLocked(cat, []Slice{
			{Op: SliceBegin, Track: 0x201, Groups: groups, TrackName: "VkImage", Name: "named", Arg: Uint(anUint, 5)},
			{Op: SliceBegin, Track: 0x202, Groups: groups[:1], TrackName: longTrack, NameHandle: 1},
			{Op: SliceBegin, Track: 0x203, TrackName: invalid, NameHandle: 0},
			{Op: SliceBegin, Track: 0x204, TrackName: "t", Name: invalid, Arg: String(anLate, mid)},
			{Op: SliceBegin, Track: 0x205, Groups: []GroupTrack{{UUID: 0x102, Name: long}}, TrackName: mid, NameHandle: 1 << 63},
			{Op: SliceEnd, Track: 0x201},
			{Op: SliceEnd, Track: 0x202},
		})
	})
	run("slice unregistered category", q, 1014, func(q *sequence) {
		q.slicesLocked(999, []Slice{{Op: SliceBegin, Track: 0x206, TrackName: "x"}, {Op: SliceEnd, Track: 0x206}})
	})
	run("counters", q, 1015, func(q *sequence) {
		q.counterLocked(ctr[5], -1)
		q.counterLocked(ctr[5], 1<<62)
		q.counterLocked(0, 1)
		q.countersLocked(q.s, []CounterValue{{ctr[6], 1}, {ctr[7], 0}, {999, 1}, {ctrOff, 2}})
	})
	run("object names", q, 1016, func(q *sequence) {
		q.objectNameLocked(0, 0x1111, 9, 0x2222, "my buffer")
		q.objectNameLocked(0, 1<<63, -5, 0, invalid)
		q.objectNameLocked(0, 1, 1000156000, 1, long)
	})
	run("header restart", q, 0, func(q *sequence) { q.buf = q.appendHeader(q.buf, 1017, false, true) })

	f := newSeq(filtered, 200)
	run("filtered sequence", f, 2000, func(q *sequence) {
		q.eventLocked(Track{}, cat, ev, []Arg{StringOf(anVal, vB)}, nil, []CounterValue{{ctrOff, 5}, {ctrCat, 6}, {ctr[0], 0}})
		q.countersLocked(q.s, []CounterValue{{ctrOff, 1}, {ctrCat, 2}})
	})
	o := newSeq(nil, 0)
	run("no sequence id", o, 3000, func(q *sequence) {
		q.eventLocked(Track{}, cat, ev, []Arg{Int(anInt, 1)}, []Slice{{Op: SliceBegin, Track: 9, TrackName: "n", NameHandle: 2}}, nil)
		q.counterLocked(ctr[0], 3)
	})
	run("generated names", q, 4000, func(q *sequence) {
		q.slicesLocked(cat, []Slice{{Op: SliceBegin, Track: 0x207, TrackName: "z", NameHandle: 0},
			{Op: SliceBegin, Track: 0x208, TrackName: strings.Repeat("n", 64), NameHandle: 0xf}})
	})
	sm := newSeq(&Session{opts: Options{SmallTrackUUIDs: true}}, 5)
	sm.small = 1
	run("small track uuids", sm, 5000, func(q *sequence) {
		q.eventLocked(Track{}, cat, ev, nil, []Slice{{Op: SliceBegin, Track: 3, Groups: groups, TrackName: "VkBuffer", NameHandle: 1}},
			[]CounterValue{{ctr[1], 5}, {ctr[2], 0}})
		q.eventLocked(Track{}, cat, ev, nil, []Slice{{Op: SliceEnd, Track: 3}}, []CounterValue{{ctr[2], 7}, {ctr[1], 0}})
		q.counterLocked(ctr[3], 9)
	})
	return cases
}
