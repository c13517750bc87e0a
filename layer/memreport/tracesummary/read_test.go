package tracesummary

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/vkgen/vkgen/perfetto"
	"github.com/vkgen/vkgen/perfetto/decode"
	"google.golang.org/protobuf/encoding/protowire"
)

// record runs f inside a session and returns the trace's bytes.
func record(t *testing.T, f func()) []byte {
	t.Helper()
	var buf bytes.Buffer
	s, err := perfetto.StartSession("test", perfetto.WriterOutput(&buf), perfetto.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f()
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// A destroyed 64 MiB buffer's handle goes to a 256-byte buffer at once (as
// lavapipe and NVIDIA do): two objects, each with its own name and size.
func TestHandleReuse(t *testing.T) {
	data := record(t, func() {
		alloc(cat, "CREATE", "DEVICE_MEMORY", 0x100, 128<<20, 0, 0x100, "unbound_memory")
		name(9, 0xb1, "big")
		alloc(cat, "BIND", "BUFFER", 0x100, 64<<20, 0, 0xb1, "staging_transfer")
		alloc(cat, "DESTROY", "BUFFER", 0x100, 64<<20, 0, 0xb1, "staging_transfer")
		name(9, 0xb1, "small")
		alloc(cat, "BIND", "BUFFER", 0x100, 256, 0, 0xb1, "uniform_constants")
		alloc(cat, "DESTROY", "BUFFER", 0x100, 256, 0, 0xb1, "uniform_constants")
		alloc(cat, "BIND", "BUFFER", 0x100, 4096, 0, 0xb1, "geometry_mesh") // unnamed, alive at the end
	})
	s, err := Read(bytes.NewReader(data), "t", Options{})
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		name, cluster string
		bytes, final  uint64
		alive         bool
	}
	var got []row
	for _, o := range s.Objects {
		if o.Type == "BUFFER" {
			got = append(got, row{o.Name, o.Cluster, o.Bytes, o.Final, o.Destroyed < 0})
		}
	}
	want := []row{{"big", "staging_transfer", 64 << 20, 0, false}, {"", "geometry_mesh", 4096, 4096, true}, {"small", "uniform_constants", 256, 0, false}}
	if fmt.Sprint(got) != fmt.Sprint(want) || s.ObjectsTotal != 4 {
		t.Errorf("buffers %+v (of %d objects), want %+v", got, s.ObjectsTotal, want)
	}
	// --top keeps the largest and counts the rest.
	s, err = Read(bytes.NewReader(data), "t", Options{Top: 2})
	if err != nil || len(s.Objects) != 2 || s.Objects[1].Name != "big" || s.ObjectsTotal != 4 || !strings.Contains(s.Text(), "2 more objects") {
		t.Errorf("top 2: %v %+v", err, s)
	}
}

// Events reach the file out of time order within the window: they are
// applied in time order; one later than the window is applied and counted.
func TestReorder(t *testing.T) {
	var out []uint64
	o := newReorderer(160, func(e *event) { out = append(out, e.ts) })
	for i, ts := range []uint64{10, 30, 20, 40, 15, 50, 60, 70, 80, 90, 5, 100} {
		o.push(uint32(i%3), &event{ts: ts, n: uint64(i)}, int64(i*20))
	}
	o.flush()
	want := "[10 5 15 20 30 40 50 60 70 80 90 100]"
	if fmt.Sprint(out) != want || o.late != 1 {
		t.Errorf("order %v late %d, want %s late 1", out, o.late, want)
	}
}

// stamped is one empty TracePacket with a timestamp and a sequence id.
var stamped = func() []byte {
	var p []byte
	p = protowire.AppendTag(p, 8, protowire.VarintType)
	p = protowire.AppendVarint(p, 1)
	p = protowire.AppendTag(p, 10, protowire.VarintType)
	p = protowire.AppendVarint(p, 2)
	b := protowire.AppendTag(nil, 1, protowire.BytesType)
	return protowire.AppendBytes(b, p)
}()

func TestReadErrors(t *testing.T) {
	valid := record(t, func() { alloc(cat, "CREATE", "DEVICE_MEMORY", 1, 1, 0, 1, "x") })
	// A TraceConfig: buffers { size_kb: 1024 } (field 1, like Trace.packet),
	// and one that also sets duration_ms (field 3).
	buffers := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), []byte{0x08, 0x80, 0x08})
	withDuration := protowire.AppendVarint(protowire.AppendTag(append([]byte{}, buffers...), 3, protowire.VarintType), 1000)
	huge := protowire.AppendVarint(protowire.AppendTag(append([]byte{}, stamped...), 1, protowire.BytesType), 1<<40)
	for _, c := range []struct {
		what     string
		data     []byte
		offset   int64
		notTrace bool
		msg      string
	}{
		{"empty", nil, 0, true, "empty"},
		{"TraceConfig buffers only", buffers, 5, true, "none of its 1 packets"},
		{"TraceConfig", withDuration, 5, true, "top-level field 3"},
		{"zeros", make([]byte, 64), 0, true, "top-level field 0"},
		{"truncated", valid[:len(valid)-3], -1, false, "truncated"},
		{"huge length", huge, int64(len(stamped)), false, "exceeds"},
	} {
		_, err := Read(bytes.NewReader(c.data), "in.pftrace", Options{})
		var de *decode.Error
		if !errors.As(err, &de) || errors.Is(err, decode.ErrNotTrace) != c.notTrace || !strings.Contains(err.Error(), c.msg) ||
			!strings.HasPrefix(err.Error(), "in.pftrace: byte offset ") || (c.offset >= 0 && de.Offset != c.offset) {
			t.Errorf("%s: %v, want an error at offset %d mentioning %q (not a trace: %v)", c.what, err, c.offset, c.msg, c.notTrace)
		}
	}
	// /dev/zero is refused at its first byte rather than read forever.
	f, err := os.Open("/dev/zero")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	if _, err := Read(f, "/dev/zero", Options{}); !errors.Is(err, decode.ErrNotTrace) {
		t.Errorf("/dev/zero: %v", err)
	}
}

// A trace can come through a pipe.
func TestReadFIFO(t *testing.T) {
	data := record(t, func() { alloc(cat, "CREATE", "DEVICE_MEMORY", 1, 4096, 0, 1, "x") })
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			w.Write(data)
			w.Close()
		}
	}()
	f, err := os.Open(fifo)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := Read(f, fifo, Options{})
	if err != nil || len(s.Objects) != 1 || s.Objects[0].Bytes != 4096 {
		t.Errorf("%v %+v", err, s)
	}
}

// sampler is a stream of stamped packets that records the heap in use
// after every MiB read.
type sampler struct {
	left, next, peak uint64 // bytes
	pos              int
}

func (s *sampler) Read(p []byte) (int, error) {
	if s.left == 0 {
		return 0, io.EOF
	}
	p = p[:min(uint64(len(p)), s.left)]
	for i := 0; i < len(p); {
		c := copy(p[i:], stamped[s.pos:])
		i += c
		s.pos = (s.pos + c) % len(stamped)
	}
	s.left -= uint64(len(p))
	if s.left <= s.next {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		s.peak = max(s.peak, ms.HeapInuse)
		s.next = s.left - min(s.left, 1<<20)
	}
	return len(p), nil
}

// Reading is bounded by what is live, not by the trace: 50 MB of empty
// packets (the whole-file reader needed 14.6 GB for 100 MB).
func TestReadBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 50 MB")
	}
	runtime.GC() // the heap that earlier tests left is not this one's
	n := uint64(50<<20) / uint64(len(stamped)) * uint64(len(stamped))
	src := &sampler{left: n, next: n}
	if _, err := Read(src, "stream", Options{}); err != nil {
		t.Fatal(err)
	}
	if src.peak > 64<<20 {
		t.Errorf("heap in use reached %d MiB reading 50 MB", src.peak>>20)
	}
}

// Any input gives a summary, an error, or both for a cut or damaged
// trace; never a panic or a hang.
func FuzzRead(f *testing.F) {
	f.Add(stamped)
	f.Add(writeTraceBytes(f))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Read(bytes.NewReader(b), "fuzz", Options{Top: 3, Window: 64})
		var dmg *decode.DamageError
		if s == nil && err == nil || s != nil && err != nil && !errors.As(err, &dmg) && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("summary %v with error %v", s, err)
		}
	})
}

// A packet whose framing is damaged in the middle of a trace is skipped:
// the summary is that of the trace without it, with 1 and 3 workers, and
// the error names it.
func TestReadDamagedPacket(t *testing.T) {
	data := testStress()
	starts := packetStarts(t, data)
	i := len(starts) / 2
	at, end := starts[i], starts[i+1]
	want, err := Read(bytes.NewReader(slices.Concat(data[:at], data[end:])), "without", Options{})
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.Clone(data)
	bad[at] ^= 0x80 // the tag: 0x0a becomes 0x8a, a varint that runs on
	for _, workers := range []int{1, 3} {
		got, err := Read(bytes.NewReader(bad), "bad", Options{Workers: workers})
		var dmg *decode.DamageError
		if !errors.As(err, &dmg) || dmg.First.Offset != at || !strings.HasPrefix(err.Error(), fmt.Sprintf("bad: byte offset %d ", at)) {
			t.Errorf("%d workers: error %v, want the damage at offset %d", workers, err, at)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%d workers: the summary differs from that of the trace without the damaged packet", workers)
		}
	}
}

// writeTraceBytes is a small trace of every event kind the summary reads.
func writeTraceBytes(tb testing.TB) []byte {
	var buf bytes.Buffer
	s, err := perfetto.StartSession("fuzz", perfetto.WriterOutput(&buf), perfetto.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	alloc(cat, "CREATE", "DEVICE_MEMORY", 0x100, 4096, 0, 0x100, "unbound_memory")
	name(8, 0x100, "block")
	alloc(cat, "BIND", "BUFFER", 0x100, 256, 0, 0xb1, "geometry_mesh")
	perfetto.VkObjectName(0xd, 9, 0xb1, "raw")
	perfetto.Counter(geometry, 256)
	alloc(cat, "DESTROY", "BUFFER", 0x100, 256, 0, 0xb1, "geometry_mesh")
	if err := s.Stop(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// A corrupt trace with a new sequence per packet is refused once it passes
// decode.MaxSequences, rather than keeping state for every one.
func TestReadTooManySequences(t *testing.T) {
	var b []byte
	for i := range decode.MaxSequences + 1 {
		var p []byte
		p = protowire.AppendTag(p, 8, protowire.VarintType)
		p = protowire.AppendVarint(p, 1)
		p = protowire.AppendTag(p, 10, protowire.VarintType)
		p = protowire.AppendVarint(p, uint64(i+1))
		b = protowire.AppendBytes(protowire.AppendTag(b, 1, protowire.BytesType), p)
	}
	_, err := Read(bytes.NewReader(b), "seqs", Options{})
	var de *decode.Error
	if !errors.As(err, &de) || de.Packet != decode.MaxSequences || !strings.Contains(err.Error(), "distinct sequences") {
		t.Errorf("%v", err)
	}
}

// Packets that do not decode, on workers or in the reader, are skipped and
// counted, and the damage is reported at the first in file order, whatever
// the number of workers.
func TestReadFirstErrorInFileOrder(t *testing.T) {
	msg := func(fields ...[]byte) []byte {
		var m []byte
		for _, f := range fields {
			m = append(m, f...)
		}
		return m
	}
	varint := func(num protowire.Number, v uint64) []byte {
		return protowire.AppendVarint(protowire.AppendTag(nil, num, protowire.VarintType), v)
	}
	bytesField := func(num protowire.Number, b []byte) []byte {
		return protowire.AppendBytes(protowire.AppendTag(nil, num, protowire.BytesType), b)
	}
	packet := func(seq, flags uint64, fields ...[]byte) []byte {
		return bytesField(1, msg(append([]([]byte){varint(8, seq), varint(10, seq), varint(13, flags)}, fields...)...))
	}
	instant := func(nameIID uint64) []byte {
		return bytesField(11, msg(varint(9, decode.TypeInstant), varint(10, nameIID)))
	}
	good := packet(1, decode.SeqNeedsIncrementalState, bytesField(12, bytesField(2, msg(varint(1, 1), bytesField(2, []byte("x"))))), instant(1))
	noFlag := packet(2, 0, instant(7))                                 // an iid on a packet without SEQ_NEEDS_INCREMENTAL_STATE
	unknown := packet(1, decode.SeqNeedsIncrementalState, instant(9))  // an iid never interned
	data := msg(good, noFlag, unknown, []byte{0x0a, 0x02, 0x08, 0x80}) // then a truncated varint
	for _, workers := range []int{1, 2, 3} {
		s, err := Read(bytes.NewReader(data), "in", Options{Workers: workers})
		var de *decode.Error
		var dmg *decode.DamageError
		if !errors.As(err, &dmg) || dmg.Packets != 3 || !errors.As(err, &de) || de.Offset != int64(len(good)) || de.Packet != 1 ||
			!strings.Contains(err.Error(), "without SEQ_NEEDS_INCREMENTAL_STATE") || s == nil {
			t.Errorf("%d workers: %v, want 3 damaged packets, the first packet 1 at offset %d, and a summary", workers, err, len(good))
		}
		s, err = Read(bytes.NewReader(msg(good, unknown, noFlag)), "in", Options{Workers: workers})
		if !errors.As(err, &dmg) || dmg.Packets != 2 || !errors.As(err, &de) || de.Offset != int64(len(good)) || de.Packet != 1 ||
			!strings.Contains(err.Error(), "event name iid 9 not interned") || s == nil {
			t.Errorf("%d workers, other order: %v, want 2 damaged packets, the first packet 1 at offset %d", workers, err, len(good))
		}
	}
}

// TestReadCutTrace: a trace that ends inside a packet (still being written,
// or cut) is summarised up to that packet, exactly as the trace of the
// whole packets before it, with an error naming where it stops; cut inside
// its first packet it is only an error.
func TestReadCutTrace(t *testing.T) {
	data := testStress()
	starts := packetStarts(t, data)
	at := starts[len(starts)*2/3] // a packet well inside, past several rounds
	want, err := Read(bytes.NewReader(data[:at]), "whole", Options{})
	if err != nil || want.Events == 0 {
		t.Fatalf("the packets before the cut: %v (%d events)", err, want.Events)
	}
	for _, workers := range []int{1, 3} {
		got, err := Read(bytes.NewReader(data[:at+3]), "cut", Options{Workers: workers})
		var de *decode.Error
		if !errors.Is(err, io.ErrUnexpectedEOF) || !errors.As(err, &de) || de.Offset != at {
			t.Errorf("%d workers: error %v, want one at offset %d wrapping io.ErrUnexpectedEOF", workers, err, at)
		}
		if got == nil {
			t.Errorf("%d workers: no summary", workers)
		} else if !reflect.DeepEqual(got, want) {
			t.Errorf("%d workers: the cut trace's summary differs from the whole packets': %d events, want %d", workers, got.Events, want.Events)
		}
	}
	if s, err := Read(bytes.NewReader(data[:starts[1]-1]), "first", Options{}); s != nil || err == nil {
		t.Errorf("cut inside the first packet: summary %v, error %v; want no summary and an error", s != nil, err)
	}
}

// packetStarts is the byte offset of every packet of the trace data.
func packetStarts(t *testing.T, data []byte) []int64 {
	t.Helper()
	var starts []int64
	dr := decode.NewReader(bytes.NewReader(data), "stress")
	for {
		var raw decode.Raw
		if _, _, err := dr.NextRaw(&raw); err == io.EOF {
			return starts
		} else if err != nil {
			t.Fatal(err)
		}
		starts = append(starts, raw.Offset)
	}
}

// NoTotals leaves out the heap totals and block layouts and changes
// nothing else: what diff and check read is what summary reads.
func TestReadNoTotals(t *testing.T) {
	data := testStress()
	want, err := Read(bytes.NewReader(data), "full", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Totals) == 0 || len(want.Blocks) == 0 {
		t.Fatalf("the full summary has %d totals and %d blocks", len(want.Totals), len(want.Blocks))
	}
	for _, workers := range []int{1, 2} {
		got, err := Read(bytes.NewReader(data), "groups", Options{NoTotals: true, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Totals) != 0 || len(got.Blocks) != 0 {
			t.Errorf("%d workers: NoTotals kept %d totals and %d blocks", workers, len(got.Totals), len(got.Blocks))
		}
		got.Totals, got.Blocks = want.Totals, want.Blocks
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%d workers: NoTotals changed more than the totals and blocks", workers)
		}
	}
}
