package tracesummary

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"sync"
	"testing"

	"github.com/vkgen/vkgen/perfetto"
	"github.com/vkgen/vkgen/perfetto/decode"
)

// stressTrace records what the 8-thread stress workload writes (testdata/vkstress
// through the layer): goroutines that each create memory, bind a named
// buffer to it, update the counters and destroy both, handles reused at once;
// the buffer's lifetime is a slice on a track of its own. Each goroutine
// does iterations rounds; the session's per-sequence buffers hold
// bufferBytes (0: the default).
func stressTrace(iterations, bufferBytes int) []byte {
	var buf bytes.Buffer
	s, err := perfetto.StartSession("bench", perfetto.WriterOutput(&buf), perfetto.Options{BufferBytes: bufferBytes})
	if err != nil {
		panic(err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			mem, buffer := uint64(0x1000+g), uint64(0x2000+g)
			for i := range iterations {
				size := uint64(4096 << (i % 8))
				alloc(cat, "CREATE", "DEVICE_MEMORY", mem, size, 0, mem, "unbound_memory")
				perfetto.Counter(unbound, int64(size))
				name(9, buffer, fmt.Sprintf("buffer %d.%d", g, i))
				alloc(cat, "BIND", "BUFFER", mem, size, 0, buffer, "geometry_mesh")
				track := uint64(g)<<32 | uint64(i) + 1
				perfetto.Slices(cat, perfetto.Slice{Op: perfetto.SliceBegin, Track: track, TrackName: "buffer", NameHandle: buffer})
				perfetto.Counter(geometry, int64(size))
				alloc(cat, "DESTROY", "BUFFER", mem, size, 0, buffer, "geometry_mesh")
				perfetto.Slices(cat, perfetto.Slice{Op: perfetto.SliceEnd, Track: track})
				perfetto.Counter(geometry, 0)
				alloc(cat, "DESTROY", "DEVICE_MEMORY", mem, size, 0, mem, "unbound_memory")
				perfetto.Counter(unbound, 0)
			}
		})
	}
	wg.Wait()
	if err := s.Stop(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// testStress is the stress trace the tests read, recorded once per test
// binary: a quarter of the benchmark's rounds into buffers a quarter the
// default size, so the writer still drops some events under load. Its 3
// to 5 MB are 12 to 20 of Read's rounds (roundBytes): every worker gets
// several and rounds are reused. Each test recording the benchmark's 12.5
// MB made them 4 times dearer under the race detector.
var testStress = sync.OnceValue(func() []byte { return stressTrace(1000, perfetto.DefaultBufferBytes/4) })

// BenchmarkRead reads stressTrace whole within the default window, so it
// times decoding and summarising one after the other (on a trace of
// gigabytes they overlap). $VKGEN_BENCH_TRACE names a trace file to read
// instead: generated traces differ from run to run, so binaries of two
// commits compare on a file.
func BenchmarkRead(b *testing.B) {
	var d []byte
	if name := os.Getenv("VKGEN_BENCH_TRACE"); name != "" {
		var err error
		if d, err = os.ReadFile(name); err != nil {
			b.Fatal(err)
		}
	} else {
		d = stressTrace(4000, 0)
	}
	b.SetBytes(int64(len(d)))
	for b.Loop() {
		if _, err := Read(bytes.NewReader(d), "bench", Options{Top: 100, Blocks: 20}); err != nil { // vkgen trace summary's defaults
			b.Fatal(err)
		}
	}
}

// Streaming through the reordering window, with any number of decoding
// workers, gives exactly the summary of the whole trace decoded in memory.
func TestReadMatchesSummarize(t *testing.T) {
	data := testStress()
	tr, err := decode.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	want := Summarize(tr)
	if want.ObjectsTotal == 0 || want.Events == 0 { // the writer drops some under load, not all
		t.Fatalf("Summarize: %d objects, %d events", want.ObjectsTotal, want.Events)
	}
	for _, workers := range []int{1, 2, 3, 8} {
		got, err := Read(bytes.NewReader(data), "stress", Options{Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Read with %d workers: %d objects, %d events, %d late; Summarize: %d objects, %d events", workers, got.ObjectsTotal, got.Events, got.LateEvents, want.ObjectsTotal, want.Events)
		}
	}
}
