package perfetto_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/vkgen/vkgen/perfetto"
	"github.com/vkgen/vkgen/perfetto/decode"
)

// A slice begins with its instant at one timestamp, on a track of its own
// whose descriptor names its parent group; group tracks are described once
// per sequence; an unnamed begin is named from TrackName and NameHandle; a
// rename (end + begin) shares one timestamp; Counters shares one timestamp.
func TestSlicesAndCounters(t *testing.T) {
	cat := perfetto.NewCategory("vkgen.test.slices")
	ev := perfetto.NewEventName("SliceTestInstant")
	arg := perfetto.NewAnnotationName("lifetime")
	c1 := perfetto.NewCounterTrack("vkgen.test.slices.a", perfetto.UnitSizeBytes)
	c2 := perfetto.NewCounterTrack("vkgen.test.slices.b", perfetto.UnitSizeBytes)
	s, path := startFile(t, "slices", perfetto.Options{Sequences: 1})
	groups := []perfetto.GroupTrack{{UUID: 0x1001, Name: "dev"}, {UUID: 0x1002, Parent: 0x1001, Name: "heap 0"}}
	perfetto.InstantSlice(cat, ev, &perfetto.Slice{Op: perfetto.SliceBegin, Track: 0x2001, Groups: groups, TrackName: "VkBuffer",
		NameHandle: 0xb1, Arg: perfetto.Uint(arg, 7)})
	perfetto.InstantSlice(cat, ev, &perfetto.Slice{Op: perfetto.SliceBegin, Track: 0x2002, Groups: groups, TrackName: "VkImage", Name: "img"})
	perfetto.Slices(cat, perfetto.Slice{Op: perfetto.SliceEnd, Track: 0x2001},
		perfetto.Slice{Op: perfetto.SliceBegin, Track: 0x2001, Groups: groups, TrackName: "VkBuffer", Name: "renamed", Arg: perfetto.Uint(arg, 7)})
	perfetto.Counters(perfetto.CounterValue{Track: c1, Value: 5}, perfetto.CounterValue{Track: c2, Value: 6})
	perfetto.InstantSlice(cat, ev, &perfetto.Slice{Op: perfetto.SliceEnd, Track: 0x2001})
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	tr := decodeBoth(t, path)

	descs := map[uint64]int{}
	var got []string
	ts := map[string]uint64{}
	for _, p := range tr.Packets {
		switch {
		case p.Track != nil && p.Track.UUID >= 0x1001 && p.Track.UUID <= 0x2002:
			descs[p.Track.UUID]++
			got = append(got, fmt.Sprintf("track %#x parent %#x %s", p.Track.UUID, p.Track.ParentUUID, p.Track.Name))
		case p.Event == nil:
		case p.Event.Type == decode.TypeInstant && p.Event.Name == "SliceTestInstant":
			got = append(got, "instant")
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
		"instant", "track 0x1001 parent " + fmt.Sprintf("%#x", perfetto.ProcessTrackUUID()) + " dev", "track 0x1002 parent 0x1001 heap 0",
		"track 0x2001 parent 0x1002 VkBuffer", `begin 0x2001 "VkBuffer 0xb1" [vkgen.test.slices] lifetime=7`,
		"instant", "track 0x2002 parent 0x1002 VkImage", `begin 0x2002 "img" [vkgen.test.slices] lifetime=0`,
		"end 0x2001", "track 0x2001 parent 0x1002 VkBuffer", `begin 0x2001 "renamed" [vkgen.test.slices] lifetime=7`,
		"counter 5", "counter 6",
		"instant", "end 0x2001",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("packets:\n%q\nwant:\n%q", got, want)
	}
	// Same timestamps: each instant with its slice event, the rename's end
	// and begin, the two counters.
	pairs := [][2]string{{"instant0", "slice1"}, {"instant2", "slice3"}, {"slice4", "slice5"}, {"counter6", "counter7"}, {"instant8", "slice9"}}
	for _, p := range pairs {
		if ts[p[0]] == 0 || ts[p[0]] != ts[p[1]] {
			t.Errorf("%s at %d, %s at %d: want one timestamp", p[0], ts[p[0]], p[1], ts[p[1]])
		}
	}
	checkProcessorStats(t, path, 0)
}
