package objectnames

import (
	"errors"
	"runtime"
	"strconv"
	"testing"

	gen "github.com/vkgen/vkgen/generated"
)

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestSoakCreateNameDestroy runs 1,000,000 create/name/destroy cycles the way
// a long-running application does: a sliding window of 1,024 live named
// objects, each renamed once, freed through the destroyer table, devices
// coming and going with their queues, and a burst of 50,000 names dropped
// at once with their device. Afterwards the store must be empty and the heap
// back within 1 MiB of where it started.
func TestSoakCreateNameDestroy(t *testing.T) {
	cycles := 1_000_000
	if testing.Short() {
		cycles = 100_000
	}
	const window = 1024
	emitted := 0
	s := New(EmitterFunc(func(Record) { emitted++ })) // single goroutine: no lock needed
	before := heapInUse()

	var ring [window]struct{ dev, h uint64 }
	var name []byte
	for i := range cycles {
		dev := uint64(0xd000 + i/100_000) // a new device every 100,000 cycles
		h := uint64(i + 1)
		if i%100_000 == 0 {
			if i > 0 {
				s.DeviceDestroyed(dev - 1) // forgets it, its queue and its buffers still in the window
			}
			mustSet(t, s, dev, gen.ObjectTypeDevice, dev, "device")
			mustSet(t, s, dev, gen.ObjectTypeQueue, dev+1, "queue")
		}
		slot := &ring[i%window]
		if slot.h != 0 {
			if err := s.CommandDestroyed("vkDestroyBuffer", slot.dev, slot.h); err != nil {
				t.Fatal(err)
			}
		}
		name = strconv.AppendInt(append(name[:0], "buffer "...), int64(i), 10)
		if err := s.SetNameBytes(dev, gen.ObjectTypeBuffer, h, name); err != nil {
			t.Fatal(err)
		}
		name = append(name, " (renamed)"...)
		if err := s.SetNameBytes(dev, gen.ObjectTypeBuffer, h, name); err != nil {
			t.Fatal(err)
		}
		*slot = struct{ dev, h uint64 }{dev, h}

		if i == cycles/2 { // a burst on a short-lived device
			const burstDev = 0xb000
			for b := uint64(1); b <= 50_000; b++ {
				mustSet(t, s, burstDev, gen.ObjectTypeImage, b, "burst image")
			}
			s.DeviceDestroyed(burstDev)
		}
	}
	for _, slot := range ring {
		if slot.h != 0 {
			s.ObjectDestroyed(slot.dev, gen.ObjectTypeBuffer, slot.h)
		}
	}
	s.DeviceDestroyed(uint64(0xd000 + (cycles-1)/100_000))

	if n := s.Len(); n != 0 {
		t.Fatalf("Len = %d after every object and device was destroyed", n)
	}
	if want := 2*cycles + 50_000; emitted < want {
		t.Fatalf("emitted %d records, want at least %d", emitted, want)
	}
	after := heapInUse()
	const slack = 1 << 20
	if after > before+slack {
		t.Fatalf("heap grew from %d to %d bytes (+%d) over %d cycles", before, after, after-before, cycles)
	}
	t.Logf("%d cycles: heap %d -> %d bytes", cycles, before, after)
	runtime.KeepAlive(s)
}

// Issue 28: 1,000,000 names on handles never destroyed grew the store
// without bound. A full store keeps MaxNames, still emits every name live,
// counts what it did not keep and says so once; its heap stays within
// MaxNames names of 200 bytes (about 90 bytes a name plus the name).
func TestLeakedHandlesAreBounded(t *testing.T) {
	const names = 1_000_000
	emitted, full := 0, 0
	s := New(EmitterFunc(func(Record) { emitted++ }))
	s.OnFull(func() { full++ })
	before := heapInUse()
	name := []byte("leaked buffer ")
	for i := range names {
		name = strconv.AppendInt(name[:len("leaked buffer ")], int64(i), 10)
		err := s.SetNameBytes(0xd1, gen.ObjectTypeBuffer, uint64(i+1), name)
		if err != nil && !errors.Is(err, ErrFull) {
			t.Fatal(err)
		}
	}
	after := heapInUse()
	kept := s.Len()
	if kept > MaxNames || kept < MaxNames*9/10 || s.Refused() != uint64(names-kept) || full != 1 || emitted != names {
		t.Fatalf("kept %d (MaxNames %d), refused %d, onFull %d times, emitted %d of %d", kept, MaxNames, s.Refused(), full, emitted, names)
	}
	if grew := int64(after) - int64(before); grew > MaxNames*200 {
		t.Fatalf("heap grew by %d bytes for %d names kept (%d a name)", grew, kept, grew/int64(kept))
	}
	if err := s.SetName(0xd1, gen.ObjectTypeBuffer, 1, "renamed"); err != nil {
		t.Errorf("renaming a kept name in a full store: %v", err)
	}
	s.DeviceDestroyed(0xd1)
	if err := s.SetName(0xd1, gen.ObjectTypeBuffer, names+1, "after"); err != nil || s.Len() != 1 {
		t.Errorf("after the device went: %v, %d names", err, s.Len())
	}
	runtime.KeepAlive(s)
}
