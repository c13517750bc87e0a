package memreport

import (
	"io"
	"os"
	"sync"
	"time"

	"github.com/vkgen/vkgen/layer"
	"github.com/vkgen/vkgen/layer/memreport/accounting"
	"github.com/vkgen/vkgen/layer/tracing"
	"github.com/vkgen/vkgen/perfetto"
)

// overTime is memory while the program runs (docs/memreport.md "Memory over
// time"): frames (each vkQueuePresentKHR ends one; before the first, windows
// of frame_window_ms), what each frame allocated, freed, bound and unbound
// per heap and cluster, growth of live bytes per name or object type
// (growth.go), and budget thresholds and failure context (budgetwatch.go).
//
// The live trace sink feeds it every allocation event under the engine's
// lock, which guards it: mu is that lock (the state sets it; its own until
// then), taken by the calls that do not come from the engine; frames end on
// the drain (the present hook is deferred). Lock order: the engine's lock,
// then the name store's. Nothing here calls the engine.
type overTime struct {
	mu  sync.Locker
	cfg overTimeConfig
	out overTimeOut
	now func() uint64 // the events' clock (layer.EventTime); tests inject one
	// tick is the clock windows are checked against per event (layer.Now:
	// no clock read per event); nil: now.
	tick func() uint64
	log  io.Writer // growth lines (os.Stderr)
	// name is the current name of a live object ("" for none).
	name func(k liveKey, handle uint64) string

	presented  bool   // a present was seen: frames are presents from now on
	frame      uint64 // frames ended so far: the current frame's number
	frameStart uint64 // the current frame's start (the last frame end), 0 before any event
	cur        frameStats

	objs   liveObjects
	born   [settleFrames][]int32 // by frame % settleFrames: the objects born in the last frames
	groups growthGroups

	heaps heapWatch
}

// overTimeConfig holds the settings (vkgen-layer.json declares them).
type overTimeConfig struct {
	window           uint64 // ns; frames before the first present
	growthFrames     uint64
	growthMinBytes   uint64
	thresholdPercent uint64
}

var defaultOverTime = overTimeConfig{window: uint64(100 * time.Millisecond), growthFrames: 30, growthMinBytes: 64 << 10, thresholdPercent: 90}

// overTimeOut receives the frame, growth and budget events.
type overTimeOut interface {
	// Frame ends frame number frame at ts; st holds its activity (nil when
	// it had none).
	Frame(ts, frame uint64, st *frameStats)
	Growth(ts uint64, g *growthReport)
	// GrowthValue is a flagged group's live bytes at a later frame end.
	GrowthValue(ts uint64, g *growthGroup)
	BudgetCrossed(ts uint64, c *budgetCrossing)
}

func newOverTime(out overTimeOut) *overTime {
	return &overTime{mu: &sync.Mutex{}, cfg: defaultOverTime, out: out, now: layer.EventTime, log: os.Stderr,
		name: func(liveKey, uint64) string { return "" }}
}

// configure reads the settings as the last vkCreateInstance resolved them.
func (o *overTime) configure() {
	get := func(key string) uint64 {
		v, _ := tracing.Setting(key).V.(int64)
		return uint64(max(v, 1))
	}
	c := overTimeConfig{window: get("frame_window_ms") * uint64(time.Millisecond), growthFrames: get("growth_frames"),
		growthMinBytes: get("growth_min_bytes"), thresholdPercent: get("budget_threshold_percent")}
	o.mu.Lock()
	o.cfg = c
	o.mu.Unlock()
}

// Frame activity kinds.
const (
	actAllocated = iota // CREATE of an allocation
	actFreed            // DESTROY of an allocation
	actBound            // BIND
	actUnbound          // DESTROY of a binding
	numActs
)

// frameStats is one frame's activity: bytes per kind, in total and per
// heap and cluster (only the cells touched are listed, so a frame costs
// what it did, not the table's size).
type frameStats struct {
	total   [numActs]uint64
	cells   [accounting.MaxHeaps][accounting.NumClusters][numActs]uint64
	touched []frameCell
	args    []perfetto.Arg // the event's annotations, reused
}

type frameCell struct {
	heap    uint8
	cluster accounting.Cluster
}

func (s *frameStats) add(heap uint8, c accounting.Cluster, act int, size uint64) {
	cell := &s.cells[heap][c]
	if *cell == [numActs]uint64{} {
		s.touched = append(s.touched, frameCell{heap, c})
	}
	cell[act] += size
	s.total[act] += size
}

func (s *frameStats) reset() {
	for _, c := range s.touched {
		s.cells[c.heap][c.cluster] = [numActs]uint64{}
	}
	s.touched, s.total = s.touched[:0], [numActs]uint64{}
}

// isAllocation says whether an event's source is an allocation (not a
// binding inside one).
func isAllocation(src accounting.Source) bool {
	return src == accounting.SourceDeviceMemory || src == accounting.SourceDriver
}

// observe takes one live allocation event, under mu (the engine calls the
// sink with its lock held). Objects are found through the mark the engine
// keeps for the sink in their record.
func (o *overTime) observe(ev *accounting.AllocationEvent) {
	if ev.Mark == nil || ev.Operation > accounting.OpDestroy {
		return // swapchain images hold no memory of the application's; failures are no objects
	}
	if !o.presented {
		o.windows()
	}
	heap := uint8(min(ev.Heap, accounting.MaxHeaps-1))
	alloc := isAllocation(ev.Source)
	act := actBound
	switch {
	case ev.Operation == accounting.OpDestroy && alloc:
		act = actFreed
	case ev.Operation == accounting.OpDestroy:
		act = actUnbound
	case alloc:
		act = actAllocated
	}
	if ev.Size != 0 && int(ev.Cluster) < accounting.NumClusters {
		o.cur.add(heap, ev.Cluster, act, ev.Size)
		o.heaps.account(heap, ev, act)
	}
	if i, old := o.objs.get(*ev.Mark); old != nil {
		// A DESTROY, or a CREATE or BIND reported again (a driver's
		// ALLOCATE for a live key).
		o.groups.remove(old)
		o.objs.release(i)
	}
	*ev.Mark = 0
	if ev.Operation == accounting.OpDestroy || ev.Size == 0 {
		return
	}
	handle := ev.ObjectHandle
	if ev.Source == accounting.SourceDriver {
		handle = ev.MemoryObjectID
	}
	i, mark := o.objs.add(objRec{key: liveKeyOf(ev), size: ev.Size, handle: handle, born: o.frame, group: -1, heap: heap, src: ev.Source})
	*ev.Mark = mark
	slot := &o.born[o.frame%settleFrames]
	*slot = append(*slot, i)
	if act == actAllocated {
		o.checkHeap(int(heap), o.now)
	}
}

// windows ends the frames whose window has passed, before the first
// present; called only while no present was seen, so programs that present
// read no clock per event.
func (o *overTime) windows() {
	clock := o.now
	if o.tick != nil {
		clock = o.tick
	}
	now := clock()
	if o.frameStart == 0 {
		o.frameStart = now
		return
	}
	if now < o.frameStart {
		// tick is a record's time or the drain's, whichever is at hand:
		// it can step back behind a frame end stamped from a later
		// reading. No window passed; unsigned, now-frameStart would count
		// some 10^11 frames.
		return
	}
	for i := 0; now-o.frameStart >= o.cfg.window; i++ {
		if i > settleFrames {
			// Idle windows past what settling needs are numbered, not
			// ended one by one: nothing changed in them.
			n := (now - o.frameStart) / o.cfg.window
			o.frame += n
			o.frameStart += n * o.cfg.window
			return
		}
		o.endFrame(o.frameStart + o.cfg.window)
	}
}

// present ends a frame at a vkQueuePresentKHR; the windows that passed
// before the first one end first.
func (o *overTime) present() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.presented {
		o.windows()
		o.presented = true
	}
	o.endFrame(o.now())
}

// endFrame ends the current frame at ts: its activity, the objects that now
// outlived settleFrames frame ends join their growth groups, and every
// group is checked for growth.
func (o *overTime) endFrame(ts uint64) {
	f, prev := o.frame, o.frameStart
	o.frame++
	o.frameStart = ts
	var st *frameStats
	if len(o.cur.touched) > 0 {
		st = &o.cur
	}
	o.out.Frame(ts, f, st)
	o.cur.reset()
	if f+1 >= settleFrames {
		o.settle(f + 1 - settleFrames)
	}
	o.groups.sample(o, f, ts, prev)
}
