package accounting

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"strings"
	"testing"
)

// balance replays the event stream: live sub-allocations and allocations as
// the trace consumer would reconstruct them.
type balance struct {
	recorder
	live map[string]int
}

func newBalance() *balance {
	return &balance{recorder: recorder{last: make(map[string]int64)}, live: make(map[string]int)}
}

// liveKey identifies a binding or allocation. A range bind is identified
// without its size: a BIND of a bound range is its new size.
func liveKey(ev AllocationEvent) string {
	switch {
	case ev.Range || ev.Key >= regionKeys:
		return fmt.Sprintf("%s dev=%d mem=%#x obj=%#x off=%d %s key=%d",
			ev.Source, ev.Device, ev.MemoryObjectID, ev.ObjectHandle, ev.Offset, ev.MemoryType, ev.Key)
	case ev.Source == SourceBuffer || ev.Source == SourceImage || ev.Source == SourceVideoSession:
		return fmt.Sprintf("%s dev=%d mem=%#x obj=%#x off=%d size=%d %s sc=%#x",
			ev.Source, ev.Device, ev.MemoryObjectID, ev.ObjectHandle, ev.Offset, ev.Size, ev.MemoryType, ev.Swapchain)
	}
	return fmt.Sprintf("%s dev=%d mem=%#x size=%d", ev.Source, ev.Device, ev.MemoryObjectID, ev.Size)
}

func (b *balance) Allocation(ev AllocationEvent) {
	b.recorder.Allocation(ev)
	k := liveKey(ev)
	switch {
	case ev.Operation == OpDestroy:
		b.live[k]--
	case (ev.Range || ev.Key >= regionKeys) && b.live[k] > 0: // resized
	default:
		b.live[k]++
	}
	if b.live[k] == 0 {
		delete(b.live, k)
	}
}

type propWorld struct {
	t        *testing.T
	rng      *rand.Rand
	e        *Engine
	b        *balance
	next     uint64
	res      map[[2]uint64]ResourceKind // (dev, handle) -> kind
	disjoint map[[2]uint64]bool
	mems     map[[2]uint64]bool // (dev, handle) of every memory handle used
	drivers  map[[2]uint64]bool // (dev, memoryObjectId) of live driver allocations
	chains   map[[2]uint64]bool // (dev, swapchain)
}

var (
	propBufferUsages = []uint64{0, BufferUsageTransferSrc, BufferUsageVertex | BufferUsageTransferDst,
		BufferUsageUniform, BufferUsageStorage, BufferUsageIndirect, BufferUsageASStorage, BufferUsageTransformFeedback}
	propImageUsages = []uint32{0, ImageUsageSampled, ImageUsageColorAttachment | ImageUsageSampled,
		ImageUsageDepthStencilAttachment, ImageUsageStorage, ImageUsageTransientAttachment}
)

func (w *propWorld) fresh() uint64 { w.next += 0x10; return w.next }

func (w *propWorld) pickResource(dev uint64) (uint64, ResourceKind, bool) {
	for k, kind := range w.res { // map order is random enough; rng decides the skip
		if k[0] == dev && w.rng.IntN(3) == 0 {
			return k[1], kind, true
		}
	}
	return 0, 0, false
}

func (w *propWorld) pickMemory(dev uint64) uint64 {
	for k := range w.mems {
		if k[0] == dev && w.rng.IntN(2) == 0 {
			return k[1]
		}
	}
	return w.fresh() // memory the engine never heard of
}

// step performs one random operation on device 1 (fallback) or 2 (callback).
func (w *propWorld) step() {
	dev := uint64(1 + w.rng.IntN(2))
	e, rng := w.e, w.rng
	switch op := rng.IntN(17); op {
	case 0, 1: // buffer
		h := w.fresh()
		e.BufferCreated(dev, h, propBufferUsages[rng.IntN(len(propBufferUsages))], uint64(rng.IntN(1024)))
		w.res[[2]uint64{dev, h}] = KindBuffer
	case 2: // image
		h := w.fresh()
		if rng.IntN(4) == 0 {
			e.ImageCreated(dev, h, propImageUsages[rng.IntN(len(propImageUsages))], ImageCreateDisjoint)
			e.PlaneRequirementsKnown(dev, h, 0x10, uint64(1+rng.IntN(512)))
			e.PlaneRequirementsKnown(dev, h, 0x20, uint64(1+rng.IntN(512)))
			w.disjoint[[2]uint64{dev, h}] = true
		} else {
			e.ImageCreated(dev, h, propImageUsages[rng.IntN(len(propImageUsages))], 0)
			e.RequirementsKnown(dev, KindImage, h, uint64(1+rng.IntN(1024)))
		}
		w.res[[2]uint64{dev, h}] = KindImage
	case 3, 4: // memory
		h, size, typ := w.fresh(), uint64(1+rng.IntN(4096)), uint32(rng.IntN(4))
		if dev == 2 && rng.IntN(5) != 0 { // sometimes the callback never reports it
			e.Callback(dev, appAlloc(CallbackAllocate, h, size))
		}
		e.MemoryAllocated(dev, h, size, typ)
		w.mems[[2]uint64{dev, h}] = true
	case 5: // driver allocation, maybe for a resource (known or not yet created)
		id := w.fresh()
		ev := CallbackEvent{Type: CallbackAllocate, MemoryObjectID: id, Size: uint64(1 + rng.IntN(2048)), Internal: true}
		if h, kind, ok := w.pickResource(dev); ok {
			ev.ObjectType, ev.ObjectHandle = ObjectTypeBuffer, h
			if kind == KindImage {
				ev.ObjectType = ObjectTypeImage
			}
		}
		e.Callback(dev, ev)
		w.drivers[[2]uint64{dev, id}] = true
	case 6, 7, 8: // bind
		h, kind, ok := w.pickResource(dev)
		if !ok {
			return
		}
		mem := w.pickMemory(dev)
		if rng.IntN(10) == 0 {
			mem = 0
		}
		if mem != 0 {
			w.mems[[2]uint64{dev, mem}] = true
		}
		off := uint64(rng.IntN(4096))
		if w.disjoint[[2]uint64{dev, h}] {
			e.PlaneBound(dev, h, []uint32{0x10, 0x20}[rng.IntN(2)], mem, off)
		} else {
			e.Bound(dev, kind, h, mem, off)
		}
	case 9: // free memory
		for k := range w.mems {
			if k[0] == dev {
				w.free(k)
				break
			}
		}
	case 10: // destroy a resource or change its size
		if h, kind, ok := w.pickResource(dev); ok {
			if rng.IntN(4) == 0 && !w.disjoint[[2]uint64{dev, h}] {
				e.RequirementsKnown(dev, kind, h, uint64(rng.IntN(1024)))
				return
			}
			e.ResourceDestroyed(dev, kind, h)
			delete(w.res, [2]uint64{dev, h})
			delete(w.disjoint, [2]uint64{dev, h})
		}
	case 11: // driver free
		for k := range w.drivers {
			if k[0] == dev {
				e.Callback(dev, CallbackEvent{Type: CallbackFree, MemoryObjectID: k[1], Internal: true})
				delete(w.drivers, k)
				break
			}
		}
	case 12: // sparse range or image region bind (memory 0 unbinds)
		h, kind, ok := w.pickResource(dev)
		if !ok {
			return
		}
		mem := w.pickMemory(dev)
		if rng.IntN(4) == 0 {
			mem = 0
		}
		if mem != 0 {
			w.mems[[2]uint64{dev, mem}] = true
		}
		if kind == KindImage && rng.IntN(3) == 0 {
			region := ImageRegion{Aspect: 1, X: int32(64 * rng.IntN(3))}
			e.SparseImageBound(dev, h, region, uint64(256*rng.IntN(3)), mem, uint64(rng.IntN(4096)))
			return
		}
		e.SparseBound(dev, kind, h, uint64(256*rng.IntN(8)), uint64(256*rng.IntN(5)), mem, uint64(rng.IntN(4096)))
	case 13: // video session with a binding
		s := w.fresh()
		e.VideoSessionCreated(dev, s, 0)
		w.res[[2]uint64{dev, s}] = KindVideoSession
		mem := w.pickMemory(dev)
		w.mems[[2]uint64{dev, mem}] = true
		for i := range uint32(rng.IntN(3)) {
			e.VideoSessionBound(dev, s, i%2, mem, uint64(rng.IntN(4096)), uint64(1+rng.IntN(1024)))
		}
	case 14: // dedicated or external memory
		h, size, typ := w.fresh(), uint64(1+rng.IntN(4096)), uint32(rng.IntN(4))
		info := MemoryInfo{External: External(rng.IntN(3)), HandleTypes: 1}
		if r, kind, ok := w.pickResource(dev); ok {
			info.Dedicated, info.DedicatedHandle = kind, r
		}
		if dev == 2 {
			e.Callback(dev, appAlloc([]CallbackType{CallbackAllocate, CallbackImport}[rng.IntN(2)], h, size))
		}
		e.MemoryAllocatedWith(dev, h, size, typ, info)
		w.mems[[2]uint64{dev, h}] = true
	case 15: // swapchain images, or an image bound to a swapchain
		if h, kind, ok := w.pickResource(dev); ok && kind == KindImage && rng.IntN(2) == 0 {
			for k := range w.chains {
				if k[0] == dev {
					e.SwapchainBound(dev, h, k[1])
					return
				}
			}
		}
		sc := w.fresh()
		imgs := []uint64{w.fresh(), w.fresh()}
		e.SwapchainImages(dev, sc, imgs)
		w.chains[[2]uint64{dev, sc}] = true
		for _, h := range imgs {
			w.res[[2]uint64{dev, h}] = KindImage
		}
	case 16: // swapchain destroyed
		for k := range w.chains {
			if k[0] == dev {
				for _, h := range e.SwapchainDestroyed(dev, k[1]) {
					delete(w.res, [2]uint64{dev, h})
				}
				delete(w.chains, k)
				break
			}
		}
	}
}

func (w *propWorld) free(k [2]uint64) {
	w.e.MemoryFreed(k[0], k[1])
	if k[0] == 2 {
		w.e.Callback(2, appAlloc(CallbackFree, k[1], 0))
	}
	delete(w.mems, k)
}

// check verifies the invariants against an independent computation.
func (w *propWorld) check() {
	t := w.t
	t.Helper()
	totals := w.e.Totals()
	var clusterSum, unboundSum, bindSum, attributed int64
	for track, v := range totals {
		if strings.HasSuffix(track, ".unbound_memory") {
			unboundSum += v
		} else {
			clusterSum += v
		}
		if w.b.last[track] != v {
			t.Fatalf("reported %s = %d, engine %d", track, w.b.last[track], v)
		}
	}
	for _, a := range w.e.Allocations() {
		var covered [8192]bool
		for _, b := range a.Bindings {
			bindSum += int64(b.Size)
			for i := b.Offset; i < b.Offset+b.Size; i++ {
				covered[i] = true
			}
		}
		var bound uint64
		for _, c := range covered {
			if c {
				bound++
			}
		}
		want := uint64(0)
		if a.Size > bound {
			want = a.Size - bound
		}
		if a.Unbound != want {
			t.Fatalf("allocation %+v: unbound %d, bitmap says %d", a, a.Unbound, want)
		}
		if strings.HasSuffix(a.UnboundTrack, ".unbound_memory") {
			unboundSum -= int64(a.Unbound)
		} else {
			attributed += int64(a.Unbound)
		}
	}
	if unboundSum != 0 {
		t.Fatalf("unbound counters differ from the allocations' unbound bytes by %d", unboundSum)
	}
	if clusterSum != bindSum+attributed {
		t.Fatalf("cluster counters %d != bound sizes %d + attributed driver bytes %d", clusterSum, bindSum, attributed)
	}
	dump := newBalance()
	w.e.Snapshot(dump)
	if !maps.Equal(dump.live, w.b.live) {
		t.Fatalf("snapshot %v\n!= live events %v", dump.live, w.b.live)
	}
}

// eventBalance is a balance that takes counter changes with the events
// (EventCounterSink) and applies them in the order the engine gives.
type eventBalance struct{ *balance }

func (b eventBalance) Counters(track int, total int64, totalChanged bool, _ uint32, _ int64, _ bool) {
	if totalChanged {
		b.Counter(trackNames[track], total)
	}
}

func (b eventBalance) AllocationWith(ev AllocationEvent, changes []CounterChange) {
	for _, c := range changes {
		b.Counters(c.Track, c.Total, c.TotalChanged, c.Heap, c.HeapValue, c.HeapChanged)
	}
	b.Allocation(ev)
}

// TestRandomSequencesBalance runs random sequences with a plain sink and,
// for odd seeds, with a sink that takes the counters with the events.
func TestRandomSequencesBalance(t *testing.T) {
	for seed := range uint64(40) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			b := newBalance()
			var sink Sink = b
			if seed%4 >= 2 {
				sink = eventBalance{b}
			}
			w := &propWorld{
				t: t, rng: rand.New(rand.NewPCG(seed, 0x5eed)), e: New(sink), b: b,
				res: map[[2]uint64]ResourceKind{}, disjoint: map[[2]uint64]bool{},
				mems: map[[2]uint64]bool{}, drivers: map[[2]uint64]bool{}, chains: map[[2]uint64]bool{},
			}
			w.e.DeviceCreated(1, testProps, false)
			w.e.DeviceCreated(2, testProps, true)
			for i := range 400 {
				w.step()
				if i%20 == 0 {
					w.check()
				}
			}
			w.check()
			if seed%2 == 0 {
				// The application frees and destroys everything.
				for k := range w.mems {
					w.free(k)
				}
				for k := range w.drivers {
					w.e.Callback(k[0], CallbackEvent{Type: CallbackFree, MemoryObjectID: k[1], Internal: true})
				}
				for k := range w.chains {
					w.e.SwapchainDestroyed(k[0], k[1])
				}
				for k, kind := range w.res {
					w.e.ResourceDestroyed(k[0], kind, k[1])
				}
			} else {
				// Devices destroyed with everything still live.
				w.e.DeviceDestroyed(1)
				w.e.DeviceDestroyed(2)
			}
			wantTotals(t, w.e, &b.recorder, nil)
			if a := w.e.Allocations(); len(a) != 0 {
				t.Fatalf("allocations left: %+v", a)
			}
			if len(b.live) != 0 {
				t.Fatalf("events left live: %v", b.live)
			}
		})
	}
}
