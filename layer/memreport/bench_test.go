package memreport

import (
	"strconv"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/vkgen/vkgen/generated"
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
		s.bufferCreated(dev, h, accounting.BufferUsageVertex, 4096, 0)
		s.bound(dev, accounting.KindBuffer, h, 0x100, 0, planeAspectNone, query)
		s.resourceDestroyed(dev, accounting.KindBuffer, h)
	}
}

func BenchmarkCreateBindDestroyTracingOff(b *testing.B) { benchCreateBindDestroy(b) }

// BenchmarkCreateBindDestroyTracingOn also reports the trace bytes written
// per iteration (trace-B/op: the instants, counters and lifetime slices of
// one buffer's bind and destroy).
func BenchmarkCreateBindDestroyTracingOn(b *testing.B) { traced(b, benchCreateBindDestroy) }

// traced runs body inside a session writing to a counter of the trace
// bytes, reported per iteration.
func traced(b *testing.B, body func(*testing.B)) {
	var w countingWriter
	sess, err := perfetto.StartSession("bench", perfetto.WriterOutput(&w), perfetto.Options{})
	if err != nil {
		b.Fatal(err)
	}
	body(b)
	if err := sess.Stop(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(w.n.Load())/float64(b.N), "trace-B/op")
}

// benchLoop is the Go side of one iteration of vkloop's loop mode
// (bench/layers/peer.sh): create a buffer, name and rename it, allocate,
// bind, name the memory, destroy, free: this layer's hooks and the
// framework's name records (each name set once into the shared store, from
// a reused buffer as the records view the application's strings, and the
// ended objects' names forgotten).
func benchLoop(b *testing.B) {
	s := newTraceState()
	s.deviceCreated(dev, 0, 1, false, false, props(0))
	query := func() uint64 { return 4096 }
	var buf [32]byte
	name := func(t generated.ObjectType, h uint64, prefix string, i int) {
		n := strconv.AppendInt(append(buf[:0], prefix...), int64(i), 10)
		v := unsafe.String(&n[0], len(n))
		_ = s.names.SetName(uint64(dev), t, h, v) // the framework's naming record, once per chain
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		h, m := uint64(0x1000+i%64), uint64(0x100+i%64)
		s.bufferCreated(dev, h, accounting.BufferUsageVertex, 4096, 0)
		name(generated.ObjectTypeBuffer, h, "buf", i)
		name(generated.ObjectTypeBuffer, h, "renamed", i)
		s.memoryAllocated(dev, m, 4096, 0, accounting.MemoryInfo{})
		s.bound(dev, accounting.KindBuffer, h, m, 0, planeAspectNone, query)
		name(generated.ObjectTypeDeviceMemory, m, "mem", i)
		s.names.ObjectDestroyed(uint64(dev), generated.ObjectTypeBuffer, h) // the framework's forget records
		s.resourceDestroyed(dev, accounting.KindBuffer, h)
		s.names.ObjectDestroyed(uint64(dev), generated.ObjectTypeDeviceMemory, m)
		s.memoryFreed(dev, m)
	}
}

func BenchmarkLoopTracingOff(b *testing.B) { benchLoop(b) }

func BenchmarkLoopTracingOn(b *testing.B) { traced(b, benchLoop) }

type countingWriter struct{ n atomic.Int64 }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n.Add(int64(len(p)))
	return len(p), nil
}
