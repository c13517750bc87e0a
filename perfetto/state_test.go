package perfetto_test

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/vkgen/vkgen/perfetto"
	"github.com/vkgen/vkgen/perfetto/decode"
)

var (
	catOn      = perfetto.NewCategory("filter.on", "recorded by the filter tests")
	catOff     = perfetto.NewCategory("filter.off")
	catAlways  = perfetto.NewAlwaysCategory("filter.always", "recorded whatever a filter says")
	ctrOff     = perfetto.NewCounterTrackIn(catOff, "filter.off.counter", perfetto.UnitSizeBytes)
	ctrOn      = perfetto.NewCounterTrackIn(catOn, "filter.on.counter", perfetto.UnitSizeBytes)
	evLostName = perfetto.NewEventName("defined.in.a.lost.batch")
)

func decodeBuffer(t *testing.T, b []byte) *decode.Trace {
	t.Helper()
	path := filepath.Join(t.TempDir(), "trace.pftrace")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return decodeBoth(t, path)
}

func countByCategory(tr *decode.Trace) map[string]int {
	n := map[string]int{}
	for _, p := range tr.Instants() {
		for _, c := range p.Event.Categories {
			n[c]++
		}
	}
	return n
}

// TestCategoryFilter: a session's CategoryFilter keeps events and
// categorised counters of rejected categories out of that session only
// (replay included), asks once per category, and never filters raw packets,
// category-less counters or the categories of NewAlwaysCategory.
func TestCategoryFilter(t *testing.T) {
	t.Cleanup(perfetto.RegisterReplay(func(e *perfetto.Emitter) {
		e.Instant(catOn, evCreate)
		e.Instant(catOff, evCreate)
		e.Instant(catAlways, evCreate)
		e.Counter(ctrOff, 1)
	}))
	var mu sync.Mutex
	asked := map[perfetto.Category]int{}
	filter := func(c perfetto.Category) bool {
		mu.Lock()
		defer mu.Unlock()
		asked[c]++
		return c != catOff && c != catAlways
	}
	var filtered, all bytes.Buffer
	fs, err := perfetto.StartSession("filtered", perfetto.WriterOutput(&filtered), perfetto.Options{CategoryFilter: filter})
	if err != nil {
		t.Fatal(err)
	}
	as, err := perfetto.StartSession("all", perfetto.WriterOutput(&all), perfetto.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		perfetto.Instant(catOn, evCreate, perfetto.Uint(anHandle, uint64(i)))
		perfetto.InstantOn(perfetto.ThreadTrack(7), catOff, evCreate)
		perfetto.Counter(ctrOff, int64(i))
		perfetto.Counter(ctrOn, int64(i))
		perfetto.Counter(ctrAppMem, int64(i))
		perfetto.VkObjectName(1, 9, uint64(i), "raw")
	}
	if err := fs.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := as.Stop(); err != nil {
		t.Fatal(err)
	}
	tr := decodeBuffer(t, filtered.Bytes())
	if n := countByCategory(tr); n["filter.on"] != 101 || n["filter.off"] != 0 || n["filter.always"] != 1 {
		t.Errorf("filtered session: events by category %v, want 101 filter.on, 1 filter.always and no filter.off", n)
	}
	c := tr.Counters()
	if c["filter.off.counter"] != nil || c["filter.on.counter"] == nil || c[ctrAppMem.Name()] == nil {
		t.Errorf("filtered session counter tracks: %v", c)
	}
	if len(tr.ObjectNames()) != 100 {
		t.Errorf("filtered session: %d raw names, want 100", len(tr.ObjectNames()))
	}
	if n := countByCategory(decodeBuffer(t, all.Bytes())); n["filter.on"] != 101 || n["filter.off"] != 101 {
		t.Errorf("unfiltered session: %v", n)
	}
	for _, c := range []perfetto.Category{catOn, catOff} {
		if asked[c] != 1 {
			t.Errorf("filter asked %d times about %s, want once", asked[c], c)
		}
	}
}

// failingOutput loses whole batches on demand, as the system backend does
// when its shared memory buffer is full.
type failingOutput struct {
	buf  bytes.Buffer
	lose bool
}

func (o *failingOutput) Write(_ uint32, b []byte) error {
	if o.lose {
		n := 0
		for rest := b; len(rest) > 0; n++ {
			_, rest, _ = cutPacket(rest)
		}
		return perfetto.LostPackets{N: uint64(n)}
	}
	o.buf.Write(b)
	return nil
}
func (o *failingOutput) Close() error { return nil }

// cutPacket splits the first framed packet (0x0a, varint length) off b.
func cutPacket(b []byte) (pkt, rest []byte, ok bool) {
	n, k := uint64(0), 1
	for shift := 0; k < len(b); shift += 7 {
		n |= uint64(b[k]&0x7f) << shift
		k++
		if b[k-1] < 0x80 {
			break
		}
	}
	end := min(k+int(n), len(b))
	return b[k:end], b[end:], end == k+int(n)
}

// TestLostPackets: a batch the output loses (with the names and tracks it
// defined) is counted, and the next batch re-emits the sequence's state, so
// the events after it decode and trace_processor keeps them.
func TestLostPackets(t *testing.T) {
	out := &failingOutput{}
	s, err := perfetto.StartSession("lossy", out, perfetto.Options{Sequences: 1})
	if err != nil {
		t.Fatal(err)
	}
	perfetto.Instant(catTest, evCreate, perfetto.Uint(anHandle, 1))
	s.Flush()
	out.lose = true
	perfetto.Instant(catTest, evLostName, perfetto.String(anName, "lost"))
	perfetto.InstantOn(perfetto.ThreadTrack(42), catTest, evLostName)
	perfetto.Counter(ctrDrvMem, 5)
	s.Flush()
	out.lose = false
	perfetto.Instant(catTest, evLostName, perfetto.String(anName, "kept"))
	perfetto.InstantOn(perfetto.ThreadTrack(42), catTest, evLostName)
	perfetto.Counter(ctrDrvMem, 6)
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	tr := decodeBuffer(t, out.buf.Bytes())
	// The lost batch: the clock snapshot that starts it, an instant, a
	// thread descriptor, an instant on it, a counter descriptor and a value.
	if s.Dropped() != 6 {
		t.Errorf("session counted %d lost packets, want 6", s.Dropped())
	}
	d := tr.Counters()[perfetto.DroppedEventsName]
	if d == nil || uint64(d.Samples[len(d.Samples)-1].Value) != s.Dropped() {
		t.Errorf("loss report %+v, session dropped %d", d, s.Dropped())
	}
	if n, _ := namedInstants(tr, "defined.in.a.lost.batch"); n != 2 {
		t.Errorf("%d events after the loss, want 2", n)
	}
	if c := tr.Counters()[ctrDrvMem.Name()]; c == nil || c.Samples[len(c.Samples)-1].Value != 6 {
		t.Errorf("counter after the loss: %+v", c)
	}
}

func namedInstants(tr *decode.Trace, name string) (n int, tracks map[uint64]int) {
	tracks = map[uint64]int{}
	for _, p := range tr.Instants() {
		if p.Event.Name == name {
			n++
			tracks[p.Event.TrackUUID]++
		}
	}
	return n, tracks
}

// TestClearIncrementalState: after ClearIncrementalState, what follows
// decodes on its own, as when a ring buffer overwrote everything before.
func TestClearIncrementalState(t *testing.T) {
	var out bytes.Buffer
	s, err := perfetto.StartSession("clear", perfetto.WriterOutput(&out), perfetto.Options{Sequences: 1})
	if err != nil {
		t.Fatal(err)
	}
	perfetto.Instant(catTest, evCreate, perfetto.Uint(anHandle, 1))
	perfetto.InstantOn(perfetto.ThreadTrack(43), catTest, evCreate)
	perfetto.Counter(ctrDrvMem, 1)
	s.Flush()
	mark := out.Len()
	s.ClearIncrementalState()
	perfetto.Instant(catTest, evCreate, perfetto.Uint(anHandle, 2))
	perfetto.InstantOn(perfetto.ThreadTrack(43), catTest, evCreate)
	perfetto.Counter(ctrDrvMem, 2)
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	decodeBuffer(t, out.Bytes())
	tail, err := decode.Decode(out.Bytes()[mark:])
	if err != nil {
		t.Fatalf("the part after the clear does not decode on its own: %v", err)
	}
	checkStateValid(t, tail)
	p := tail.Packets[0]
	if p.SeqFlags&decode.SeqIncrementalStateCleared == 0 || p.FirstOnSequence || p.DefaultTrackUUID != perfetto.ProcessTrackUUID() {
		t.Errorf("first packet after the clear: %+v", p)
	}
	if n, tracks := namedInstants(tail, "vkCreateBuffer"); n != 2 || tracks[perfetto.ThreadTrack(43).UUID()] != 1 {
		t.Errorf("after the clear: %d events on tracks %v", n, tracks)
	}
	thread := false
	for _, p := range tail.Packets {
		thread = thread || p.Track != nil && p.Track.UUID == perfetto.ThreadTrack(43).UUID()
	}
	if c := tail.Counters()[ctrDrvMem.Name()]; c == nil || c.Track == nil || !thread {
		t.Errorf("track descriptors not re-emitted: counter %+v thread %v", c, thread)
	}
}

// TestOmitSequenceID: no packet carries trusted_packet_sequence_id, while
// the output still learns which sequence each batch belongs to.
func TestOmitSequenceID(t *testing.T) {
	out := &seqRecorder{}
	s, err := perfetto.StartSession("noseq", out, perfetto.Options{OmitSequenceID: true, Sequences: 1})
	if err != nil {
		t.Fatal(err)
	}
	perfetto.Instant(catTest, evCreate, perfetto.Uint(anHandle, 1))
	perfetto.Counter(ctrDrvMem, 1)
	perfetto.VkObjectName(1, 9, 2, "n")
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	b := out.live.Bytes()
	tr, err := decode.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range tr.Packets {
		if p.SeqID != 0 {
			t.Errorf("packet %d has sequence id %d", p.Index, p.SeqID)
		}
	}
	if len(tr.Packets) < 4 || len(tr.Instants()) != 1 || len(tr.ObjectNames()) != 1 {
		t.Errorf("%d packets, %d instants", len(tr.Packets), len(tr.Instants()))
	}
	if text := protocDecode(t, b); text != "" && bytes.Contains([]byte(text), []byte("trusted_packet_sequence_id")) {
		t.Error("protoc sees trusted_packet_sequence_id")
	}
}

// seqRecorder keeps the packets of the live sequence (id 2).
type seqRecorder struct{ live bytes.Buffer }

func (o *seqRecorder) Write(seq uint32, b []byte) error {
	if seq == 2 {
		o.live.Write(b)
	}
	return nil
}
func (o *seqRecorder) Close() error { return nil }

func TestCategories(t *testing.T) {
	again := perfetto.NewCategory("filter.on", "a later description")
	if again != catOn {
		t.Fatal("re-registering a category gave a new handle")
	}
	found := map[string]string{}
	for _, c := range perfetto.Categories() {
		found[c.Name] = c.Description
		if c.ID.String() != c.Name {
			t.Errorf("category %d: %q vs %q", c.ID, c.ID.String(), c.Name)
		}
	}
	if d, ok := found["filter.on"]; !ok || d != "recorded by the filter tests" {
		t.Errorf("filter.on: %q %v", d, ok)
	}
	if d, ok := found["filter.off"]; !ok || d != "" {
		t.Errorf("filter.off: %q %v", d, ok)
	}
	if _, ok := found["VulkanDebugMarker"]; !ok {
		t.Error("VulkanDebugMarker missing")
	}
}
