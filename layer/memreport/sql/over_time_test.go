package sql_test

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/internal/perfettotools"
	"github.com/vkgen/vkgen/internal/vktest"
	"github.com/vkgen/vkgen/layer/memreport/tracesummary"
)

// compareOverTime checks the module's frames, growths, budget thresholds
// and heap budgets against the summary of the same trace, once b has run.
func compareOverTime(t *testing.T, b *perfettotools.Batch, sum *tracesummary.Summary) {
	t.Helper()
	frames := b.Add(`SELECT (SELECT frames FROM vkgen_memory_frame_count), COUNT(*), COALESCE(SUM(allocated), 0),
	  COALESCE(SUM(freed), 0), COALESCE(SUM(bound), 0), COALESCE(SUM(unbound), 0) FROM vkgen_memory_frames`)
	growths := b.Add(`SELECT type, name, start_ns, ns, start_bytes, bytes, frames, bytes_per_second, object_count, object_bytes,
	  (SELECT GROUP_CONCAT(handle || ':' || bytes, ' ') FROM (SELECT * FROM vkgen_memory_growth_objects o WHERE o.growth_id = g.id))
	  FROM vkgen_memory_growth g ORDER BY ns`)
	thresholds := b.Add(`SELECT ns, heap, usage, budget, threshold_percent, budget_source, grew_cluster, grew_bytes, largest_type,
	  largest_name, largest_handle, largest_bytes, largest_live FROM vkgen_memory_budget_thresholds`)
	budgets := b.Add("SELECT heap, budget_source, budget FROM vkgen_memory_heap_budgets")
	b.Then(func() {
		f := sum.Frames
		want := []string{fmt.Sprint(f.Count, f.Active, f.Allocated, f.Freed, f.Bound, f.Unbound)}
		if g := []string{strings.Join(frames.Rows[0], " ")}; !slices.Equal(g, want) {
			t.Errorf("frames: module %q, summary %q", g, want)
		}

		var got []string
		want = nil
		for _, g := range sum.Growths {
			var objs []string
			for _, o := range g.Objects {
				objs = append(objs, fmt.Sprintf("%#x:%d", o.Handle, o.Bytes))
			}
			want = append(want, fmt.Sprintf("%s %q %d %d %d %d %d %d %d %d %s", g.Type, g.Name, g.StartNs, g.Ns, g.StartBytes, g.Bytes, g.Frames,
				g.BytesPerSecond, g.ObjectCount, g.ObjectBytes, strings.Join(objs, " ")))
		}
		for _, r := range growths.Rows {
			got = append(got, fmt.Sprintf("%s %q %s", r[0], r[1], strings.Join(r[2:], " ")))
		}
		sameRows(t, "growths", got, want)

		want, got = nil, nil
		for _, x := range sum.BudgetThresholds {
			want = append(want, fmt.Sprintf("%d %d %d %d %d %s %s %d %s %q %d %d %q", x.Ns, x.Heap, x.Usage, x.Budget, x.Percent, x.Source, x.GrewCluster,
				x.GrewBytes, x.LargestType, x.LargestName, x.LargestHandle, x.LargestBytes, x.LargestLive))
		}
		for _, r := range thresholds.Rows {
			h, _ := strconv.ParseInt(r[10], 10, 64)
			got = append(got, fmt.Sprintf("%s %q %d %s %q", strings.Join(r[:9], " "), r[9], uint64(h), r[11], r[12]))
		}
		sameRows(t, "budget thresholds", got, want)

		want, got = nil, nil
		for _, h := range sum.HeapBudgets {
			want = append(want, fmt.Sprintf("%d %s %d", h.Heap, h.Source, h.Budget))
		}
		for _, r := range budgets.Rows {
			got = append(got, strings.Join(r, " "))
		}
		sameRows(t, "heap budgets", got, want)
	})
}

// sameRows reports the rows of what that only one side has.
func sameRows(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n%s", what, diff(got, want))
	}
}

// TestModuleOverTime: frameprog leaking every 10 frames and crossing a
// small budget (over the memdriver): the module and the summary find the
// same growths with the same objects, the same thresholds and budget
// lines, and a frame's cells add up to its totals. The leaking frames
// make 5 short-lived buffers each, not frameprog's 20: the growths are
// found through them all the same, and the trace is a quarter the size
// (the module's tables on the larger one cost 1.2 CPU s per process).
func TestModuleOverTime(t *testing.T) {
	setup(t)
	prog := vktest.Program(t, "layer/memreport/testdata/frameprog.c")
	env := append(vktest.DriverEnv(t, "budget,present", dmrLayer), "VKGEN_MEMDRIVER_BUDGET=33554432")
	for _, args := range [][]string{{"leak", "100", "5"}, {"budget", "40"}} {
		t.Run(args[0], func(t *testing.T) {
			trace, _ := recordIn(t, env, prog, args...)
			sum := summary(t, trace)
			b := batch(t, trace)
			compare(t, b, sum)
			bad := b.Add(`SELECT f.frame FROM vkgen_memory_frames f
			  WHERE f.allocated != (SELECT COALESCE(SUM(bytes), 0) FROM vkgen_memory_frame_cells c WHERE c.frame = f.frame AND c.kind = 'allocated')
			     OR f.bound != (SELECT COALESCE(SUM(bytes), 0) FROM vkgen_memory_frame_cells c WHERE c.frame = f.frame AND c.kind = 'bound')`)
			b.Run(t)
			if args[0] == "leak" && len(sum.Growths) != 2 || args[0] == "budget" && len(sum.BudgetThresholds) != 1 {
				t.Fatalf("growths %+v, thresholds %+v", sum.Growths, sum.BudgetThresholds)
			}
			if len(bad.Rows) != 0 {
				t.Errorf("frames whose cells do not add up: %v", bad.Rows)
			}
		})
	}
}
