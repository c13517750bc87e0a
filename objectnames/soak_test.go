package objectnames

import (
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
