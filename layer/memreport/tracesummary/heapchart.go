package tracesummary

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/vkgen/vkgen/layer/memreport/accounting"
	"github.com/vkgen/vkgen/perfetto/decode"
)

// chartColumns is how many columns of time a heap chart has, however long
// the trace: a chart is under a thousand pixels wide.
const chartColumns = 400

// heapChart is one heap's memory over time, stacked by cluster, on a grid
// of chartColumns columns over the whole trace. Each column shows the
// moment in it when the heap held the most, so a spike never hides
// between columns, and the stack is one real moment, not a sum of
// different moments' peaks.
type heapChart struct {
	Heap int `json:"heap"` // -1: every heap (a trace without per-heap tracks)
	// Start is each column's start, ns since the first event; End the
	// last column's end.
	Start []uint64 `json:"start_ns"`
	End   uint64   `json:"end_ns"`
	// Layers are the clusters, bottom up; each track once (never the
	// all-heap total beside the heap's own track).
	Layers []stackLayer `json:"layers"`
	Total  []int64      `json:"total"` // the stack's height per column
	Peak   int64        `json:"peak"`
	PeakAt uint64       `json:"peak_ns"`
	// Lines are what the stack is measured against: the heap's size, the
	// driver's budget and the driver's usage (VK_EXT_memory_budget).
	Lines []heapLine `json:"lines"`
}

// stackLayer is one usage track's part of the stack.
type stackLayer struct {
	Cluster string  `json:"cluster"`
	Driver  bool    `json:"driver"` // the driver's internal memory
	Values  []int64 `json:"values"`
	Peak    int64   `json:"peak"`
}

// The kinds of heapLine.
const (
	lineSize        = "heap size"
	lineBudget      = "budget"
	lineBudgetUsage = "driver's usage"
)

// heapLine is a step line per column (its highest value in the column).
type heapLine struct {
	Kind   string  `json:"kind"`
	Values []int64 `json:"values"`
	Max    int64   `json:"max"`
}

func (l *stackLayer) label() string {
	if l.Driver {
		return l.Cluster + " (driver)"
	}
	return l.Cluster
}

// usageTrack parses a usage counter track's name,
// vulkan.mem[.heap<N>].{app|driver}.usage.<cluster>; heap is -1 for the
// all-heap tracks.
func usageTrack(name string) (heap int, driver bool, cluster string, ok bool) {
	rest, ok := strings.CutPrefix(name, counterPrefix)
	if !ok {
		return 0, false, "", false
	}
	heap = -1
	if h, r, found := strings.Cut(rest, "."); found && strings.HasPrefix(h, "heap") {
		n, err := strconv.Atoi(h[len("heap"):])
		if err != nil || n < 0 {
			return 0, false, "", false
		}
		heap, rest = n, r
	}
	owner, cluster, found := strings.Cut(rest, ".usage.")
	if !found || owner != "app" && owner != "driver" || cluster == "" {
		return 0, false, "", false
	}
	return heap, owner == "driver", cluster, true
}

// heapCharts makes a chart per heap that held memory, from the per-heap
// usage tracks; a trace without them gets one chart of the all-heap
// tracks. The two kinds never share a chart: they count the same bytes.
func (s *Summary) heapCharts() []heapChart {
	end := s.chartEnd()
	byHeap := map[int][]Series{}
	for _, sr := range s.Series {
		if h, _, _, ok := usageTrack(sr.Track); ok {
			byHeap[h] = append(byHeap[h], sr)
		}
	}
	if len(byHeap) > 1 {
		delete(byHeap, -1)
	}
	var charts []heapChart
	for _, h := range slices.Sorted(mapKeys(byHeap)) {
		c := stackColumns(byHeap[h], end)
		if c.Peak == 0 && len(c.Layers) == 0 {
			continue
		}
		c.Heap = h
		c.Lines = s.heapLines(h, end)
		charts = append(charts, c)
	}
	return charts
}

// chartEnd is the end of the charts' time axis: just past the last
// counter sample, in ns since the first event.
func (s *Summary) chartEnd() uint64 {
	var end uint64
	for _, sr := range s.Series {
		if n := len(sr.Samples); n > 0 {
			end = max(end, sr.Samples[n-1].Timestamp)
		}
	}
	return end + 1
}

func mapKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// stackColumns sweeps the tracks' samples in time order and keeps, per
// column, the values at the moment of the column's highest total. Layers
// that never held a byte are left out.
func stackColumns(series []Series, end uint64) heapChart {
	slices.SortFunc(series, func(a, b Series) int { return cmp.Compare(layerRank(a.Track), layerRank(b.Track)) })
	steps := mergedSteps(series)
	c := heapChart{End: end, Start: make([]uint64, chartColumns), Total: make([]int64, chartColumns)}
	for i := range c.Start {
		c.Start[i] = columnStart(i, end)
	}
	cur := make([]int64, len(series))
	vals := make([][]int64, len(series))
	for i := range vals {
		vals[i] = make([]int64, chartColumns)
	}
	var total int64
	j := 0
	for col := range chartColumns {
		best, bestAt := total, c.Start[col]
		snap := func() {
			for i, v := range cur {
				vals[i][col] = v
			}
		}
		snap()
		for ; j < len(steps) && column(steps[j].ts, end) == col; j++ {
			st := steps[j]
			total += st.v - cur[st.track]
			cur[st.track] = st.v
			// A moment is settled once every change at its timestamp is
			// applied: a bind moves bytes between two tracks at once.
			if settled := j+1 == len(steps) || steps[j+1].ts != st.ts; settled && total > best {
				best, bestAt = total, st.ts
				snap()
			}
		}
		c.Total[col] = best
		if best > c.Peak {
			c.Peak, c.PeakAt = best, bestAt
		}
	}
	for i, sr := range series {
		_, driver, cluster, _ := usageTrack(sr.Track)
		l := stackLayer{Cluster: cluster, Driver: driver, Values: vals[i], Peak: slices.Max(vals[i])}
		if l.Peak > 0 {
			c.Layers = append(c.Layers, l)
		}
	}
	return c
}

// step is a value of series[track] among the merged samples of several.
type step struct {
	ts    uint64
	track int
	v     int64
}

// mergedSteps is the samples of every series in time order (a series'
// own order kept at equal times).
func mergedSteps(series []Series) []step {
	var steps []step
	for i, sr := range series {
		for _, p := range sr.Samples {
			steps = append(steps, step{p.Timestamp, i, p.Value})
		}
	}
	slices.SortStableFunc(steps, func(a, b step) int { return cmp.Compare(a.ts, b.ts) })
	return steps
}

// column is the column of time t in a chart of [0, end).
func column(t, end uint64) int {
	return min(int(float64(t)/float64(end)*chartColumns), chartColumns-1)
}

func columnStart(col int, end uint64) uint64 {
	return uint64(float64(col) / chartColumns * float64(end))
}

// lineColumns is a counter's step line per column: its highest value in
// each column, carrying the last value into columns without samples.
func lineColumns(sr Series, end uint64) []int64 {
	out := make([]int64, chartColumns)
	var cur int64
	j := 0
	for col := range out {
		hi := cur
		for ; j < len(sr.Samples) && column(sr.Samples[j].Timestamp, end) == col; j++ {
			cur = sr.Samples[j].Value
			hi = max(hi, cur)
		}
		out[col] = hi
	}
	return out
}

// heapLines are heap h's size, budget and driver usage lines, those the
// trace has.
func (s *Summary) heapLines(h int, end uint64) []heapLine {
	var lines []heapLine
	add := func(kind string, sr Series) {
		if len(sr.Samples) == 0 {
			return
		}
		v := lineColumns(sr, end)
		lines = append(lines, heapLine{Kind: kind, Values: v, Max: slices.Max(v)})
	}
	for _, hb := range s.HeapBudgets {
		if int(hb.Heap) != h {
			continue
		}
		if hb.Size > 0 {
			add(lineSize, Series{Samples: []decode.CounterSample{{Timestamp: 0, Value: hb.Size}}})
		}
		if hb.Source == sourceExtension {
			add(lineBudget, Series{Samples: hb.Samples})
		}
	}
	p := "vulkan.mem.heap" + strconv.Itoa(h) + ".budget_usage"
	for _, sr := range s.Series {
		if sr.Track == p {
			add(lineBudgetUsage, sr)
		}
	}
	return lines
}

// layerRank orders a chart's layers bottom up: the application's clusters
// in the accounting's order with unbound memory on top of them, then the
// driver's.
func layerRank(track string) int {
	_, driver, cluster, _ := usageTrack(track)
	r := slices.Index(clusterOrder, cluster)
	if r < 0 {
		r = len(clusterOrder)
	}
	if driver {
		r += len(clusterOrder) + 1
	}
	return r
}

// clusterOrder is the accounting's clusters in its order (unbound memory
// last).
var clusterOrder = func() (o []string) {
	for c := range accounting.NumClusters {
		o = append(o, accounting.Cluster(c).String())
	}
	return o
}()
