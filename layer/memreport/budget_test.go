package memreport

import (
	"slices"
	"testing"
	"time"
)

// Budget samples are rate-limited per device by BudgetInterval on the
// state's clock, the first one is due at once, devices without the
// extension are never sampled, and a query is made only when due.
func TestBudgetRateLimit(t *testing.T) {
	s, r := newTestState()
	var now time.Duration
	s.now = func() time.Duration { return now }
	const dev2 = dev + 0x100
	s.deviceCreated(dev, 0, 1, false, true, props(0, 0))
	s.deviceCreated(dev2, 0, 2, false, false, props(0))
	queries := 0
	usage := uint64(100)
	query := func() ([]uint64, []uint64) {
		queries++
		return []uint64{1000, 2000}, []uint64{usage, 7}
	}
	sample := func(d uintptr) { s.sampleBudget(d, false, query) }

	sample(dev) // first: due
	usage = 150
	now = BudgetInterval - 1
	sample(dev) // too soon
	sample(dev2)
	now = BudgetInterval
	sample(dev) // due again
	sample(dev) // too soon
	now = 3*BudgetInterval + 5
	sample(dev)
	s.sampleBudget(dev, true, query) // forced (vkDestroyDevice): at once
	want := []string{"heap0 100/1000", "heap1 7/2000", "heap0 150/1000", "heap1 7/2000", "heap0 150/1000", "heap1 7/2000", "heap0 150/1000", "heap1 7/2000"}
	if !slices.Equal(r.budgets, want) || queries != 4 {
		t.Fatalf("samples %q (%d queries), want %q (4)", r.budgets, queries, want)
	}
	sample(dev) // the forced sample restarts the interval
	if queries != 4 {
		t.Fatalf("%d queries right after a forced sample, want 4", queries)
	}
	// A destroyed device is not sampled; an unknown one neither.
	s.deviceDestroyed(dev)
	now += BudgetInterval
	sample(dev)
	sample(0x999)
	s.sampleBudget(dev, true, query)
	if queries != 4 {
		t.Fatalf("%d queries after destroy, want 4", queries)
	}
}

// More heaps than VK_MAX_MEMORY_HEAPS (bad driver data) are cut.
func TestBudgetHeapsCut(t *testing.T) {
	s, r := newTestState()
	s.budgetSampled(make([]uint64, 20), make([]uint64, 19))
	if len(r.budgets) != 16 {
		t.Fatalf("%d samples, want 16", len(r.budgets))
	}
}
