package accounting

import (
	"fmt"
	"testing"
)

type discard struct{}

func (discard) Counter(string, int64)      {}
func (discard) Allocation(AllocationEvent) {}

// BenchmarkCreateBindDestroyBuffer measures the engine work behind
// vkCreateBuffer (+ requirements) + vkBindBufferMemory + vkDestroyBuffer,
// with tracing off (nil sink) and on (a sink that drops events), into an
// allocation that already holds `live` other buffers: beside them, as a
// sub-allocator places buffers, or (alias) over them.
func BenchmarkCreateBindDestroyBuffer(b *testing.B) {
	for _, sink := range []struct {
		name string
		s    Sink
	}{{"tracing-off", nil}, {"tracing-on", discard{}}} {
		for _, c := range []struct {
			live  int
			alias bool
		}{{0, false}, {1000, false}, {100000, false}, {1000, true}} {
			live, at := c.live, uint64(c.live)*256
			name := fmt.Sprintf("%s/live=%d", sink.name, live)
			if c.alias {
				name, at = name+"/alias", 0
			}
			b.Run(name, func(b *testing.B) {
				e := New(sink.s)
				e.DeviceCreated(1, testProps, false)
				e.MemoryAllocated(1, 0x40, 1<<30, 1)
				for i := range live {
					h := uint64(1<<40 + i)
					e.BufferCreated(1, h, BufferUsageStorage, 256)
					e.Bound(1, KindBuffer, h, 0x40, uint64(i)*256)
				}
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					h := uint64(0x1000 + i)
					e.BufferCreated(1, h, BufferUsageVertex, 256)
					e.RequirementsKnown(1, KindBuffer, h, 256)
					e.Bound(1, KindBuffer, h, 0x40, at+uint64(i%1024)*256)
					e.ResourceDestroyed(1, KindBuffer, h)
				}
			})
		}
	}
}

// BenchmarkBlockChurn measures a sub-allocator's steady state: a block
// holding `live` buffers side by side, each iteration destroying the oldest
// and binding a new one in its place (tracing off).
func BenchmarkBlockChurn(b *testing.B) {
	for _, live := range []int{1000, 100000} {
		b.Run(fmt.Sprintf("live=%d", live), func(b *testing.B) {
			e := New(nil)
			e.DeviceCreated(1, testProps, false)
			e.MemoryAllocated(1, 0x40, uint64(live)*256, 1)
			for i := range live {
				e.BufferCreated(1, uint64(1<<40+i), BufferUsageStorage, 256)
				e.Bound(1, KindBuffer, uint64(1<<40+i), 0x40, uint64(i)*256)
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				k := i % live
				e.ResourceDestroyed(1, KindBuffer, uint64(1<<40+k))
				e.BufferCreated(1, uint64(1<<40+k), BufferUsageStorage, 256)
				e.Bound(1, KindBuffer, uint64(1<<40+k), 0x40, uint64(k)*256)
			}
		})
	}
}

// BenchmarkSparsePages measures binding a sparse buffer's pages one by one
// into one allocation (a virtual texture's residency): the whole set per
// iteration, tracing off.
func BenchmarkSparsePages(b *testing.B) {
	for _, pages := range []uint64{100, 10000} {
		b.Run(fmt.Sprintf("pages=%d", pages), func(b *testing.B) {
			for b.Loop() {
				e := New(nil)
				e.DeviceCreated(1, testProps, false)
				e.BufferCreated(1, 0xB, BufferUsageStorage, pages<<16)
				e.MemoryAllocated(1, 0x40, pages<<16, 0)
				for p := range pages {
					e.SparseBound(1, KindBuffer, 0xB, p<<16, 1<<16, 0x40, p<<16)
				}
			}
		})
	}
}

// BenchmarkCallbackAllocateFree measures a driver allocation and free
// through the device-memory-report callback, tracing on.
func BenchmarkCallbackAllocateFree(b *testing.B) {
	e := New(discard{})
	e.DeviceCreated(1, testProps, true)
	b.ReportAllocs()
	for i := uint64(0); b.Loop(); i++ {
		e.Callback(1, CallbackEvent{Type: CallbackAllocate, MemoryObjectID: i, Size: 4096, Internal: true})
		e.Callback(1, CallbackEvent{Type: CallbackFree, MemoryObjectID: i, Internal: true})
	}
}
