package objectnames

import (
	"runtime"
	"strings"
	"sync"
	"testing"

	gen "github.com/vkgen/vkgen/generated"
)

// discard is a live emitter that does nothing, so the benchmarks measure the
// store and not a trace writer.
type discard struct{}

func (discard) EmitName(Record) {}

const batch = 1 << 16 // names per store refill in benchmarks that consume names

// namer is what the naming benchmarks drive: the store, or the baseline.
type namer interface {
	SetName(dev uint64, t gen.ObjectType, h uint64, name string) error
	Reset()
}

// referenceStore is the baseline measured in the same run: the C++
// reference's design in Go (one mutex, one map keyed by type and handle,
// every call stores a copy of the name and emits under the lock).
type referenceStore struct {
	mu   sync.Mutex
	m    map[key]string
	emit Emitter
}

func newReferenceStore() *referenceStore {
	return &referenceStore{m: map[key]string{}, emit: discard{}}
}

func (r *referenceStore) SetName(dev uint64, t gen.ObjectType, h uint64, name string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := strings.Clone(name)
	r.m[key{handle: h, typ: int64(t)}] = n
	r.emit.EmitName(Record{Device: dev, Type: t, Handle: h, Name: n})
	return nil
}

func (r *referenceStore) Reset() {
	r.mu.Lock()
	r.m = map[key]string{}
	r.mu.Unlock()
}

// benchBoth runs body against the store and against the baseline.
func benchBoth(b *testing.B, body func(b *testing.B, s namer)) {
	b.Run("store", func(b *testing.B) { body(b, New(discard{})) })
	b.Run("baseline", func(b *testing.B) { body(b, newReferenceStore()) })
}

func BenchmarkSetNameNew(b *testing.B) {
	benchBoth(b, func(b *testing.B, s namer) {
		h := uint64(0)
		for b.Loop() {
			if h++; h%batch == 0 {
				b.StopTimer()
				s.Reset()
				b.StartTimer()
			}
			_ = s.SetName(1, gen.ObjectTypeBuffer, h, "vertex buffer")
		}
	})
}

func BenchmarkSetNameChanged(b *testing.B) {
	benchBoth(b, func(b *testing.B, s namer) {
		names := [2]string{"frame 0 target", "frame 1 target"}
		i := 0
		for b.Loop() {
			i++
			_ = s.SetName(1, gen.ObjectTypeImage, 0x1000, names[i&1])
		}
	})
}

func BenchmarkSetNameUnchanged(b *testing.B) {
	benchBoth(b, func(b *testing.B, s namer) {
		_ = s.SetName(1, gen.ObjectTypeImage, 0x1000, "frame target")
		for b.Loop() {
			_ = s.SetName(1, gen.ObjectTypeImage, 0x1000, "frame target")
		}
	})
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
