package memreport

import (
	"cmp"
	"slices"

	"github.com/vkgen/vkgen/layer/memreport/accounting"
)

// Budget sources: what a heap's budget and usage are.
const (
	budgetFromExtension = "VK_EXT_memory_budget" // the driver's heapBudget and heapUsage
	budgetFromHeapSize  = "heap_size"            // no extension: the heap's size, and the bytes the layer saw allocated
)

// heapWatch is what budget thresholds and failed allocations are told
// about each heap (under overTime.mu).
type heapWatch struct {
	live   [accounting.MaxHeaps]uint64 // allocated bytes (application and driver) the layer saw
	size   [accounting.MaxHeaps]uint64 // the heap's size (the largest of the devices')
	budget [accounting.MaxHeaps]uint64 // the last VK_EXT_memory_budget sample (0: none)
	usage  [accounting.MaxHeaps]uint64
	// sampled is live at that sample: between samples (at most one query per
	// 10 ms) usage is estimated as the sample's plus what the layer
	// saw allocated since, so a crossing is found at the allocation that
	// makes it, however fast the allocations come.
	sampled [accounting.MaxHeaps]uint64
	above   [accounting.MaxHeaps]bool // at or past the threshold at the last check
	// Since the last check: bytes bound per cluster (allocated, for
	// allocations), and the largest object that began.
	grew    [accounting.MaxHeaps][accounting.NumClusters]int64
	largest [accounting.MaxHeaps]liveObject
}

// liveObject is an object as events name it.
type liveObject struct {
	key    liveKey
	src    accounting.Source
	handle uint64
	size   uint64
	name   string
}

// budgetCrossing is a heap's usage crossing the threshold.
type budgetCrossing struct {
	heap           uint32
	usage, budget  uint64
	percent        uint64 // the threshold
	source         string // budgetFromExtension or budgetFromHeapSize
	cluster        string // the cluster that grew most since the last check ("" none)
	clusterBytes   int64
	largest        liveObject // the largest object that began since (size 0: none)
	largestObjects []liveObject
}

func (h *heapWatch) account(heap uint8, ev *accounting.AllocationEvent, act int) {
	switch act {
	case actAllocated:
		h.live[heap] += ev.Size
		h.grew[heap][ev.Cluster] += int64(min(ev.Size, 1<<62))
	case actFreed:
		h.live[heap] -= min(h.live[heap], ev.Size)
		h.grew[heap][ev.Cluster] -= int64(min(ev.Size, 1<<62))
	case actBound:
		// A bind moves bytes within an allocation into the resource's
		// cluster: the cluster that grew, not new memory.
		h.grew[heap][ev.Cluster] += int64(min(ev.Size, 1<<62))
	case actUnbound:
		h.grew[heap][ev.Cluster] -= int64(min(ev.Size, 1<<62))
	}
	if (act == actAllocated || act == actBound) && ev.Size > h.largest[heap].size {
		h.largest[heap] = liveObject{key: liveKeyOf(ev), src: ev.Source, handle: ev.ObjectHandle, size: ev.Size}
	}
}

// heapSizes records a device's heap sizes.
func (o *overTime) heapSizes(sizes []uint64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for h, s := range sizes[:min(len(sizes), accounting.MaxHeaps)] {
		o.heaps.size[h] = max(o.heaps.size[h], s)
	}
}

// sizes returns the heap sizes recorded.
func (o *overTime) sizes() []uint64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.heaps.size[:])
}

// checkBudget checks every heap against the threshold at ts: with a
// VK_EXT_memory_budget sample (budget and usage per heap), or, when nil,
// against the heap sizes with the bytes the layer saw allocated. What grew
// is counted from here on.
func (o *overTime) checkBudget(ts uint64, budget, usage []uint64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	h := &o.heaps
	for i := range accounting.MaxHeaps {
		if i < len(budget) && i < len(usage) {
			h.budget[i], h.usage[i], h.sampled[i] = budget[i], usage[i], h.live[i]
		}
		o.checkHeap(i, func() uint64 { return ts })
		h.grew[i], h.largest[i] = [accounting.NumClusters]int64{}, liveObject{}
	}
}

// checkHeap writes a crossing when heap i's usage (sampled, or estimated
// since the sample; without a sample, the bytes allocated against the heap
// size) is at or past the threshold and was not at the last check; at is
// the event's time, asked only then. Under mu.
func (o *overTime) checkHeap(i int, at func() uint64) {
	h := &o.heaps
	budget, usage, source := h.budget[i], h.usage[i]+h.live[i]-min(h.usage[i]+h.live[i], h.sampled[i]), budgetFromExtension
	if budget == 0 {
		budget, usage, source = h.size[i], h.live[i], budgetFromHeapSize
	}
	if budget == 0 {
		return
	}
	percent := o.cfg.thresholdPercent
	above := float64(usage)*100 >= float64(budget)*float64(percent)
	if above && !h.above[i] {
		// Built only here: it escapes to the sink, and a crossing is rare
		// where checks come with every allocation.
		c := &budgetCrossing{heap: uint32(i), usage: usage, budget: budget, percent: percent, source: source}
		c.cluster, c.clusterBytes = h.grewMost(i)
		c.largest = h.largest[i]
		if c.largest.size != 0 {
			c.largest.name = o.name(c.largest.key, c.largest.handle)
		}
		c.largestObjects = o.largestLive(uint8(i), 5)
		o.out.BudgetCrossed(at(), c)
	}
	h.above[i] = above
}

// grewMost is the cluster whose bytes rose most on a heap since the last
// check ("" when none rose).
func (h *heapWatch) grewMost(heap int) (string, int64) {
	best, bytes := -1, int64(0)
	for c, v := range h.grew[heap] {
		if v > bytes {
			best, bytes = c, v
		}
	}
	if best < 0 {
		return "", 0
	}
	return accounting.Cluster(best).String(), bytes
}

// heapState is a heap's usage and budget now, as a failed allocation's
// event reports them, with the largest live objects on it; under mu (the
// engine's sink writes that event).
func (o *overTime) heapState(heap uint32) (usage, budget uint64, source string, largest []liveObject) {
	i := min(heap, accounting.MaxHeaps-1)
	h := &o.heaps
	usage, budget, source = h.usage[i]+h.live[i]-min(h.usage[i]+h.live[i], h.sampled[i]), h.budget[i], budgetFromExtension
	if budget == 0 {
		usage, budget, source = h.live[i], h.size[i], budgetFromHeapSize
	}
	return usage, budget, source, o.largestLive(uint8(i), 5)
}

// largestLive lists the n largest live allocations (not bindings: their
// bytes are in those) of a heap, named; under mu.
func (o *overTime) largestLive(heap uint8, n int) []liveObject {
	var out []liveObject
	for _, rec := range o.objs.recs {
		if !rec.alive || rec.heap != heap || !isAllocation(rec.src) {
			continue
		}
		if len(out) == n && rec.size <= out[n-1].size {
			continue
		}
		out = append(out, liveObject{key: rec.key, src: rec.src, handle: rec.handle, size: rec.size})
		slices.SortFunc(out, func(a, b liveObject) int { return cmp.Or(cmp.Compare(b.size, a.size), cmp.Compare(a.handle, b.handle)) })
		out = out[:min(len(out), n)]
	}
	for i := range out {
		out[i].name = o.name(out[i].key, out[i].handle)
	}
	return out
}
