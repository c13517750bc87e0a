package layer

/*
#include <stdlib.h>
#include "vkgen_defer.h"
#include "vkgen_ring.h"
*/
import "C"

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// Deferred hooks (before<Cmd>, after<Cmd>) run here, not on the application's
// thread: the trampolines copy each call into a ring (vkgen_defer.c) and one
// goroutine drains it in the order the calls were recorded. A layer's other
// Go hooks drain first (the generated glue calls Drain), so they see every
// deferred hook of the calls before them.

// Record is one deferred call, valid while its hook runs.
type Record struct {
	rec   *C.struct_vkgen_rec
	slots unsafe.Pointer
}

// Result is the call's result (0 before the call and for void commands).
func (r *Record) Result() int64 { return int64(r.rec.result) }

// Value is parameter i as an integer (handles, scalars).
func (r *Record) Value(i int) uint64 { return *(*uint64)(unsafe.Add(r.slots, 8*i)) }

// Pointer is parameter i's copy (nil when the call passed NULL).
func (r *Record) Pointer(i int) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Add(r.slots, 8*i)) }

var (
	deferMu   sync.Mutex     // held while draining
	deferred  []deferredHook // by record id (small integers from 1, RegisterDeferred's)
	deferOnce sync.Once
	deferRuns atomic.Bool // the drain goroutine is running
	current   *Record     // the record whose hook runs (nil in other hooks), under deferMu
)

type deferredHook struct {
	layer, name string
	f           func(*Record)
	runs        uint64 // records it ran, under deferMu
}

// RegisterDeferred makes f run the records of cmd, a generated struct
// vkgen_cap_cmd, for the deferred hook name of layer: it gives cmd the next
// record id (the generated glue calls it in init, before any call can be
// recorded: the loader reaches the trampolines only through the layer's
// entry points, which wait for the library's Go initialisation).
func RegisterDeferred(cmd unsafe.Pointer, layer, name string, f func(*Record)) {
	deferMu.Lock()
	if len(deferred) == 0 {
		deferred = append(deferred, deferredHook{}) // id 0: never registered
	}
	(*C.struct_vkgen_cap_cmd)(cmd).id = C.uint32_t(len(deferred))
	deferred = append(deferred, deferredHook{layer: layer, name: name, f: f})
	deferMu.Unlock()
}

// The framework knows no trace writer: the one the layers write events with
// (package layer/tracing installs Perfetto's) gives it a clock and paces the
// drain.
var (
	clock = func() uint64 { return uint64(C.vkgen_now_ns()) } // CLOCK_BOOTTIME, the records' clock
	pace  func()                                              // before each record's hook; nil: none
)

// SetEventClock makes now the clock EventTime reads when no record carries
// the call's time: CLOCK_BOOTTIME in nanoseconds, cheaper to read than the C
// default. Call it in init.
func SetEventClock(now func() uint64) { clock = now }

// SetDrainPace makes the drain call wait before each record's hook: an event
// writer that fell behind makes the drain, and through the ring the
// application, wait rather than lose events. Call it in init.
func SetDrainPace(wait func()) { pace = wait }

// DeferredRuns calls f with each registered deferred hook and how many
// records it ran so far (diagnostics: which hooks are hot, and that a call
// is recorded once).
func DeferredRuns(f func(layer, hook string, runs uint64)) {
	deferMu.Lock()
	defer deferMu.Unlock()
	for _, h := range deferred {
		if h.f != nil {
			f(h.layer, h.name, h.runs)
		}
	}
}

// EventTime is the time of what the running hook reports, on
// CLOCK_BOOTTIME: the call's, in a deferred hook whose record has one (read
// in C when the call was recorded), else now (SetEventClock).
//
// Times only grow from one call to the next (at least by a nanosecond):
// events go to different trace sequences, where readers order them by time
// alone, so they must keep the order the hooks emitted them in.
func EventTime() uint64 {
	var t uint64
	if r := current; r != nil && r.rec.ts != 0 {
		t = uint64(r.rec.ts)
	} else {
		t = clock() // the same clock: off by at most its calibration, and the order is kept below
	}
	for {
		last := lastEvent.Load()
		if t <= last {
			t = last + 1
		}
		if lastEvent.CompareAndSwap(last, t) {
			return t
		}
	}
}

var lastEvent atomic.Uint64 // the last time EventTime returned

// SetTimestamps makes records carry the time of their call (from when the
// first trace session starts; 0 costs a clock read per record less).
func SetTimestamps(on bool) {
	v := int32(0)
	if on {
		v = 1
	}
	atomic.StoreInt32((*int32)(unsafe.Pointer(&C.vkgen_defer_timestamps)), v)
}

// startDeferred allocates the ring and starts the drain goroutine when some
// layer has deferred hooks (at the first layer negotiation, before any call).
func startDeferred() {
	deferMu.Lock()
	n := len(deferred)
	deferMu.Unlock()
	if n == 0 {
		return // no layer defers
	}
	deferOnce.Do(func() {
		if C.vkgen_ring_init() != 0 {
			fmt.Fprintln(os.Stderr, "vkgen: out of memory for the deferred-hook ring; deferred hooks will not run")
			return
		}
		deferRuns.Store(true)
		Go("vkgen", "deferred hooks", drainLoop)
	})
}

// drainLoop polls while calls keep coming and sleeps on a futex when idle.
func drainLoop() {
	idle := 0
	for {
		if Drain() > 0 {
			idle = 0
			continue
		}
		if idle++; idle < 100 {
			time.Sleep(time.Millisecond)
			continue
		}
		C.vkgen_ring_wait(100)
	}
}

func ringWord(p *C.uint64_t) *uint64 { return (*uint64)(unsafe.Pointer(p)) }

// Drain runs the deferred hooks of every call recorded so far and returns how
// many ran. Safe from any goroutine; a no-op when no layer defers.
func Drain() int {
	if !deferRuns.Load() {
		return 0
	}
	deferMu.Lock()
	defer deferMu.Unlock()
	return drainLocked()
}

func drainLocked() int {
	head := atomic.LoadUint64(ringWord(&C.vkgen_ring.head))
	tailp := ringWord(&C.vkgen_ring.tail)
	tail := *tailp
	if tail == head {
		return 0 // the common case of a hook that drains first: nothing to do
	}
	buf := unsafe.Pointer(C.vkgen_ring.buf)
	done := ringWord(&C.vkgen_ring.done)
	cleared := tail // the records before it are cleared
	n := 0
	for tail < head {
		at := unsafe.Add(buf, tail&(C.VKGEN_RING_BYTES-1))
		rec := (*C.struct_vkgen_rec)(at)
		state := (*uint32)(unsafe.Pointer(&rec.state))
		for atomic.LoadUint32(state) == C.VKGEN_REC_WRITING {
			time.Sleep(time.Microsecond) // a producer between reserving and committing
		}
		size := uint64(rec.size)
		var heap unsafe.Pointer
		if pace != nil {
			pace() // SetDrainPace
		}
		if ts := uint64(rec.ts); ts != 0 {
			drainNow.Store(ts)
		} else if n%nowRecords == 0 {
			drainNow.Store(clock())
		}
		if rec.names != 0 {
			durableEnd = tail + size
		}
		switch atomic.LoadUint32(state) {
		case C.VKGEN_REC_READY:
			running = Record{rec: rec, slots: unsafe.Add(at, recHeader)}
			run(&running)
			n++
		case C.VKGEN_REC_HEAP:
			heap = *(*unsafe.Pointer)(unsafe.Add(at, recHeader))
			running = Record{rec: rec, slots: heap}
			run(&running)
			n++
		}
		durableEnd = 0
		tail += size
		// The exit watcher writes the durable records from done on: done
		// passes each one once it ran, and every record before it is
		// freed or cleared (the watcher skips the others it passes over).
		if rec.names != 0 || heap != nil {
			atomic.StoreUint64(done, tail)
		}
		if heap != nil {
			C.free(heap)
		}
		if n%64 == 0 {
			// Now and then: producers read the tail only when the ring
			// looks full; they may then write over what was consumed,
			// cleared first (a header's state stays 0 until committed).
			cleared = release(buf, done, cleared, tail)
			publishTail(tailp, tail)
		}
	}
	release(buf, done, cleared, tail)
	publishTail(tailp, tail)
	drainNow.Store(0)
	if lost := uint64(C.vkgen_defer_lost()); lost > reportedLost {
		fmt.Fprintf(os.Stderr, "vkgen: %d deferred calls were not recorded (the ring stayed full for a second)\n", lost-reportedLost)
		reportedLost = lost
	}
	return n
}

// release publishes done up to tail and clears the consumed records from
// cleared to tail (in one or two pieces: the ring wraps), returning tail.
func release(buf unsafe.Pointer, done *uint64, cleared, tail uint64) uint64 {
	atomic.StoreUint64(done, tail)
	for cleared < tail {
		off := cleared & (C.VKGEN_RING_BYTES - 1)
		n := min(tail-cleared, C.VKGEN_RING_BYTES-off)
		clear(unsafe.Slice((*byte)(unsafe.Add(buf, off)), n))
		cleared += n
	}
	return tail
}

// nowRecords is how many records the drain runs on one reading of the
// clock for Now when they carry no time of their own.
const nowRecords = 64

// drainNow is Now's time while the drain runs records, 0 when it does not.
var drainNow atomic.Uint64

// Now is the time for hooks that need it only coarsely (frame windows, rate
// limits), on EventTime's clock: in a deferred hook the call's time when
// its record has one, else the drain's, read once per nowRecords records
// (behind by at most the time their hooks take); elsewhere the clock, read
// now. Unlike EventTime it does not grow from one call to the next.
func Now() uint64 {
	if t := drainNow.Load(); t != 0 {
		return t
	}
	return clock()
}

// DurableMark is, in the hook of a durable naming record, the ring position
// just past the record (they only grow), else 0. The exit watcher writes
// the naming records the drain had not passed (done) when the process died;
// the one whose hook was running may have reached a trace already: a name
// packet published with its mark (perfetto's VkObjectNameMarked) tells the
// watcher so, in the same atomic store as the packet's bytes.
func DurableMark() uint64 { return durableEnd }

var (
	durableEnd   uint64 // DurableMark's, under deferMu
	reportedLost uint64 // under deferMu
	running      Record // the record whose hook runs, under deferMu (one value: hooks must not keep it)
)

// publishTail makes consumed bytes free and, once a quarter of the ring is
// free, wakes the producers waiting for room: they then record many calls
// before they wait again, instead of a sleep and a wake-up per batch (the
// store and the load are sequentially consistent, as the producers' side of
// vkgen_ring_room's protocol needs).
func publishTail(tailp *uint64, tail uint64) {
	atomic.StoreUint64(tailp, tail)
	if atomic.LoadUint32((*uint32)(unsafe.Pointer(&C.vkgen_ring.room_waiters))) != 0 &&
		atomic.LoadUint64(ringWord(&C.vkgen_ring.head))-tail <= C.VKGEN_RING_BYTES/4*3 {
		C.vkgen_ring_room()
	}
}

// Sync drains and, when it returns true, keeps the drain lock until Unsync:
// the generated glue runs a deferred layer's other hooks under it
// (if layer.Sync() { defer layer.Unsync() }), so they see every earlier
// call's deferred hooks done.
func Sync() bool {
	if !deferRuns.Load() {
		return false
	}
	deferMu.Lock()
	drainLocked()
	return true
}

// Unsync releases what Sync took.
func Unsync() { deferMu.Unlock() }

// recHeader is where a record's slots start (cgo cannot name the flexible
// array member).
const recHeader = unsafe.Sizeof(C.struct_vkgen_rec{})

func run(r *Record) {
	id := int(r.rec.id)
	if id >= len(deferred) || deferred[id].f == nil {
		return
	}
	h := &deferred[id]
	h.runs++
	current = r
	defer h.done() // one deferred call per record: the drain runs millions
	h.f(r)
}

// done ends a deferred hook's run: no record runs any more, and a panic of
// the hook is recovered (recover works here: done is the deferred call).
func (h *deferredHook) done() {
	current = nil
	if r := recover(); r != nil {
		reportPanic(h.layer, h.name, r)
	}
}
