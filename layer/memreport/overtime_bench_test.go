package memreport

import (
	"io"
	"strconv"
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
// (what frameprog's suballoc mode does per buffer) and one present: b.N
// frames.
func benchFrames(b *testing.B, perFrame int) {
	s := newOverTimeState()
	playFrames(b, s, perFrame, s.ot.present)
}

// playFrames runs b.N frames of perFrame buffers on s, each ended by end.
func playFrames(b *testing.B, s *state, perFrame int, end func()) {
	s.deviceCreated(dev, 0, 1, false, false, props(0))
	s.memoryAllocated(dev, 0x100, 1<<30, 0, accounting.MemoryInfo{})
	query := func() uint64 { return 4096 }
	b.ReportAllocs()
	for b.Loop() {
		for i := range perFrame {
			h := uint64(0x1000 + i)
			s.bufferCreated(dev, h, accounting.BufferUsageVertex, 4096, 0)
			s.bound(dev, accounting.KindBuffer, h, 0x100, uint64(i)*4096, planeAspectNone, query)
			s.resourceDestroyed(dev, accounting.KindBuffer, h)
		}
		end()
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
	playFrames(b, newTraceState(), perFrame, func() {})
}

func BenchmarkFrame10000NoOverTimeTracingOff(b *testing.B) { benchFramesNoOverTime(b, 10000) }
func BenchmarkFrame10000NoOverTimeTracingOn(b *testing.B) {
	traced(b, func(b *testing.B) { benchFramesNoOverTime(b, 10000) })
}

// A present traced: the frame counter's value.
func BenchmarkFramePresentOnlyTracingOn(b *testing.B) {
	traced(b, func(b *testing.B) { benchFrames(b, 0) })
}

// BenchmarkObserve is the tracker's own work per event (what the layer adds
// to each allocation, bind, free or unbind event of the engine): a buffer
// bound and destroyed per two operations, a present every 10,000 buffers.
func BenchmarkObserve(b *testing.B) {
	o := newOverTime(traceSink{})
	o.log = io.Discard
	var mark uint64
	bind := accounting.AllocationEvent{Operation: accounting.OpBind, Source: accounting.SourceBuffer, Device: 1, MemoryObjectID: 0x100,
		ObjectHandle: 0x1000, Size: 4096, Cluster: accounting.ClusterGeometryMesh, Mark: &mark}
	destroy := bind
	destroy.Operation = accounting.OpDestroy
	o.present()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if i&1 == 0 {
			o.observe(&bind)
			continue
		}
		o.observe(&destroy)
		if i%20000 == 1 {
			o.present()
		}
	}
}

// BenchmarkFramePresent100Groups is a present with 100 named groups of
// live objects to sample.
func BenchmarkFramePresent100Groups(b *testing.B) {
	o := newOverTime(traceSink{})
	o.log = io.Discard
	o.name = func(_ liveKey, h uint64) string { return "group." + strconv.FormatUint(h, 10) }
	marks := make([]uint64, 100)
	for i := range marks {
		o.observe(&accounting.AllocationEvent{Operation: accounting.OpCreate, Source: accounting.SourceDeviceMemory, Device: 1,
			MemoryObjectID: uint64(i + 1), ObjectHandle: uint64(i + 1), Size: 1 << 20, Cluster: accounting.ClusterUnbound, Mark: &marks[i]})
	}
	for range settleFrames {
		o.present()
	}
	b.ReportAllocs()
	for b.Loop() {
		o.present()
	}
}
