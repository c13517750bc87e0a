package objectnames

import (
	"runtime"
	"testing"

	gen "github.com/vkgen/vkgen/generated"
)

// discard is a live emitter that does nothing, so the benchmarks measure the
// store and not a trace writer.
type discard struct{}

func (discard) EmitName(Record) {}

const batch = 1 << 16 // names per store refill in benchmarks that consume names

func BenchmarkSetNameNew(b *testing.B) {
	s := New(discard{})
	h := uint64(0)
	for b.Loop() {
		if h++; h%batch == 0 {
			b.StopTimer()
			s.Reset()
			b.StartTimer()
		}
		_ = s.SetName(1, gen.ObjectTypeBuffer, h, "vertex buffer")
	}
}

func BenchmarkSetNameChanged(b *testing.B) {
	s := New(discard{})
	names := [2]string{"frame 0 target", "frame 1 target"}
	i := 0
	for b.Loop() {
		i++
		_ = s.SetName(1, gen.ObjectTypeImage, 0x1000, names[i&1])
	}
}

func BenchmarkSetNameUnchanged(b *testing.B) {
	s := New(discard{})
	_ = s.SetName(1, gen.ObjectTypeImage, 0x1000, "frame target")
	for b.Loop() {
		_ = s.SetName(1, gen.ObjectTypeImage, 0x1000, "frame target")
	}
}

// The path a cgo layer takes: the name is a view of C memory.
func BenchmarkSetNameBytesUnchanged(b *testing.B) {
	s := New(discard{})
	name := []byte("frame target")
	_ = s.SetNameBytes(1, gen.ObjectTypeImage, 0x1000, name)
	for b.Loop() {
		_ = s.SetNameBytes(1, gen.ObjectTypeImage, 0x1000, name)
	}
}

func BenchmarkRemoveName(b *testing.B) {
	s := New(discard{})
	h := uint64(0)
	for b.Loop() {
		if h%batch == 0 {
			b.StopTimer()
			for i := h + 1; i <= h+batch; i++ {
				_ = s.SetName(1, gen.ObjectTypeBuffer, i, "vertex buffer")
			}
			b.StartTimer()
		}
		h++
		_ = s.SetName(1, gen.ObjectTypeBuffer, h, "")
	}
}

func BenchmarkEmitAll100k(b *testing.B) {
	s := New(nil)
	for h := uint64(1); h <= 100_000; h++ {
		_ = s.SetName(1+h%4, gen.ObjectType(9+h%3), h, "vertex buffer")
	}
	for b.Loop() {
		if n := s.EmitAll(discard{}); n != 100_000 {
			b.Fatalf("EmitAll emitted %d", n)
		}
	}
}

// BenchmarkMemoryPerName reports the heap bytes one stored name costs beyond
// the name's own bytes (map slot, key, device, string header, allocator
// rounding), measured over 100,000 inserts.
func BenchmarkMemoryPerName(b *testing.B) {
	const n = 100_000
	name := []byte("buffer #00000") // 13 bytes, distinct per object
	var perName float64
	for b.Loop() {
		before := heapInUse()
		s := New(nil)
		for i := range n {
			for j, d := 0, i; j < 5; j, d = j+1, d/10 {
				name[len(name)-1-j] = byte('0' + d%10)
			}
			_ = s.SetNameBytes(1, gen.ObjectTypeBuffer, uint64(i+1), name)
		}
		after := heapInUse()
		runtime.KeepAlive(s)
		perName = float64(after-before)/n - float64(len(name))
	}
	b.ReportMetric(perName, "B/name")
}
