package memreport

import (
	"sync/atomic"
	"testing"

	"github.com/vkgen/vkgen/layer/memreport/accounting"
	"github.com/vkgen/vkgen/perfetto"
)

// benchCreateBindDestroy is the Go side of vkCreateBuffer + vkBindBufferMemory
// + vkDestroyBuffer (the three hooks' work without the cgo crossings).
func benchCreateBindDestroy(b *testing.B) {
	s := newTraceState()
	s.deviceCreated(dev, 0, 1, false, false, props(0))
	s.memoryAllocated(dev, 0x100, 1<<20, 0, accounting.MemoryInfo{})
	query := func() uint64 { return 4096 }
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		h := uint64(0x1000 + i%64)
		s.bufferCreated(dev, h, accounting.BufferUsageVertex, 4096)
		s.bound(dev, accounting.KindBuffer, h, 0x100, 0, planeAspectNone, query)
		s.resourceDestroyed(dev, accounting.KindBuffer, h)
	}
}

func BenchmarkCreateBindDestroyTracingOff(b *testing.B) { benchCreateBindDestroy(b) }

// BenchmarkCreateBindDestroyTracingOn also reports the trace bytes written
// per iteration (trace-B/op: the instants, counters and lifetime slices of
// one buffer's bind and destroy).
func BenchmarkCreateBindDestroyTracingOn(b *testing.B) {
	var w countingWriter
	sess, err := perfetto.StartSession("bench", perfetto.WriterOutput(&w), perfetto.Options{})
	if err != nil {
		b.Fatal(err)
	}
	benchCreateBindDestroy(b)
	if err := sess.Stop(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(w.n.Load())/float64(b.N), "trace-B/op")
}

type countingWriter struct{ n atomic.Int64 }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n.Add(int64(len(p)))
	return len(p), nil
}
