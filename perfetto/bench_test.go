package perfetto_test

import (
	"sync/atomic"
	"testing"

	"github.com/vkgen/vkgen/perfetto"
)

// countOutput discards packets and counts their bytes.
type countOutput struct{ n atomic.Int64 }

func (o *countOutput) Write(_ uint32, b []byte) error { o.n.Add(int64(len(b))); return nil }
func (o *countOutput) Close() error                   { return nil }

func benchSession(b *testing.B) (*perfetto.Session, *countOutput) {
	out := &countOutput{}
	s, err := perfetto.StartSession("bench", out, perfetto.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return s, out
}

func report(b *testing.B, s *perfetto.Session, out *countOutput) {
	b.StopTimer()
	if err := s.Stop(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(out.n.Load())/float64(b.N), "B/event")
	b.ReportMetric(float64(s.Dropped()), "dropped")
}

func emit3(i uint64) {
	perfetto.Instant(catTest, evCreate, perfetto.Uint(anHandle, 0x7f00_1234_0000+i), perfetto.Int(anSize, 65536), perfetto.Bool(anHostVis, true))
}

// benchSerial times emit, called b.N times from one goroutine into a
// running session, and reports bytes per event and drops.
func benchSerial(b *testing.B, emit func(i uint64)) {
	s, out := benchSession(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		emit(uint64(i))
	}
	report(b, s, out)
}

// BenchmarkInstant3Args: one goroutine, instant event with uint, int and bool
// annotations (the SDK reference event plus one annotation).
func BenchmarkInstant3Args(b *testing.B) { benchSerial(b, emit3) }

// BenchmarkInstant3ArgsParallel: the same from 4 goroutines.
func BenchmarkInstant3ArgsParallel(b *testing.B) {
	s, out := benchSession(b)
	b.ReportAllocs()
	b.SetParallelism(max(1, 4/runtimeProcs()))
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		var i uint64
		for pb.Next() {
			i++
			emit3(i)
		}
	})
	report(b, s, out)
}

// BenchmarkInstantString3Args: uint, int and a 12-byte string annotation.
func BenchmarkInstantString3Args(b *testing.B) {
	benchSerial(b, func(i uint64) {
		perfetto.Instant(catTest, evCreate, perfetto.Uint(anHandle, i), perfetto.Int(anSize, 65536), perfetto.String(anName, "vertexBuffer"))
	})
}

func BenchmarkCounter(b *testing.B) {
	benchSerial(b, func(i uint64) { perfetto.Counter(ctrAppMem, int64(i)*4096) })
}

func BenchmarkVkObjectName(b *testing.B) {
	benchSerial(b, func(i uint64) { perfetto.VkObjectName(0x5555_0000, 9, i, "vertexBuffer") })
}

func BenchmarkInstantNoSession(b *testing.B) {
	b.ReportAllocs()
	for i := range b.N {
		emit3(uint64(i))
	}
}

// TestHotPathDoesNotAllocate checks 0 allocations per emit once buffers
// have grown, with and without a running session.
func TestHotPathDoesNotAllocate(t *testing.T) {
	if a := testing.AllocsPerRun(1000, func() { emit3(1) }); a != 0 {
		t.Errorf("no session: %v allocs per event", a)
	}
	out := &countOutput{}
	s, err := perfetto.StartSession("allocs", out, perfetto.Options{Sequences: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	for i := range 100000 { // grow both buffers of the sequence to their limit
		emit3(uint64(i))
	}
	s.Flush()
	for name, f := range map[string]func(){
		"instant":    func() { emit3(7) },
		"string arg": func() { perfetto.Instant(catTest, evName, perfetto.String(anName, "vertexBuffer")) },
		"counter":    func() { perfetto.Counter(ctrAppMem, 42) },
		"objectname": func() { perfetto.VkObjectName(1, 9, 2, "vertexBuffer") },
	} {
		if a := testing.AllocsPerRun(10000, f); a != 0 {
			t.Errorf("%s: %v allocs per event", name, a)
		}
	}
}
