package perfetto_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vkgen/vkgen/internal/perfettotools"

	"github.com/vkgen/vkgen/perfetto"
	"github.com/vkgen/vkgen/perfetto/decode"
)

// A slice begins with its instant at one timestamp, on a lane whose
// descriptor names its parent group; lanes and group tracks are described
// once per sequence (a rename, or a lane's next lifetime, writes none); an
// unnamed begin is named from TrackName and NameHandle; a
// rename (end + begin) shares one timestamp; Counters shares one timestamp.
func TestSlicesAndCounters(t *testing.T) {
	cat := perfetto.NewCategory("vkgen.test.slices")
	ev := perfetto.NewEventName("SliceTestInstant")
	arg := perfetto.NewAnnotationName("lifetime")
	c1 := perfetto.NewCounterTrack("vkgen.test.slices.a", perfetto.UnitSizeBytes)
	c2 := perfetto.NewCounterTrack("vkgen.test.slices.b", perfetto.UnitSizeBytes)
	s, path := startFile(t, "slices", perfetto.Options{Sequences: 1})
	groups := []perfetto.GroupTrack{{UUID: 0x1001, Name: "dev"}, {UUID: 0x1002, Parent: 0x1001, Name: "heap 0"}}
	perfetto.InstantSlices(cat, ev, []perfetto.Slice{{Op: perfetto.SliceBegin, Track: 1, Groups: groups, TrackName: "VkBuffer",
		NameHandle: 0xb1, Arg: perfetto.Uint(arg, 7)}}, nil)
	perfetto.InstantSlices(cat, ev, []perfetto.Slice{{Op: perfetto.SliceBegin, Track: 2, Groups: groups, TrackName: "VkImage", Name: "img"}}, nil)
	// A rename: its instant, then the end and the begin, under one pick.
	perfetto.InstantSlices(cat, ev, []perfetto.Slice{{Op: perfetto.SliceEnd, Track: 1},
		{Op: perfetto.SliceBegin, Track: 1, Groups: groups, TrackName: "VkBuffer", Name: "renamed", Arg: perfetto.Uint(arg, 7)}}, nil)
	perfetto.Counters(perfetto.CounterValue{Track: c1, Value: 5}, perfetto.CounterValue{Track: c2, Value: 6})
	// The last instant carries two counter values (one of a track described
	// by the Counters above, one not yet described on the sequence).
	c3 := perfetto.NewCounterTrack("vkgen.test.slices.c", perfetto.UnitSizeBytes)
	perfetto.InstantSlices(cat, ev, []perfetto.Slice{{Op: perfetto.SliceEnd, Track: 1}},
		[]perfetto.CounterValue{{Track: c1, Value: 0}, {Track: c3, Value: 9}})
	// The lane, free again, takes the next lifetime: described once.
	perfetto.Slices(cat, perfetto.Slice{Op: perfetto.SliceBegin, Track: 1, Groups: groups, TrackName: "VkBuffer",
		NameHandle: 0xb2, Arg: perfetto.Uint(arg, 8)})
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	tr := decodeBoth(t, path)

	descs := map[uint64]int{}
	var got []string
	ts := map[string]uint64{}
	for _, p := range tr.Packets {
		switch {
		case p.Track != nil && (p.Track.UUID == 0x1001 || p.Track.UUID == 0x1002 || p.Track.UUID == 2 || p.Track.UUID == 4):
			descs[p.Track.UUID]++
			got = append(got, fmt.Sprintf("track %#x parent %#x %s", p.Track.UUID, p.Track.ParentUUID, p.Track.Name))
		case p.Event == nil:
		case p.Event.Type == decode.TypeInstant && p.Event.Name == "SliceTestInstant":
			got = append(got, fmt.Sprintf("instant %d", len(p.Event.ExtraCounters)))
			ts[fmt.Sprint("instant", len(ts))] = p.Timestamp
		case p.Event.Type == decode.TypeSliceBegin:
			a, _ := p.Event.Arg("lifetime")
			got = append(got, fmt.Sprintf("begin %#x %q %v lifetime=%d", p.Event.TrackUUID, p.Event.Name, p.Event.Categories, a.Uint))
			ts[fmt.Sprint("slice", len(ts))] = p.Timestamp
		case p.Event.Type == decode.TypeSliceEnd:
			got = append(got, fmt.Sprintf("end %#x", p.Event.TrackUUID))
			ts[fmt.Sprint("slice", len(ts))] = p.Timestamp
		case p.Event.Type == decode.TypeCounter:
			got = append(got, fmt.Sprintf("counter %d", p.Event.CounterValue))
			ts[fmt.Sprint("counter", len(ts))] = p.Timestamp
		}
	}
	want := []string{
		"instant 0", "track 0x1001 parent " + fmt.Sprintf("%#x", perfetto.ProcessTrackUUID()) + " dev", "track 0x1002 parent 0x1001 heap 0",
		"track 0x2 parent 0x1002 VkBuffer", `begin 0x2 "VkBuffer 0xb1" [vkgen.test.slices] lifetime=7`,
		"instant 0", "track 0x4 parent 0x1002 VkImage", `begin 0x4 "img" [vkgen.test.slices] lifetime=0`,
		"instant 0", "end 0x2", `begin 0x2 "renamed" [vkgen.test.slices] lifetime=7`,
		"counter 5", "counter 6",
		"instant 2", "end 0x2", `begin 0x2 "VkBuffer 0xb2" [vkgen.test.slices] lifetime=8`,
	}
	if !slices.Equal(got, want) {
		t.Fatalf("packets:\n%q\nwant:\n%q", got, want)
	}
	// Same timestamps: each instant with its slice events, the rename's end
	// and begin, the two counters.
	pairs := [][2]string{{"instant0", "slice1"}, {"instant2", "slice3"}, {"instant4", "slice5"}, {"slice5", "slice6"},
		{"counter7", "counter8"}, {"instant9", "slice10"}}
	for _, p := range pairs {
		if ts[p[0]] == 0 || ts[p[0]] != ts[p[1]] {
			t.Errorf("%s at %d, %s at %d: want one timestamp", p[0], ts[p[0]], p[1], ts[p[1]])
		}
	}
	series := tr.Counters()
	for name, want := range map[string][]int64{"vkgen.test.slices.a": {5, 0}, "vkgen.test.slices.b": {6}, "vkgen.test.slices.c": {9}} {
		var vals []int64
		for _, c := range series[name].Samples {
			vals = append(vals, c.Value)
		}
		if !slices.Equal(vals, want) {
			t.Errorf("%s: samples %v, want %v", name, vals, want)
		}
	}
	if last := series["vkgen.test.slices.c"].Samples; len(last) != 1 || last[0].Timestamp != ts["instant9"] {
		t.Errorf("extra counter sample %v, want one at the instant's time %d", last, ts["instant9"])
	}
	checkProcessorStats(t, path, 0)
	if perfettotools.Missing() == "" { // trace_processor reads the extra values as samples too
		res := perfettotools.Query(t, path, `select t.name, cast(c.value as int) as v from counter c
			join counter_track t on c.track_id = t.id where t.name like 'vkgen.test.slices.%' order by t.name, c.ts`)
		if got, want := res.String(), "name,v\nvkgen.test.slices.a,5\nvkgen.test.slices.a,0\nvkgen.test.slices.b,6\nvkgen.test.slices.c,9"; got != want {
			t.Errorf("trace_processor counters:\n%s\nwant:\n%s", got, want)
		}
	}
}

// More counter values than trace_processor reads from one event go as
// counter events of their own at the event's timestamp; fewer go with it,
// and a 0 among them does not hide the values after it.
func TestInstantCounterValues(t *testing.T) {
	cat := perfetto.NewCategory("vkgen.test.extra", "")
	ev := perfetto.NewEventName("ExtraCountersInstant")
	var many []perfetto.CounterValue
	for i := range 9 {
		many = append(many, perfetto.CounterValue{Track: perfetto.NewCounterTrack(fmt.Sprintf("vkgen.test.extra.%d", i), perfetto.UnitSizeBytes), Value: int64(i)})
	}
	s, path := startFile(t, "extra", perfetto.Options{Sequences: 1})
	perfetto.InstantSlices(cat, perfetto.EventName(1<<30), nil, many[3:5]) // invalid name: a no-op that describes no track
	perfetto.InstantSlices(cat, ev, nil, many[:3])                         // 0, 1, 2
	perfetto.InstantSlices(cat, ev, nil, many)                             // 0 ... 8: nine
	perfetto.InstantSlices(cat, ev, nil, many[7:8])                        // 7
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	tr := decodeBoth(t, path)
	var attached []int
	for _, p := range tr.Packets {
		if p.Event != nil && p.Event.Name == "ExtraCountersInstant" {
			attached = append(attached, len(p.Event.ExtraCounters))
		}
	}
	if want := []int{3, 0, 1}; !slices.Equal(attached, want) {
		t.Errorf("extra counter values per instant %v, want %v", attached, want)
	}
	var want strings.Builder
	want.WriteString("name,n,v")
	for i := range 9 {
		n := map[bool]int{true: 2, false: 1}[i < 3 || i == 7]
		if cs := tr.Counters()[fmt.Sprintf("vkgen.test.extra.%d", i)]; cs == nil || len(cs.Samples) != n {
			t.Errorf("track %d: %+v, want a described track with %d samples", i, cs, n)
		}
		fmt.Fprintf(&want, "\nvkgen.test.extra.%d,%d,%d", i, n, i)
	}
	checkProcessorStats(t, path, 0)
	if perfettotools.Missing() == "" {
		res := perfettotools.Query(t, path, `select t.name, count(*) as n, cast(max(c.value) as int) as v from counter c
			join counter_track t on c.track_id = t.id where t.name like 'vkgen.test.extra.%' group by t.name order by t.name`)
		if got := res.String(); got != want.String() {
			t.Errorf("trace_processor counters:\n%s\nwant:\n%s", got, want.String())
		}
	}
}

// A registered value is interned once per sequence and read back as the
// string, by the Go decoder and by trace_processor; an unregistered one
// leaves its annotation out.
func TestStringValues(t *testing.T) {
	cat := perfetto.NewCategory("vkgen.test.strvals", "")
	ev := perfetto.NewEventName("StringValueInstant")
	op := perfetto.NewAnnotationName("op")
	bind, destroy := perfetto.NewStringValue("BIND"), perfetto.NewStringValue("DESTROY")
	s, path := startFile(t, "strvals", perfetto.Options{Sequences: 1})
	for _, v := range []perfetto.StringValue{bind, destroy, bind, perfetto.StringValue(1 << 30)} {
		perfetto.Instant(cat, ev, perfetto.StringOf(op, v), perfetto.Uint(perfetto.NewAnnotationName("n"), 1))
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(data, []byte("DESTROY")); n != 1 {
		t.Errorf("DESTROY written %d times, want once (interned)", n)
	}
	var got []string
	for _, p := range decodeBoth(t, path).Instants() {
		if p.Event.Name == "StringValueInstant" {
			a, ok := p.Event.Arg("op")
			got = append(got, fmt.Sprintf("%s %v %d", a.Str, ok, len(p.Event.Annotations)))
		}
	}
	if want := []string{"BIND true 2", "DESTROY true 2", "BIND true 2", " false 1"}; !slices.Equal(got, want) {
		t.Errorf("decoded %q, want %q", got, want)
	}
	checkProcessorStats(t, path, 0)
	if perfettotools.Missing() == "" {
		res := perfettotools.Query(t, path, `select extract_arg(arg_set_id, 'debug.op') as op from slice where name = 'StringValueInstant' order by ts`)
		if got, want := res.String(), "op\nBIND\nDESTROY\nBIND\n[NULL]"; got != want {
			t.Errorf("trace_processor:\n%s\nwant:\n%s", got, want)
		}
	}
}

// batchOutput keeps each batch a sequence hands to the output.
type batchOutput struct {
	mu      sync.Mutex
	batches [][]byte
}

func (o *batchOutput) Write(_ uint32, b []byte) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.batches = append(o.batches, bytes.Clone(b))
	return nil
}
func (o *batchOutput) Close() error { return nil }

// batchSession starts a one-sequence session that writes only when told
// (Flush, Stop), each batch kept apart.
func batchSession(t *testing.T, name string) (*perfetto.Session, *batchOutput) {
	t.Helper()
	out := &batchOutput{}
	s, err := perfetto.StartSession(name, out, perfetto.Options{Sequences: 1, FlushInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	return s, out
}

// Every batch describes the lanes it begins slices on, and only those: a
// batch decodes on its own (a ring buffer may have dropped the ones
// before), and a resync re-emits the group tracks but not the hundreds of
// lanes the sequence used, one per object alive at once.
func TestLanesDescribedPerBatch(t *testing.T) {
	cat := perfetto.NewCategory("vkgen.test.lanes")
	s, out := batchSession(t, "lanes")
	groups := []perfetto.GroupTrack{{UUID: 0x1001, Name: "dev"}, {UUID: 0x1002, Parent: 0x1001, Name: "heap 0"}}
	const lanes = 500
	for i := range uint64(lanes) {
		perfetto.Slices(cat, perfetto.Slice{Op: perfetto.SliceBegin, Track: 0x2000 + i, Groups: groups, TrackName: "VkBuffer", NameHandle: i})
	}
	s.Flush()
	s.ClearIncrementalState()
	perfetto.Slices(cat, perfetto.Slice{Op: perfetto.SliceEnd, Track: 0x2000},
		perfetto.Slice{Op: perfetto.SliceBegin, Track: 0x2000, Groups: groups, TrackName: "VkBuffer", Name: "renamed"})
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	laneUUIDs := map[uint64]bool{}
	for i := range uint64(lanes) {
		laneUUIDs[perfetto.LaneUUID(0x2000+i)] = true
	}
	var whole []byte
	var got []string // per batch of the live sequence: descriptors of groups and of lanes
	for _, b := range out.batches {
		whole = append(whole, b...)
		tr, err := decode.Decode(b)
		if err != nil {
			t.Fatalf("a batch does not decode alone: %v", err)
		}
		groupDescs, laneDescs, begins := 0, map[uint64]int{}, 0
		for _, p := range tr.Packets {
			switch {
			case p.Track != nil && (p.Track.UUID == 0x1001 || p.Track.UUID == 0x1002):
				groupDescs++
			case p.Track != nil && laneUUIDs[p.Track.UUID]:
				laneDescs[p.Track.UUID]++
			case p.Event != nil && p.Event.Type == decode.TypeSliceBegin:
				if laneDescs[p.Event.TrackUUID] != 1 {
					t.Errorf("a begin on lane %#x follows %d of its descriptors in its batch, want 1", p.Event.TrackUUID, laneDescs[p.Event.TrackUUID])
				}
				begins++
			}
		}
		if begins > 0 {
			got = append(got, fmt.Sprintf("groups %d lanes %d begins %d", groupDescs, len(laneDescs), begins))
		}
	}
	if want := []string{"groups 2 lanes 500 begins 500", "groups 2 lanes 1 begins 1"}; !slices.Equal(got, want) {
		t.Errorf("batches: %q, want %q", got, want)
	}
	path := filepath.Join(t.TempDir(), "lanes.pftrace")
	if err := os.WriteFile(path, whole, 0o600); err != nil {
		t.Fatal(err)
	}
	checkProcessorStats(t, path, 0)
}

// TestForgottenGroupsAreNotKept: once a device's group tracks ended, a
// resync re-emits the other groups only, and a later begin under a
// forgotten group describes it again.
func TestForgottenGroupsAreNotKept(t *testing.T) {
	cat := perfetto.NewCategory("vkgen.test.forget")
	s, out := batchSession(t, "forget")
	gone := []perfetto.GroupTrack{{UUID: 0x1001, Name: "dev 1"}, {UUID: 0x1002, Parent: 0x1001, Name: "heap 0"}}
	kept := []perfetto.GroupTrack{{UUID: 0x3001, Name: "dev 2"}, {UUID: 0x3002, Parent: 0x3001, Name: "heap 0"}}
	begin := func(lane uint64, groups []perfetto.GroupTrack) perfetto.Slice {
		return perfetto.Slice{Op: perfetto.SliceBegin, Track: lane, Groups: groups, TrackName: "VkBuffer", NameHandle: lane}
	}
	perfetto.Slices(cat, begin(0x2001, gone), begin(0x4001, kept), perfetto.Slice{Op: perfetto.SliceEnd, Track: 0x2001})
	perfetto.ForgetGroups(0x1001, 0x1002)
	s.Flush()
	s.ClearIncrementalState()
	perfetto.Slices(cat, perfetto.Slice{Op: perfetto.SliceEnd, Track: 0x4001})
	s.Flush()
	s.ClearIncrementalState()
	perfetto.Slices(cat, begin(0x2002, gone))
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	var got []string // per batch with slice events: the group descriptors in it
	for _, b := range out.batches {
		tr, err := decode.Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		var descs []uint64
		events := 0
		for _, p := range tr.Packets {
			if p.Track != nil && p.Track.UUID&0xfff0 != 0x2000 && p.Track.UUID&0xfff0 != 0x4000 && p.Track.UUID < 0x5000 {
				descs = append(descs, p.Track.UUID)
			}
			if p.Event != nil && (p.Event.Type == decode.TypeSliceBegin || p.Event.Type == decode.TypeSliceEnd) {
				events++
			}
		}
		if events > 0 {
			slices.Sort(descs) // a resync's order is the map's, and it may repeat the batch's own
			got = append(got, fmt.Sprintf("%x", slices.Compact(descs)))
		}
	}
	want := []string{"[1001 1002 3001 3002]", "[3001 3002]", "[1001 1002 3001 3002]"}
	if !slices.Equal(got, want) {
		t.Errorf("group descriptors per batch: %q, want %q", got, want)
	}
}
