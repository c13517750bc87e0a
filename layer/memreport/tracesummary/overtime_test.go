package tracesummary

import (
	"strings"
	"testing"

	"github.com/vkgen/vkgen/perfetto"
)

// Frames, a growth with its curve, a heap's size standing in for its
// budget and a threshold crossed, as the layer writes them, come back in
// the summary, its text and its HTML (the growth curve and the budget line
// drawn, the heap size labelled).
func TestOverTime(t *testing.T) {
	sum := Summarize(recorded(t, writeOverTime))
	if f := sum.Frames; f.Count != 3 || f.Active != 3 || f.Allocated != 600 || f.Freed != 30 || f.BusiestFrame != 3 || f.BusiestAllocated != 300 {
		t.Errorf("frames %+v", f)
	}
	if len(sum.Growths) != 1 {
		t.Fatalf("growths %+v", sum.Growths)
	}
	g := sum.Growths[0]
	if g.Type != "BUFFER" || g.Name != "leak" || g.StartNs != 1000 || g.Ns != 3000 || g.Bytes != 196608 || len(g.Objects) != 3 ||
		g.Objects[2] != (GrowthObject{0xb3, 65536}) || len(g.Samples) != 3 || g.Samples[2].Value != 262144 {
		t.Errorf("growth %+v", g)
	}
	if len(sum.HeapBudgets) != 1 || sum.HeapBudgets[0].Source != sourceHeapSize || sum.HeapBudgets[0].Budget != 1<<30 || sum.HeapBudgets[0].PeakUsage != 65536 {
		t.Errorf("heap budgets %+v", sum.HeapBudgets)
	}
	if len(sum.BudgetThresholds) != 1 || sum.BudgetThresholds[0].LargestName != "big" || sum.BudgetThresholds[0].Ns != 4000 {
		t.Errorf("thresholds %+v", sum.BudgetThresholds)
	}
	for _, c := range sum.Clusters {
		if !strings.HasPrefix(c.Track, counterPrefix) {
			t.Errorf("cluster table holds %s", c.Track)
		}
	}
	text := sum.Text()
	for _, want := range []string{"Frames: 3 (3 with memory activity", "Growth while the program ran: 1", "0xb3 (65536)",
		"heap size (no VK_EXT_memory_budget", "Budget thresholds crossed: 1"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	page := sum.HTML("t")
	for _, want := range []string{"<title>BUFFER leak</title>", "<title>bytes allocated per frame</title>", "heap size  1.0 GiB (off scale", "Budget thresholds crossed: 1"} {
		if !strings.Contains(page, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
}

// writeOverTime emits what the layer would: a heap size, three frames, a
// growth with two values on its curve, a threshold crossed.
func writeOverTime() {
	an := perfetto.NewAnnotationName
	frame, growth := perfetto.NewCounterTrack(frameTrack, perfetto.UnitCount), perfetto.NewCounterTrack(growthPrefix+"BUFFER.leak", perfetto.UnitSizeBytes)
	size := perfetto.NewCounterTrack(heapSizePrefix+"0.size", perfetto.UnitSizeBytes)
	heap0 := perfetto.NewCounterTrack("vulkan.mem.heap0.app.usage.unbound_memory", perfetto.UnitSizeBytes)
	t0 := perfetto.Now()
	perfetto.Stamp(t0).Counter(unbound, 65536)
	perfetto.Stamp(t0).Counter(heap0, 65536)
	perfetto.Stamp(t0).Counter(size, 1<<30)
	for f := uint64(1); f <= 3; f++ {
		at := perfetto.Stamp(t0 + f*1000)
		at.Counter(frame, int64(f))
		at.Instant(cat, perfetto.NewEventName(frameEvent), perfetto.Uint(an("frame"), f), perfetto.Uint(an("allocated"), 100*f),
			perfetto.Uint(an("freed"), 10), perfetto.Uint(an("bound"), 5), perfetto.Uint(an("unbound"), 5),
			perfetto.Uint(an("allocated_heap0_unbound_memory"), 100*f))
	}
	perfetto.Stamp(t0+3000).Instant(cat, perfetto.NewEventName(growthEvent), perfetto.String(an("type"), "BUFFER"),
		perfetto.String(aName, "leak"), perfetto.Uint(an("start_ts"), t0+1000), perfetto.Uint(an("start_bytes"), 0),
		perfetto.Uint(an("bytes"), 196608), perfetto.Uint(an("frames"), 31), perfetto.Uint(an("bytes_per_second"), 98304000),
		perfetto.Uint(an("objects"), 3), perfetto.Uint(an("object_bytes"), 196608), perfetto.String(an("handles"), "0xb1:65536 0xb2:65536 0xb3:65536"))
	perfetto.Stamp(t0+3000).Counter(growth, 196608)
	perfetto.Stamp(t0+4000).Counter(growth, 262144)
	perfetto.Stamp(t0+4000).Instant(cat, perfetto.NewEventName(thresholdEvent), perfetto.Uint(aHeap, 0), perfetto.Uint(an("usage"), 1<<30-1),
		perfetto.Uint(an("budget"), 1<<30), perfetto.Uint(an("threshold_percent"), 90), perfetto.String(an("budget_source"), sourceHeapSize),
		perfetto.String(an("grew_cluster"), "unbound_memory"), perfetto.Int(an("grew_bytes"), 65536), perfetto.String(an("largest_type"), "DEVICE_MEMORY"),
		perfetto.String(an("largest_name"), "big"), perfetto.Uint(an("largest_handle"), 0x100), perfetto.Uint(an("largest_bytes"), 65536),
		perfetto.String(an("largest_live"), "big DEVICE_MEMORY 0x100 65536"))
}
