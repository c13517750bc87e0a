package perfetto_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/vkgen/vkgen/internal/perfettotools"
	"github.com/vkgen/vkgen/perfetto"
	"github.com/vkgen/vkgen/perfetto/decode"
	"google.golang.org/protobuf/encoding/protowire"
)

// A compressed trace file (Options.Compress) says what the plain one says,
// event for event, to trace_processor and to package decode, in a fraction
// of the bytes: the same stamped instants (with counter values), lifetime
// slices, counters and raw object names go to a plain and a compressed
// session at once, over batches, an incremental-state clear and a flush of
// a single event (a batch too small to gain from deflate, written plain).
func TestCompressedFileReadsBackExactly(t *testing.T) {
	plain, plainPath := startFile(t, "plain.pftrace", perfetto.Options{Sequences: 2})
	comp, compPath := startFile(t, "comp.pftrace", perfetto.Options{Sequences: 2, Compress: true})
	both := func(f func(*perfetto.Session)) { f(plain); f(comp) }
	flush := func(s *perfetto.Session) {
		if err := s.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	ts := perfetto.Now()
	for i := range 3000 {
		ts += uint64(50 + i%700)
		h := uint64(0x5555_0000_1000 + i%64*0x40)
		switch i % 4 {
		case 0:
			perfetto.Stamp(ts).InstantSlices(catTest, evCreate,
				[]perfetto.Slice{{Op: perfetto.SliceBegin, Track: uint64(1 + i%64), TrackName: "VkBuffer", NameHandle: h}},
				[]perfetto.CounterValue{{Track: ctrDrvMem, Value: int64(i * 4096)}},
				perfetto.Uint(anHandle, h), perfetto.Uint(anSize, 4096))
		case 1:
			perfetto.Stamp(ts).VkObjectName(1, 9, h, fmt.Sprintf("buffer %d", i))
		case 2:
			perfetto.Stamp(ts).Counter(ctrDrvMem, int64(i))
		case 3:
			perfetto.Stamp(ts).Slices(catTest, perfetto.Slice{Op: perfetto.SliceEnd, Track: uint64(1 + (i-3)%64)})
		}
		switch {
		case i == 1500:
			both((*perfetto.Session).ClearIncrementalState)
		case i == 2001:
			both(flush) // a flush of one event
		case i%500 == 499:
			both(flush)
		}
	}
	for _, s := range []*perfetto.Session{plain, comp} {
		if err := s.Stop(); err != nil {
			t.Fatal(err)
		}
	}
	p, c := mustRead(t, plainPath), mustRead(t, compPath)
	if len(c)*3 > len(p) {
		t.Errorf("compressed file %d bytes, plain %d: want at most a third", len(c), len(p))
	}
	plainPackets, compressed := framing(t, c)
	t.Logf("plain file %d bytes, compressed %d: %d compressed packets, %d plain", len(p), len(c), compressed, plainPackets)
	if compressed < 6 || plainPackets == 0 {
		t.Errorf("compressed file: %d compressed packets (want a batch each), %d plain (want the small batches)", compressed, plainPackets)
	}
	if got, want := content(mustDecode(t, c)), content(mustDecode(t, p)); len(want) < 3000 || !slices.Equal(got, want) {
		t.Errorf("decode: compressed file holds\n%v\nplain\n%v", got, want)
	}
	if perfettotools.Missing() != "" {
		t.Log("trace_processor comparison skipped:", perfettotools.Missing())
		return
	}
	perfettotools.CheckStats(t, compPath)
	sqls := []string{
		`SELECT ts, name, dur FROM slice ORDER BY ts, name, dur`,
		`SELECT s.ts, a.key, a.display_value FROM slice s JOIN args a USING (arg_set_id) ORDER BY 1, 2, 3`,
		`SELECT c.ts, t.name, c.value FROM counter c JOIN counter_track t ON c.track_id = t.id ORDER BY 1, 2, 3`,
	}
	got := perfettotools.Queries(t, compPath, "", sqls)
	want := perfettotools.Queries(t, plainPath, "", sqls)
	for i := range sqls {
		if len(want[i].Rows) == 0 || got[i].String() != want[i].String() {
			t.Errorf("%s: compressed file gives %d rows, plain %d:\n%v\nwant\n%v", sqls[i], len(got[i].Rows), len(want[i].Rows), got[i], want[i])
		}
	}
}

func mustDecode(t *testing.T, data []byte) *decode.Trace {
	t.Helper()
	tr, err := decode.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// content lists what a trace says, in time order: instants with their
// arguments, counter samples and object names.
func content(tr *decode.Trace) []string {
	var l []string
	for _, p := range tr.Instants() {
		l = append(l, fmt.Sprintf("%d instant %s %v", p.Timestamp, p.Event.Name, p.Event.Annotations))
	}
	for name, c := range tr.Counters() {
		for _, s := range c.Samples {
			l = append(l, fmt.Sprintf("%d counter %s %d", s.Timestamp, name, s.Value))
		}
	}
	for _, p := range tr.ObjectNames() {
		l = append(l, fmt.Sprintf("%d name %#x %s", p.Timestamp, p.ObjectName.Object, p.ObjectName.Name))
	}
	slices.Sort(l)
	return l
}

// framing counts a trace's top-level packets: plain ones and those that hold
// compressed_packets.
func framing(t *testing.T, data []byte) (plain, compressed int) {
	for len(data) > 0 {
		_, _, n := protowire.ConsumeTag(data)
		body, m := protowire.ConsumeBytes(data[max(n, 0):])
		if n < 0 || m < 0 {
			t.Fatal("a trace that does not frame")
		}
		if num, _, _ := protowire.ConsumeTag(body); num == 50 {
			compressed++
		} else {
			plain++
		}
		data = data[n+m:]
	}
	return plain, compressed
}
