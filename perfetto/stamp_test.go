package perfetto_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/vkgen/vkgen/internal/perfettotools"
	"github.com/vkgen/vkgen/perfetto"
)

// sample is a value at a time: an event's, a counter's.
type sample struct {
	ts uint64
	v  int64
}

// Timestamps written as deltas on the sequences' incremental clock read
// back exactly, in trace_processor and in package decode: over several
// batches and two sequences, across an incremental-state clear and a batch
// the output lost, with times that go back (written absolute), repeat
// (delta 0) and jump by seconds.
func TestTimestampsReadBackExactly(t *testing.T) {
	out := &failingOutput{}
	s, err := perfetto.StartSession("stamps", out, perfetto.Options{Sequences: 2})
	if err != nil {
		t.Fatal(err)
	}
	base := perfetto.Now()
	var instants, counters []sample
	ts := base
	for i := range 600 {
		switch {
		case i%97 == 0:
			ts += 3_000_000_000 // seconds apart: a long delta
		case i%7 == 0:
			ts -= 5000 // before the clock: written absolute
		case i%5 == 0: // the same time again: a zero delta
		default:
			ts += uint64(100 + i*37%5000)
		}
		if i%2 == 0 {
			perfetto.Stamp(ts).Instant(catTest, evCreate, perfetto.Uint(anHandle, uint64(i)))
			instants = append(instants, sample{ts, int64(i)})
		} else {
			perfetto.Stamp(ts).Counter(ctrDrvMem, int64(i))
			counters = append(counters, sample{ts, int64(i)})
		}
		switch i {
		case 200:
			s.ClearIncrementalState()
		case 300:
			s.Flush()
			out.lose = true
		case 320:
			s.Flush() // what 301-320 wrote is lost
			out.lose = false
			instants = slices.DeleteFunc(instants, func(x sample) bool { return x.v > 300 && x.v <= 320 })
			counters = slices.DeleteFunc(counters, func(x sample) bool { return x.v > 300 && x.v <= 320 })
		}
		if i%50 == 49 {
			s.Flush() // a new batch: its clock starts again
		}
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	tr := decodeBuffer(t, out.buf.Bytes())
	var gotInstants []sample
	for _, p := range tr.Instants() {
		if a, ok := p.Event.Arg("object_handle"); ok && p.Event.Name == "vkCreateBuffer" {
			gotInstants = append(gotInstants, sample{p.Timestamp, int64(a.Uint)})
		}
	}
	var gotCounters []sample
	for _, c := range tr.Counters()[ctrDrvMem.Name()].Samples {
		gotCounters = append(gotCounters, sample{c.Timestamp, c.Value})
	}
	byValue := func(x, y sample) int { return int(x.v - y.v) }
	for _, l := range [][]sample{instants, counters, gotInstants, gotCounters} {
		slices.SortFunc(l, byValue)
	}
	if !slices.Equal(gotInstants, instants) || !slices.Equal(gotCounters, counters) {
		t.Errorf("decode: instants %v\ncounters %v\nwant %v\n%v", gotInstants, gotCounters, instants, counters)
	}
	if perfettotools.Missing() != "" {
		t.Log("trace_processor comparison skipped:", perfettotools.Missing())
		return
	}
	path := filepath.Join(t.TempDir(), "t.pftrace")
	if err := os.WriteFile(path, out.buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	rows := func(sql string) []sample {
		var l []sample
		r := perfettotools.Query(t, path, sql)
		for i := range r.Rows {
			ts, err1 := strconv.ParseUint(r.Rows[i][0], 10, 64)
			v, err2 := strconv.ParseFloat(r.Rows[i][1], 64)
			if err1 != nil || err2 != nil {
				t.Fatalf("row %q", r.Rows[i])
			}
			l = append(l, sample{ts, int64(v)})
		}
		slices.SortFunc(l, byValue)
		return l
	}
	tpInstants := rows(`SELECT ts, extract_arg(arg_set_id, 'debug.object_handle') FROM slice WHERE name = 'vkCreateBuffer'`)
	tpCounters := rows(fmt.Sprintf(`SELECT ts, value FROM counter JOIN counter_track t ON counter.track_id = t.id WHERE t.name = '%s'`, ctrDrvMem.Name()))
	if !slices.Equal(tpInstants, instants) || !slices.Equal(tpCounters, counters) {
		t.Errorf("trace_processor: instants %v\ncounters %v\nwant %v\n%v", tpInstants, tpCounters, instants, counters)
	}
}

// Extra counter values whose tracks come from the sequence's defaults read
// back exactly: sets of tracks that are a prefix of the defaults, extend
// them, miss them once or repeatedly, with zeros, over several batches and
// an incremental-state clear; with the uuids unique among producers and
// with small ones (Options.SmallTrackUUIDs, as files write them).
func TestExtraCounterDefaultsReadBack(t *testing.T) {
	for _, small := range []bool{false, true} {
		t.Run(fmt.Sprint("small=", small), func(t *testing.T) { extraCounterDefaultsReadBack(t, small) })
	}
}

func extraCounterDefaultsReadBack(t *testing.T, small bool) {
	var out bytes.Buffer
	s, err := perfetto.StartSession("extra", perfetto.WriterOutput(&out), perfetto.Options{Sequences: 1, SmallTrackUUIDs: small})
	if err != nil {
		t.Fatal(err)
	}
	ctr := []perfetto.CounterTrack{ctrAppMem, ctrDrvMem,
		perfetto.NewCounterTrack("vulkan.mem.app.usage.extra_c", perfetto.UnitSizeBytes),
		perfetto.NewCounterTrack("vulkan.mem.app.usage.extra_d", perfetto.UnitSizeBytes)}
	sets := [][]int{{0, 1}, {0, 1, 2, 3}, {2, 3, 0, 1}, {0, 1}, {3}, {3}, {3}, {1, 0}, {0, 1, 2}}
	want := map[string][]sample{}
	ts := perfetto.Now()
	for i := range 300 {
		ts += 1000
		var cv []perfetto.CounterValue
		for k, c := range sets[i*7%len(sets)] {
			v := int64(i*10 + k)
			if (i+k)%4 == 0 {
				v = 0
			}
			cv = append(cv, perfetto.CounterValue{Track: ctr[c], Value: v})
			want[ctr[c].Name()] = append(want[ctr[c].Name()], sample{ts, v})
		}
		perfetto.Stamp(ts).InstantSlices(catTest, evCreate, nil, cv, perfetto.Uint(anHandle, uint64(i)))
		switch {
		case i == 150:
			s.ClearIncrementalState()
		case i%40 == 39:
			s.Flush()
		}
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	tr := decodeBuffer(t, out.Bytes())
	for uuid, d := range tr.Tracks {
		if d.Counter != nil && (uuid < 1<<14) != small {
			t.Errorf("counter track %s has uuid %#x, small %v", d.Name, uuid, small)
		}
	}
	path := filepath.Join(t.TempDir(), "t.pftrace")
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	series := tr.Counters()
	for _, c := range ctr {
		var got []sample
		if cs := series[c.Name()]; cs != nil {
			for _, x := range cs.Samples {
				got = append(got, sample{x.Timestamp, x.Value})
			}
		}
		if !slices.Equal(got, want[c.Name()]) {
			t.Errorf("decode: %s: %v\nwant %v", c.Name(), got, want[c.Name()])
		}
		if perfettotools.Missing() != "" {
			continue
		}
		r := perfettotools.Query(t, path, fmt.Sprintf(`SELECT ts, value FROM counter JOIN counter_track t
			ON counter.track_id = t.id WHERE t.name = '%s' ORDER BY ts`, c.Name()))
		got = got[:0]
		for _, row := range r.Rows {
			ts, _ := strconv.ParseUint(row[0], 10, 64)
			v, _ := strconv.ParseFloat(row[1], 64)
			got = append(got, sample{ts, int64(v)})
		}
		if !slices.Equal(got, want[c.Name()]) {
			t.Errorf("trace_processor: %s: %v\nwant %v", c.Name(), got, want[c.Name()])
		}
	}
}
