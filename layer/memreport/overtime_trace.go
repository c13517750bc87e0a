package memreport

import (
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/vkgen/vkgen/layer/memreport/accounting"
	"github.com/vkgen/vkgen/perfetto"
)

// The trace vocabulary of memory over time (docs/memreport.md).
const (
	FrameEventName     = "VulkanMemoryFrame"
	GrowthEventName    = "VulkanMemoryGrowth"
	ThresholdEventName = "VulkanMemoryBudgetThreshold"
	// FrameTrackName counts frames; growth tracks are GrowthTrackPrefix +
	// TYPE + "." + name ("(unnamed)" for unnamed groups), heap sizes
	// HeapSizePrefix + N + ".size".
	FrameTrackName    = "vkgen.frame"
	GrowthTrackPrefix = "vkgen.growth."
	HeapSizePrefix    = "vkgen.heap"
)

var (
	frameEvent     = perfetto.NewEventName(FrameEventName)
	growthEvent    = perfetto.NewEventName(GrowthEventName)
	thresholdEvent = perfetto.NewEventName(ThresholdEventName)
	frameTrack     = perfetto.NewCounterTrackIn(category, FrameTrackName, perfetto.UnitCount)

	argFrame          = perfetto.NewAnnotationName("frame")
	argType           = perfetto.NewAnnotationName("type")
	argStartTs        = perfetto.NewAnnotationName("start_ts")
	argStartBytes     = perfetto.NewAnnotationName("start_bytes")
	argBytes          = perfetto.NewAnnotationName("bytes")
	argFrames         = perfetto.NewAnnotationName("frames")
	argBytesPerSecond = perfetto.NewAnnotationName("bytes_per_second")
	argObjects        = perfetto.NewAnnotationName("objects")
	argObjectBytes    = perfetto.NewAnnotationName("object_bytes")
	argHandles        = perfetto.NewAnnotationName("handles")
	argUsage          = perfetto.NewAnnotationName("usage")
	argBudget         = perfetto.NewAnnotationName("budget")
	argThreshold      = perfetto.NewAnnotationName("threshold_percent")
	argBudgetSource   = perfetto.NewAnnotationName("budget_source")
	argGrewCluster    = perfetto.NewAnnotationName("grew_cluster")
	argGrewBytes      = perfetto.NewAnnotationName("grew_bytes")
	argLargestType    = perfetto.NewAnnotationName("largest_type")
	argLargestName    = perfetto.NewAnnotationName("largest_name")
	argLargestHandle  = perfetto.NewAnnotationName("largest_handle")
	argLargestBytes   = perfetto.NewAnnotationName("largest_bytes")
	argLargestLive    = perfetto.NewAnnotationName("largest_live")
	argHeapUsage      = perfetto.NewAnnotationName("heap_usage")
	argHeapBudget     = perfetto.NewAnnotationName("heap_budget")

	actNames = [numActs]string{"allocated", "freed", "bound", "unbound"}
	actArgs  = [numActs]perfetto.AnnotationName{
		perfetto.NewAnnotationName(actNames[0]), perfetto.NewAnnotationName(actNames[1]),
		perfetto.NewAnnotationName(actNames[2]), perfetto.NewAnnotationName(actNames[3]),
	}
	// cellArgs are the per heap and cluster annotation names
	// "<act>_heap<N>_<cluster>" (trace_processor turns dots in annotation
	// names into underscores: this way every reader sees one name),
	// registered on first use.
	cellArgs [accounting.MaxHeaps][accounting.NumClusters][numActs]atomic.Uint32
)

func cellArg(heap uint8, c accounting.Cluster, act int) perfetto.AnnotationName {
	slot := &cellArgs[heap][c][act]
	if n := slot.Load(); n != 0 {
		return perfetto.AnnotationName(n)
	}
	n := perfetto.NewAnnotationName(actNames[act] + "_heap" + strconv.Itoa(int(heap)) + "_" + c.String())
	slot.Store(uint32(n))
	return n
}

// Frame writes the frame counter and, for a frame with activity, its
// VulkanMemoryFrame event.
func (s traceSink) Frame(ts, frame uint64, st *frameStats) {
	if !perfetto.Enabled() {
		return
	}
	at := perfetto.Stamp(ts)
	at.Counter(frameTrack, int64(frame+1))
	if st == nil {
		return
	}
	args := append(st.args[:0], perfetto.Uint(argFrame, frame+1))
	for a, v := range st.total {
		args = append(args, perfetto.Uint(actArgs[a], v))
	}
	for _, c := range st.touched {
		for a, v := range st.cells[c.heap][c.cluster] {
			if v != 0 {
				args = append(args, perfetto.Uint(cellArg(c.heap, c.cluster, a), v))
			}
		}
	}
	at.Instant(category, frameEvent, args...)
	st.args = args
}

// growthTracks are the flagged groups' counter tracks, by group; at most
// maxGrowthTracks (tracks are never unregistered).
var growthTracks struct {
	mu sync.Mutex
	m  map[growthKey]perfetto.CounterTrack
}

const maxGrowthTracks = 256

func growthTrack(k growthKey) (perfetto.CounterTrack, bool) {
	growthTracks.mu.Lock()
	defer growthTracks.mu.Unlock()
	if t, ok := growthTracks.m[k]; ok {
		return t, true
	}
	if len(growthTracks.m) >= maxGrowthTracks {
		return 0, false
	}
	if growthTracks.m == nil {
		growthTracks.m = map[growthKey]perfetto.CounterTrack{}
	}
	name := k.name
	if name == "" {
		name = "(unnamed)"
	}
	t := perfetto.NewCounterTrackIn(category, GrowthTrackPrefix+k.src.String()+"."+name, perfetto.UnitSizeBytes)
	growthTracks.m[k] = t
	return t, true
}

// Growth writes a VulkanMemoryGrowth event and the group's first value on
// its growth track.
func (s traceSink) Growth(ts uint64, g *growthReport) {
	if !perfetto.Enabled() {
		return
	}
	var handles strings.Builder
	for i, o := range g.objects {
		if i > 0 {
			handles.WriteByte(' ')
		}
		handles.WriteString("0x" + strconv.FormatUint(o.handle, 16) + ":" + strconv.FormatUint(o.size, 10))
	}
	at := perfetto.Stamp(ts)
	at.Instant(category, growthEvent,
		perfetto.String(argType, g.key.src.String()),
		perfetto.String(argObjectName, g.key.name),
		perfetto.Uint(argStartTs, g.startTs),
		perfetto.Uint(argStartBytes, g.startBytes),
		perfetto.Uint(argBytes, g.bytes),
		perfetto.Uint(argFrames, g.frames),
		perfetto.Uint(argBytesPerSecond, g.bytesPerSecond),
		perfetto.Uint(argObjects, uint64(g.objectCount)),
		perfetto.Uint(argObjectBytes, g.objectBytes),
		perfetto.String(argHandles, handles.String()))
	if t, ok := growthTrack(g.key); ok {
		at.Counter(t, int64(min(g.bytes, math.MaxInt64)))
	}
}

// GrowthValue writes a flagged group's later value on its growth track.
func (s traceSink) GrowthValue(ts uint64, g *growthGroup) {
	if !perfetto.Enabled() {
		return
	}
	if t, ok := growthTrack(g.key); ok {
		perfetto.Stamp(ts).Counter(t, int64(min(g.live, math.MaxInt64)))
	}
}

// BudgetCrossed writes a VulkanMemoryBudgetThreshold event.
func (s traceSink) BudgetCrossed(ts uint64, c *budgetCrossing) {
	if !perfetto.Enabled() {
		return
	}
	perfetto.Stamp(ts).Instant(category, thresholdEvent,
		perfetto.Uint(argHeap, uint64(c.heap)),
		perfetto.Uint(argUsage, c.usage),
		perfetto.Uint(argBudget, c.budget),
		perfetto.Uint(argThreshold, c.percent),
		perfetto.String(argBudgetSource, c.source),
		perfetto.String(argGrewCluster, c.cluster),
		perfetto.Int(argGrewBytes, c.clusterBytes),
		perfetto.String(argLargestType, sourceName(c.largest)),
		perfetto.String(argLargestName, c.largest.name),
		perfetto.Uint(argLargestHandle, c.largest.handle),
		perfetto.Uint(argLargestBytes, c.largest.size),
		perfetto.String(argLargestLive, liveList(c.largestObjects)))
}

func sourceName(o liveObject) string {
	if o.size == 0 {
		return ""
	}
	return o.src.String()
}

// liveList writes objects as "name TYPE 0xhandle bytes" joined by "; "
// ("(unnamed)" for no name).
func liveList(objs []liveObject) string {
	var b strings.Builder
	for i, o := range objs {
		if i > 0 {
			b.WriteString("; ")
		}
		name := o.name
		if name == "" {
			name = "(unnamed)"
		}
		b.WriteString(name + " " + o.src.String() + " 0x" + strconv.FormatUint(o.handle, 16) + " " + strconv.FormatUint(o.size, 10))
	}
	return b.String()
}

// heapSizeTracks are the vkgen.heap<N>.size tracks: what stands in for a
// budget without VK_EXT_memory_budget.
var heapSizeTracks = func() (t [accounting.MaxHeaps]perfetto.CounterTrack) {
	for h := range t {
		t[h] = perfetto.NewCounterTrackIn(category, HeapSizePrefix+strconv.Itoa(h)+".size", perfetto.UnitSizeBytes)
	}
	return t
}()

// HeapSizes writes the heaps' sizes (a device was created, or a session
// starts).
func (s traceSink) HeapSizes(sizes []uint64) {
	for h, v := range sizes[:min(len(sizes), accounting.MaxHeaps)] {
		if v != 0 {
			s.counter(heapSizeTracks[h], int64(min(v, math.MaxInt64)))
		}
	}
}
