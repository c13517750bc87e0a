package memreport

import (
	"io"
	"testing"

	"github.com/vkgen/vkgen/layer/memreport/accounting"
	"github.com/vkgen/vkgen/objectnames"
)

// newOverTimeState is newTraceState with memory over time tracked, as the
// layer runs.
func newOverTimeState() *state {
	lt := newLifetimes()
	o := newOverTime(traceSink{})
	s := newState(traceSink{lt: lt, ot: o}, objectnames.New(nameSink{lt: lt}), lt)
	s.ot, o.name, o.mu, o.log = o, s.objectName, s.engine.Locker(), io.Discard
	return s
}

// benchFrames plays frames of perFrame buffers created, bound and destroyed
// (what frameprog's steady mode does per buffer, without its memory) and
// one present: b.N frames. Compare BenchmarkCreateBindDestroy* (same run)
// for the cost per buffer without frames.
func benchFrames(b *testing.B, perFrame int) {
	s := newOverTimeState()
	s.deviceCreated(dev, 0, 1, false, false, props(0))
	s.memoryAllocated(dev, 0x100, 1<<30, 0, accounting.MemoryInfo{})
	query := func() uint64 { return 4096 }
	b.ReportAllocs()
	for b.Loop() {
		for i := range perFrame {
			h := uint64(0x1000 + i)
			s.bufferCreated(dev, h, accounting.BufferUsageVertex, 4096)
			s.bound(dev, accounting.KindBuffer, h, 0x100, uint64(i)*4096, planeAspectNone, query)
			s.resourceDestroyed(dev, accounting.KindBuffer, h)
		}
		s.ot.present()
	}
}

// A present with no memory work: vkcube's frames.
func BenchmarkFramePresentOnly(b *testing.B) { benchFrames(b, 0) }

// 10,000 buffers a frame, traced and not.
func BenchmarkFrame10000TracingOff(b *testing.B) { benchFrames(b, 10000) }
func BenchmarkFrame10000TracingOn(b *testing.B) {
	traced(b, func(b *testing.B) { benchFrames(b, 10000) })
}

// benchFramesNoOverTime is benchFrames without the tracker (the layer
// before memory over time): the same run's baseline of the per-buffer cost.
func benchFramesNoOverTime(b *testing.B, perFrame int) {
	s := newTraceState()
	s.deviceCreated(dev, 0, 1, false, false, props(0))
	s.memoryAllocated(dev, 0x100, 1<<30, 0, accounting.MemoryInfo{})
	query := func() uint64 { return 4096 }
	b.ReportAllocs()
	for b.Loop() {
		for i := range perFrame {
			h := uint64(0x1000 + i)
			s.bufferCreated(dev, h, accounting.BufferUsageVertex, 4096)
			s.bound(dev, accounting.KindBuffer, h, 0x100, uint64(i)*4096, planeAspectNone, query)
			s.resourceDestroyed(dev, accounting.KindBuffer, h)
		}
	}
}

func BenchmarkFrame10000NoOverTimeTracingOff(b *testing.B) { benchFramesNoOverTime(b, 10000) }
func BenchmarkFrame10000NoOverTimeTracingOn(b *testing.B) {
	traced(b, func(b *testing.B) { benchFramesNoOverTime(b, 10000) })
}

// A present traced: the frame counter's value.
func BenchmarkFramePresentOnlyTracingOn(b *testing.B) {
	traced(b, func(b *testing.B) { benchFrames(b, 0) })
}
