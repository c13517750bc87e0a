package tracesummary

import (
	"bytes"
	"fmt"
	"sync"
	"testing"

	"github.com/vkgen/vkgen/perfetto"
)

// stressTrace records what the 8-thread stress workload writes (testdata/vkstress
// through the layer): goroutines that each create memory, bind a named
// buffer to it, update the counters and destroy both, handles reused at once.
var stressTrace = sync.OnceValue(func() []byte {
	var buf bytes.Buffer
	s, err := perfetto.StartSession("bench", perfetto.WriterOutput(&buf), perfetto.Options{})
	if err != nil {
		panic(err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			mem, buffer := uint64(0x1000+g), uint64(0x2000+g)
			for i := range 12000 {
				size := uint64(4096 << (i % 8))
				alloc(cat, "CREATE", "DEVICE_MEMORY", mem, size, 0, mem, "unbound_memory")
				perfetto.Counter(unbound, int64(size))
				name(9, buffer, fmt.Sprintf("buffer %d.%d", g, i))
				alloc(cat, "BIND", "BUFFER", mem, size, 0, buffer, "geometry_mesh")
				perfetto.Counter(geometry, int64(size))
				alloc(cat, "DESTROY", "BUFFER", mem, size, 0, buffer, "geometry_mesh")
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
})

// BenchmarkRead reads stressTrace with a window far smaller than it, as on
// a trace of gigabytes, so decoding and summarising overlap as they do
// there.
func BenchmarkRead(b *testing.B) {
	data := stressTrace()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Read(bytes.NewReader(data), "bench", Options{Top: 100, Window: 1 << 20}); err != nil {
			b.Fatal(err)
		}
	}
}
