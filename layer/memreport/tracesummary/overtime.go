package tracesummary

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/vkgen/vkgen/perfetto/decode"
)

// Memory over time (docs/memreport.md): frames, growth and budget
// thresholds, read from the layer's VulkanMemoryFrame, VulkanMemoryGrowth
// and VulkanMemoryBudgetThreshold events and its vkgen.* counter tracks.
const (
	frameEvent      = "VulkanMemoryFrame"
	growthEvent     = "VulkanMemoryGrowth"
	thresholdEvent  = "VulkanMemoryBudgetThreshold"
	frameTrack      = "vkgen.frame"
	growthPrefix    = "vkgen.growth."
	heapSizePrefix  = "vkgen.heap"
	budgetSuffix    = ".budget"
	sourceExtension = "VK_EXT_memory_budget"
	sourceHeapSize  = "heap_size"
	// The per-frame series' names among the curves.
	frameAllocated = "bytes allocated per frame"
	frameFreed     = "bytes freed per frame"
)

// Frames sums the frames (presents, or windows before the first present).
type Frames struct {
	Count  uint64 `json:"count"`  // frames ended (the frame counter's last value)
	Active int    `json:"active"` // frames that allocated, freed, bound or unbound memory
	// Sums over the frames, bytes.
	Allocated uint64 `json:"allocated"`
	Freed     uint64 `json:"freed"`
	Bound     uint64 `json:"bound"`
	Unbound   uint64 `json:"unbound"`
	// The frame that allocated the most, and what it allocated.
	BusiestFrame     uint64 `json:"busiest_frame"`
	BusiestAllocated uint64 `json:"busiest_allocated"`
	// Series are the bytes allocated and freed per frame with activity,
	// at the frames' ends, for the chart.
	Series []Series `json:"-"`
}

// Growth is a group (a name, or an object type when unnamed) whose live
// bytes rose while the program ran (a VulkanMemoryGrowth event).
type Growth struct {
	Type           string         `json:"type"`
	Name           string         `json:"name"`
	StartNs        uint64         `json:"start_ns"` // when the rise began, since the first event
	Ns             uint64         `json:"ns"`       // when it was found
	StartBytes     uint64         `json:"start_bytes"`
	Bytes          uint64         `json:"bytes"`
	Frames         uint64         `json:"frames"`
	BytesPerSecond uint64         `json:"bytes_per_second"`
	ObjectCount    uint64         `json:"object_count"`
	ObjectBytes    uint64         `json:"object_bytes"`
	Objects        []GrowthObject `json:"objects"` // the largest objects behind it
	// Samples is the curve: the start, then the group's live bytes at the
	// frame ends where they changed from its finding on.
	Samples []decode.CounterSample `json:"-"`
}

// GrowthObject is one object behind a growth.
type GrowthObject struct {
	Handle uint64 `json:"handle"`
	Bytes  uint64 `json:"bytes"`
}

// BudgetThreshold is a heap's usage crossing the threshold of its budget.
type BudgetThreshold struct {
	Ns            uint64 `json:"ns"`
	Heap          uint32 `json:"heap"`
	Usage         uint64 `json:"usage"`
	Budget        uint64 `json:"budget"`
	Percent       uint64 `json:"threshold_percent"`
	Source        string `json:"budget_source"` // VK_EXT_memory_budget, or heap_size
	GrewCluster   string `json:"grew_cluster"`
	GrewBytes     int64  `json:"grew_bytes"`
	LargestType   string `json:"largest_type"`
	LargestName   string `json:"largest_name"`
	LargestHandle uint64 `json:"largest_handle"`
	LargestBytes  uint64 `json:"largest_bytes"`
	LargestLive   string `json:"largest_live"`
}

// HeapBudget is what a heap's budget line is: the driver's budget, or,
// without VK_EXT_memory_budget, the heap's size.
type HeapBudget struct {
	Heap   uint32 `json:"heap"`
	Source string `json:"budget_source"`
	Budget int64  `json:"budget"` // the last value
	// Size is the heap's size (VkMemoryHeap::size; the largest when
	// devices differ), 0 when the trace does not say.
	Size int64 `json:"size"`
	// Usage is the highest usage seen: the driver's budget_usage, or the
	// bytes allocated in the heap (application and driver tracks).
	PeakUsage int64                  `json:"peak_usage"`
	Samples   []decode.CounterSample `json:"-"` // the budget line
}

// timeEvent holds what a frame, growth or threshold event carries.
type timeEvent struct {
	args map[string]decode.Annotation
}

func (x *timeEvent) uint(name string) uint64 { return argUint(x.args[name]) }
func (x *timeEvent) str(name string) string  { return x.args[name].Str }

// timeEventKind maps a frame, growth or threshold event's name to its kind.
func timeEventKind(name string) uint8 {
	switch name {
	case frameEvent:
		return evFrame
	case growthEvent:
		return evGrowth
	}
	return evThreshold
}

// overTime accumulates the summary's memory over time.
type overTime struct {
	frames     Frames
	growths    []Growth
	thresholds []BudgetThreshold
	// curves are the growth and budget tracks' samples by name.
	curves map[string]*decimator
}

func (o *overTime) apply(e *event, t0 uint64) {
	x := e.x
	switch e.kind {
	case evFrame:
		f := &o.frames
		f.Active++
		a := x.uint("allocated")
		f.Allocated, f.Freed, f.Bound, f.Unbound = f.Allocated+a, f.Freed+x.uint("freed"), f.Bound+x.uint("bound"), f.Unbound+x.uint("unbound")
		if a > f.BusiestAllocated {
			f.BusiestFrame, f.BusiestAllocated = x.uint("frame"), a
		}
		o.counter(frameAllocated, e.ts, int64(min(a, 1<<62)))
		o.counter(frameFreed, e.ts, int64(min(x.uint("freed"), 1<<62)))
	case evGrowth:
		g := Growth{Type: x.str("type"), Name: x.str("object_name"), StartNs: x.uint("start_ts") - min(x.uint("start_ts"), t0), Ns: e.ts - min(e.ts, t0),
			StartBytes: x.uint("start_bytes"), Bytes: x.uint("bytes"), Frames: x.uint("frames"), BytesPerSecond: x.uint("bytes_per_second"),
			ObjectCount: x.uint("objects"), ObjectBytes: x.uint("object_bytes")}
		for _, f := range strings.Fields(x.str("handles")) {
			h, b, _ := strings.Cut(f, ":")
			hv, _ := strconv.ParseUint(h, 0, 64)
			bv, _ := strconv.ParseUint(b, 10, 64)
			g.Objects = append(g.Objects, GrowthObject{hv, bv})
		}
		o.growths = append(o.growths, g)
	case evThreshold:
		o.thresholds = append(o.thresholds, BudgetThreshold{Ns: e.ts - min(e.ts, t0), Heap: uint32(x.uint("heap")), Usage: x.uint("usage"),
			Budget: x.uint("budget"), Percent: x.uint("threshold_percent"), Source: x.str("budget_source"),
			GrewCluster: x.str("grew_cluster"), GrewBytes: x.args["grew_bytes"].Int, LargestType: x.str("largest_type"),
			LargestName: x.str("largest_name"), LargestHandle: x.uint("largest_handle"), LargestBytes: x.uint("largest_bytes"),
			LargestLive: x.str("largest_live")})
	}
}

// timeTrack says whether a counter track is one of memory over time's.
func timeTrack(name string) bool {
	return strings.HasPrefix(name, "vkgen.") && name != "vkgen.perfetto.dropped_events"
}

// counter takes a value of a timeTrack.
func (o *overTime) counter(name string, ts uint64, v int64) {
	if name == frameTrack {
		o.frames.Count = max(o.frames.Count, uint64(v))
		return
	}
	if o.curves == nil {
		o.curves = map[string]*decimator{}
	}
	d := o.curves[name]
	if d == nil {
		d = &decimator{}
		o.curves[name] = d
	}
	d.add(ts, v)
}

// finish fills the summary: growth curves, and per heap its budget line
// (the budget track, else the heap size) and peak usage.
func (o *overTime) finish(sum *Summary, t0 uint64) {
	sum.Frames, sum.Growths, sum.BudgetThresholds = o.frames, o.growths, o.thresholds
	for _, n := range []string{frameAllocated, frameFreed} {
		if d := o.curves[n]; d != nil {
			sum.Frames.Series = append(sum.Frames.Series, Series{Track: n, Samples: d.samples(t0)})
		}
	}
	for i := range sum.Growths {
		g := &sum.Growths[i]
		name := g.Name
		if name == "" {
			name = "(unnamed)"
		}
		g.Samples = []decode.CounterSample{{Timestamp: g.StartNs, Value: int64(g.StartBytes)}}
		if d := o.curves[growthPrefix+g.Type+"."+name]; d != nil {
			for _, s := range d.samples(t0) {
				if s.Timestamp >= g.Ns {
					g.Samples = append(g.Samples, s)
				}
			}
		}
	}
	clusters := map[string]Series{}
	for _, s := range sum.Series {
		clusters[s.Track] = s
	}
	for h := range 16 {
		p := "vulkan.mem.heap" + strconv.Itoa(h)
		hb := HeapBudget{Heap: uint32(h), Source: sourceExtension}
		var size Series
		if d := o.curves[heapSizePrefix+strconv.Itoa(h)+".size"]; d != nil {
			size = Series{Samples: d.samples(t0)}
			for _, v := range size.Samples {
				hb.Size = max(hb.Size, v.Value)
			}
		}
		line, ok := clusters[p+budgetSuffix]
		if !ok {
			if size.Samples == nil {
				continue
			}
			hb.Source, line = sourceHeapSize, size
		}
		hb.Samples = line.Samples
		if n := len(line.Samples); n > 0 {
			hb.Budget = line.Samples[n-1].Value
		}
		for _, c := range sum.Clusters {
			if hb.Source == sourceExtension && c.Track == p+".budget_usage" {
				hb.PeakUsage = c.Peak
			}
		}
		if hb.Source == sourceHeapSize {
			hb.PeakUsage = heapPeak(sum.Series, p+".")
		}
		sum.HeapBudgets = append(sum.HeapBudgets, hb)
	}
	slices.SortFunc(sum.Growths, func(a, b Growth) int { return cmp.Compare(a.Ns, b.Ns) })
}

// heapPeak is the highest sum of a heap's usage tracks at any of their
// sample times.
func heapPeak(series []Series, prefix string) int64 {
	var usage []Series
	for _, s := range series {
		if strings.HasPrefix(s.Track, prefix) && strings.Contains(s.Track, ".usage.") {
			usage = append(usage, s)
		}
	}
	cur := map[int]int64{}
	var sum, peak int64
	for _, s := range mergedSteps(usage) {
		sum += s.v - cur[s.track]
		cur[s.track] = s.v
		peak = max(peak, sum)
	}
	return peak
}
