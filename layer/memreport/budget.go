package memreport

import (
	"sync/atomic"
	"time"

	"github.com/vkgen/vkgen/layer"
	"github.com/vkgen/vkgen/layer/memreport/accounting"
)

// BudgetInterval is the least time between two VK_EXT_memory_budget samples
// of one device (between samples usage is estimated, see budgetwatch.go):
// heap budget and usage are sampled when the application allocates or frees
// memory and at every vkQueuePresentKHR, at most this often, so a burst of
// allocations costs one query, and no thread of the layer's polls. A sample
// carries the time of the call it is taken for (trace.go's Budget says
// why). vkCreateDevice (after the call) and vkDestroyDevice (before it)
// always sample. Each sample (or, without the extension, each check at the
// same points against the heap sizes) is checked against the budget
// threshold (budgetwatch.go).
const BudgetInterval = 10 * time.Millisecond

// budgetClock is the sampler's clock, layer.Now (a rate limit needs no clock
// read per event). Tests replace state.now.
func budgetClock() time.Duration { return time.Duration(layer.Now()) }

// budgetState is one device's sampling state.
type budgetState struct {
	last atomic.Int64 // state.now() of the last sample; -1: never
	ext  bool         // VK_EXT_memory_budget can be sampled
}

// budgetDue reports whether the device's budget should be sampled now
// (always when forced), and claims the sample: of concurrent callers, one
// wins.
func (s *state) budgetDue(device uintptr, force bool) bool {
	d := s.lookup(device)
	if d == nil {
		return false
	}
	now := int64(s.now())
	if force {
		d.budget.last.Store(now)
		return true
	}
	last := d.budget.last.Load()
	if last >= 0 && now-last < int64(BudgetInterval) {
		return false
	}
	return d.budget.last.CompareAndSwap(last, now)
}

// budgetSampled writes one sample: heapBudget and heapUsage per heap.
func (s *state) budgetSampled(budget, usage []uint64) {
	for h := range min(len(budget), len(usage), accounting.MaxHeaps) {
		s.out.Budget(uint32(h), budget[h], usage[h])
	}
}

// sampleBudget samples the device's budget through query (the C call) when
// due or forced, and checks the threshold; a device without the extension
// is only checked, against its heap sizes.
func (s *state) sampleBudget(device uintptr, force bool, query func() (budget, usage []uint64)) {
	if !s.budgetDue(device, force) {
		return
	}
	var budget, usage []uint64
	if s.lookup(device).budget.ext {
		budget, usage = query()
		s.budgetSampled(budget, usage)
		if budget == nil {
			return
		}
	}
	if s.ot != nil {
		s.ot.checkBudget(s.ot.now(), budget, usage)
	}
}

// heapSizes records a device's heap sizes: what stands in for budgets
// without the extension, written as the vkgen.heap<N>.size tracks.
func (s *state) heapSizes(sizes []uint64) {
	if s.ot == nil {
		return
	}
	s.ot.heapSizes(sizes)
	if ts, ok := s.out.(traceSink); ok {
		ts.HeapSizes(sizes)
	}
}
