package memreport

import (
	"io"
	"testing"

	"github.com/vkgen/vkgen/layer/memreport/accounting"
	"github.com/vkgen/vkgen/objectnames"
	"github.com/vkgen/vkgen/perfetto"
)

// benchCreateBindDestroy is the Go side of vkCreateBuffer + vkBindBufferMemory
// + vkDestroyBuffer (the three hooks' work without the cgo crossings).
func benchCreateBindDestroy(b *testing.B) {
	s := newState(traceSink{}, objectnames.New(nameSink{}))
	s.deviceCreated(dev, 1, false, []uint32{0})
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

func BenchmarkCreateBindDestroyTracingOn(b *testing.B) {
	sess, err := perfetto.StartSession("bench", perfetto.WriterOutput(io.Discard), perfetto.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer sess.Stop()
	benchCreateBindDestroy(b)
}
