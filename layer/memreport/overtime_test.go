package memreport

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/layer/memreport/accounting"
)

// overTimeRecorder keeps what the tracker writes.
type overTimeRecorder struct {
	frames    []uint64 // frame numbers with activity
	allFrames int
	growths   []growthReport
	growthTs  []uint64
	crossings []budgetCrossing
	last      frameStats
}

func (r *overTimeRecorder) Frame(_, frame uint64, st *frameStats) {
	r.allFrames++
	if st != nil {
		r.frames = append(r.frames, frame)
		r.last.total = st.total
	}
}
func (r *overTimeRecorder) Growth(ts uint64, g *growthReport) {
	r.growths = append(r.growths, *g)
	r.growthTs = append(r.growthTs, ts)
}
func (r *overTimeRecorder) GrowthValue(uint64, *growthGroup) {}
func (r *overTimeRecorder) BudgetCrossed(_ uint64, c *budgetCrossing) {
	r.crossings = append(r.crossings, *c)
}

// frameClock drives a tracker at 60 frames per second.
type frameClock struct{ ns uint64 }

const frameNs = 16_666_667

func newTestOverTime() (*overTime, *overTimeRecorder, *frameClock, *bytes.Buffer) {
	r := &overTimeRecorder{}
	o := newOverTime(r)
	c := &frameClock{ns: 1_000_000_000}
	o.now = func() uint64 { return c.ns }
	var log bytes.Buffer
	o.log = &log
	o.name = func(k liveKey, _ uint64) string { return testNames[k.id] }
	return o, r, c, &log
}

// testNames are the test objects' names by handle; nextHandle is the last
// handle given.
var (
	testNames  = map[uint64]string{}
	nextHandle = uint64(0x1000)
)

// marks are the engine records' marks of the test objects, by source and
// handle.
var marks = map[[2]uint64]*uint64{}

func markOf(src accounting.Source, handle uint64) *uint64 {
	k := [2]uint64{uint64(src), handle}
	if marks[k] == nil {
		marks[k] = new(uint64)
	}
	return marks[k]
}

func bufEvent(op accounting.Operation, handle, size uint64) *accounting.AllocationEvent {
	return &accounting.AllocationEvent{Operation: op, Source: accounting.SourceBuffer, Device: 1, MemoryObjectID: handle + 1<<40,
		ObjectHandle: handle, Size: size, Cluster: accounting.ClusterGeometryMesh, MemoryType: "geometry_mesh", Mark: markOf(accounting.SourceBuffer, handle)}
}

func memEvent(op accounting.Operation, handle, size uint64) *accounting.AllocationEvent {
	return &accounting.AllocationEvent{Operation: op, Source: accounting.SourceDeviceMemory, Device: 1, MemoryObjectID: handle,
		ObjectHandle: handle, Size: size, Cluster: accounting.ClusterUnbound, MemoryType: "unbound_memory", Mark: markOf(accounting.SourceDeviceMemory, handle)}
}

// run plays frames of a workload: per frame 100 buffers created and
// destroyed, a ring of 3 frames of buffers that live 3 frames, and, when
// leakEvery > 0, one 64 KiB buffer (named "leak") kept every leakEvery
// frames. It returns the handles leaked.
func run(o *overTime, c *frameClock, frames, leakEvery int) []uint64 {
	var ring [3][]uint64
	var leaked []uint64
	for f := range frames {
		for range 100 {
			nextHandle++
			o.observe(bufEvent(accounting.OpBind, nextHandle, 4096))
			o.observe(bufEvent(accounting.OpDestroy, nextHandle, 4096))
		}
		for _, h := range ring[f%3] {
			o.observe(bufEvent(accounting.OpDestroy, h, 8192))
		}
		ring[f%3] = ring[f%3][:0]
		for range 4 {
			nextHandle++
			o.observe(bufEvent(accounting.OpBind, nextHandle, 8192))
			ring[f%3] = append(ring[f%3], nextHandle)
		}
		if leakEvery > 0 && f%leakEvery == 0 {
			nextHandle++
			testNames[nextHandle] = "leak"
			o.observe(bufEvent(accounting.OpBind, nextHandle, 64<<10))
			leaked = append(leaked, nextHandle)
		}
		c.ns += frameNs
		o.present()
	}
	return leaked
}

// A buffer leaked every 10 frames under a steady workload is growth within
// a second (60 frames at 60 fps), with exactly the leaked buffers behind it
// and one stderr line; the same workload without the leak is none.
func TestGrowthLeakAndSteady(t *testing.T) {
	o, r, c, log := newTestOverTime()
	leaked := run(o, c, 60, 10)
	if len(r.growths) != 1 {
		t.Fatalf("%d growths in 60 frames, want 1: %+v", len(r.growths), r.growths)
	}
	g := r.growths[0]
	if g.key != (growthKey{src: accounting.SourceBuffer, name: "leak"}) {
		t.Fatalf("growth of %v", g.key)
	}
	var got []uint64
	for _, ob := range g.objects {
		got = append(got, ob.handle)
	}
	slices.Sort(got)
	// Behind it: the leaked buffers that settled since the run began (the
	// first, settled before its first rise's base, is in start_bytes).
	if want := leaked[:len(got)]; len(got) < 4 || !slices.Equal(got, want) || g.objectCount != len(got) {
		t.Fatalf("objects %#x, want a prefix of %#x of at least 4", got, leaked)
	}
	if g.bytes-g.startBytes < 3*64<<10 || g.bytesPerSecond == 0 {
		t.Fatalf("growth %+v", g)
	}
	if n := strings.Count(log.String(), "\n"); n != 1 || !strings.Contains(log.String(), `BUFFER "leak"`) {
		t.Fatalf("stderr %q", log)
	}
	// Found within a second: by frame 60 at 60 fps.
	if r.growthTs[0]-1_000_000_000 > 60*frameNs {
		t.Fatalf("found after %d ns", r.growthTs[0]-1_000_000_000)
	}
	run(o, c, 120, 10)
	if n := strings.Count(log.String(), "\n"); n != 1 {
		t.Fatalf("%d stderr lines after more growth, want the first only", n)
	}

	o, r, c, log = newTestOverTime()
	run(o, c, 600, 0)
	if len(r.growths) != 0 || log.Len() != 0 {
		t.Fatalf("steady workload: growths %+v, stderr %q", r.growths, log)
	}
	if len(r.frames) != 600 || r.last.total != [numActs]uint64{0, 0, 100*4096 + 4*8192, 100*4096 + 4*8192} {
		t.Fatalf("%d frames with activity, last %v", len(r.frames), r.last.total)
	}
}

// Three rises in a few frames (a level loaded, a cache filled), then a
// plateau longer than growth_frames, then another rise are not growth.
func TestGrowthNotSteps(t *testing.T) {
	o, r, c, _ := newTestOverTime()
	h := uint64(0x9000)
	for f := range 200 {
		if f == 5 || f == 6 || f == 7 || f == 100 {
			h++
			o.observe(memEvent(accounting.OpCreate, h, 1<<20))
		}
		if f == 150 {
			o.observe(memEvent(accounting.OpDestroy, h, 1<<20))
		}
		c.ns += frameNs
		o.present()
	}
	if len(r.growths) != 0 {
		t.Fatalf("growths %+v", r.growths)
	}
}

// Without presents, windows of frame_window_ms are the frames; idle
// windows cost no event each.
func TestFrameWindows(t *testing.T) {
	o, r, c, _ := newTestOverTime()
	o.observe(memEvent(accounting.OpCreate, 1, 100))
	c.ns += 250_000_000 // 2.5 windows of 100 ms
	o.observe(memEvent(accounting.OpCreate, 2, 100))
	c.ns += 10_000_000_000
	o.observe(memEvent(accounting.OpDestroy, 2, 100))
	if !slices.Equal(r.frames, []uint64{0, 2}) || o.frame != 102 {
		t.Fatalf("frames with activity %v, frame %d", r.frames, o.frame)
	}
	if r.allFrames > 2+settleFrames+2 {
		t.Fatalf("%d frame ends written for idle windows", r.allFrames)
	}
	c.ns += 20_000_000
	o.present() // the first present ends the current frame; presents only from now on
	c.ns += 1_000_000_000
	o.observe(memEvent(accounting.OpCreate, 3, 100))
	if o.frame != 103 {
		t.Fatalf("frame %d after a present and a second without one, want 103", o.frame)
	}
}

// Windows are checked against tick (layer.Now in the layer: the drain's
// time, no clock read per event), never the events' clock.
func TestFrameWindowsTick(t *testing.T) {
	o, r, c, _ := newTestOverTime()
	reads := 0
	o.tick, o.now = o.now, func() uint64 { reads++; return c.ns }
	o.observe(memEvent(accounting.OpCreate, 1, 100))
	c.ns += 250_000_000
	o.observe(memEvent(accounting.OpCreate, 2, 100))
	if !slices.Equal(r.frames, []uint64{0}) || o.frame != 2 {
		t.Fatalf("frames with activity %v, frame %d, want [0] and 2", r.frames, o.frame)
	}
	if reads != 0 {
		t.Fatalf("the events' clock read %d times for windows", reads)
	}
}

// tick may step back (a record's time after the drain's later reading):
// no window passed, and the frame count stays what it was.
func TestFrameWindowsTickStepsBack(t *testing.T) {
	o, _, c, _ := newTestOverTime()
	o.tick = o.now
	o.observe(memEvent(accounting.OpCreate, 1, 100))
	c.ns += 250_000_000 // 2.5 windows: frames 0 and 1 end, the third starts 200 ms in
	o.observe(memEvent(accounting.OpCreate, 2, 100))
	c.ns -= 60_000_000 // 10 ms before the current frame's start
	o.observe(memEvent(accounting.OpDestroy, 2, 100))
	if o.frame != 2 {
		t.Fatalf("frame %d after the clock stepped back, want 2", o.frame)
	}
	c.ns += 160_000_000 // 50 ms into the fourth window
	o.observe(memEvent(accounting.OpDestroy, 1, 100))
	if o.frame != 3 {
		t.Fatalf("frame %d once the clock went on, want 3", o.frame)
	}
}

// Crossing the threshold of a heap's budget is one event naming what grew
// most and the largest object that began since the last sample; it fires
// again only after usage fell below. Between samples usage is the last
// sample's plus what was allocated since, so the allocation that crosses
// is found at once. Without a budget sample, the heap size stands in with
// the bytes allocated.
func TestBudgetThreshold(t *testing.T) {
	o, r, _, _ := newTestOverTime()
	testNames[0x77] = "big.texture"
	o.observe(memEvent(accounting.OpCreate, 0x76, 10<<20))
	o.checkBudget(1, []uint64{100 << 20}, []uint64{50 << 20})
	o.observe(memEvent(accounting.OpCreate, 0x77, 40<<20))
	o.observe(&accounting.AllocationEvent{Operation: accounting.OpBind, Source: accounting.SourceImage, Device: 1, MemoryObjectID: 0x77,
		ObjectHandle: 0x88, Size: 40 << 20, Cluster: accounting.ClusterStaticTexture, Mark: markOf(accounting.SourceImage, 0x88)})
	o.checkBudget(2, []uint64{100 << 20}, []uint64{91 << 20})
	o.checkBudget(3, []uint64{100 << 20}, []uint64{95 << 20})
	if len(r.crossings) != 1 {
		t.Fatalf("crossings %+v", r.crossings)
	}
	x := r.crossings[0]
	if x.usage != 90<<20 || x.budget != 100<<20 || x.source != budgetFromExtension || x.cluster != "unbound_memory" && x.cluster != "static_texture" ||
		x.largest.name != "big.texture" || x.largest.size != 40<<20 || len(x.largestObjects) != 2 || x.largestObjects[0].name != "big.texture" {
		t.Fatalf("crossing %+v", x)
	}
	o.checkBudget(4, []uint64{100 << 20}, []uint64{10 << 20})
	o.checkBudget(5, []uint64{100 << 20}, []uint64{90 << 20})
	if len(r.crossings) != 2 {
		t.Fatalf("%d crossings after falling and crossing again, want 2", len(r.crossings))
	}

	o, r, _, _ = newTestOverTime()
	o.heapSizes([]uint64{64 << 20})
	o.observe(memEvent(accounting.OpCreate, 1, 60<<20))
	o.checkBudget(1, nil, nil)
	if len(r.crossings) != 1 || r.crossings[0].source != budgetFromHeapSize || r.crossings[0].usage != 60<<20 || r.crossings[0].budget != 64<<20 {
		t.Fatalf("crossings without the extension %+v", r.crossings)
	}
	usage, budget, source, largest := o.heapState(0)
	if usage != 60<<20 || budget != 64<<20 || source != budgetFromHeapSize || len(largest) != 1 {
		t.Fatalf("heap state %d/%d %s %+v", usage, budget, source, largest)
	}
}
