package memreport_test

import (
	"cmp"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/internal/perfettotools"
	"github.com/vkgen/vkgen/internal/vktest"
	"github.com/vkgen/vkgen/layer/memreport"
	"github.com/vkgen/vkgen/perfetto/decode"
)

// leaks returns the VulkanMemoryLeak events as "source name size at".
func leaks(tr *decode.Trace) []string {
	var out []string
	for _, e := range layerEvents(tr) {
		if e.name == memreport.LeakEventName {
			out = append(out, strings.Join([]string{e.args["source"], e.args["object_name"], e.args["size"], e.args["at"]}, " "))
		}
	}
	return out
}

// openSlices returns the names of the lifetime slices begun and never
// ended.
func openSlices(tr *decode.Trace) []string {
	open := map[uint64]string{}
	pkts := slices.Clone(tr.Packets) // time order; a sequence keeps its order at equal times
	slices.SortStableFunc(pkts, func(a, b decode.Packet) int { return cmp.Compare(a.Timestamp, b.Timestamp) })
	for _, p := range pkts {
		switch {
		case p.Event == nil:
		case p.Event.Type == decode.TypeSliceBegin:
			open[p.Event.TrackUUID] = p.Event.Name
		case p.Event.Type == decode.TypeSliceEnd:
			delete(open, p.Event.TrackUUID)
		}
	}
	var out []string
	for _, n := range open {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// What the application never destroys is a leak once, named, where its
// device's life ended: at vkDestroyInstance when the device was never
// destroyed (its memory is then released: counters back to 0, slices
// ended), at exit when neither was (slices stay open).
func TestLeaksAtInstanceDestroyAndExit(t *testing.T) {
	setup(t)
	for _, c := range []struct {
		skip, at string
		open     []string
		final    int64
	}{
		{"device", "vkDestroyInstance", nil, 0},
		{"instance", "exit", []string{"leak.block", "leak.forgotten"}, 4096},
	} {
		t.Run(c.skip, func(t *testing.T) {
			r := runDemo(t, []string{dmLayer, dmrLayer}, "--leak", "--skip-destroy", c.skip)
			want := []string{"DEVICE_MEMORY leak.block 4096 " + c.at, "BUFFER leak.forgotten 4096 " + c.at}
			if got := leaks(r.trace); !slices.Equal(got, want) {
				t.Errorf("leaks %q, want %q", got, want)
			}
			if got := openSlices(r.trace); !slices.Equal(got, c.open) {
				t.Errorf("open slices %q, want %q", got, c.open)
			}
			cs := r.trace.Counters()["vulkan.mem.app.usage.geometry_mesh"]
			if cs == nil || cs.Samples[len(cs.Samples)-1].Value != c.final {
				t.Errorf("geometry_mesh final %v, want %d", cs, c.final)
			}
		})
	}
}

// Through the memdriver test driver (VK_EXT_device_memory_report and
// VK_EXT_memory_budget over lavapipe): the refused allocation is one
// VulkanMemoryAllocationFailed from the ALLOCATION_FAILED callback, and
// each budget sample's heap usage equals what the layer's counters hold
// then (the driver counts the same ALLOCATEs): the first at vkCreateDevice
// (the driver's 1 MiB device allocation), the last before vkDestroyDevice
// (that and the leaked 4096 bytes), with a budget of half the heap.
func TestDriverFailureAndBudget(t *testing.T) {
	setup(t)
	trace := filepath.Join(t.TempDir(), "demo.pftrace")
	cmd := exec.Command(built.demo, "--fail-alloc", "--leak")
	cmd.Env = append(vktest.DriverEnv(t, "budget", dmrLayer), "VK_VKGEN_TRACE_FILE="+trace)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("demo: %v\n%s", err, out)
	}
	perfettotools.CheckStats(t, trace)
	tr, err := decode.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	var fails []string
	for _, e := range layerEvents(tr) {
		if e.name == memreport.FailureEventName {
			fails = append(fails, fmt.Sprintf("%s %s heap=%s", e.args["source"], e.args["size"], e.args["heap"]))
		}
	}
	if want := []string{fmt.Sprintf("DEVICE_MEMORY %d heap=0", uint64(1)<<62)}; !slices.Equal(fails, want) {
		t.Errorf("failures %q, want %q", fails, want)
	}
	// The leaks are reported before the driver's FREE callbacks at
	// vkDestroyDevice; the driver's own device allocation is none.
	if got, want := leaks(tr), []string{"DEVICE_MEMORY leak.block 4096 vkDestroyDevice", "BUFFER leak.forgotten 4096 vkDestroyDevice"}; !slices.Equal(got, want) {
		t.Errorf("leaks %q, want %q", got, want)
	}

	cs := tr.Counters()
	usage, budget := cs["vulkan.mem.heap0.budget_usage"], cs["vulkan.mem.heap0.budget"]
	if usage == nil || budget == nil || len(usage.Samples) < 2 {
		t.Fatalf("budget tracks: usage %v, budget %v", usage, budget)
	}
	if first, last := usage.Samples[0].Value, usage.Samples[len(usage.Samples)-1].Value; first != 1<<20 || last != 1<<20+4096 {
		t.Errorf("heap usage first %d, last %d; want %d, %d", first, last, 1<<20, 1<<20+4096)
	}
	for _, s := range budget.Samples {
		if s.Value != 1073741824 {
			t.Errorf("budget %d, want 1073741824", s.Value)
		}
	}
	// The driver's usage is the layer's total: at the forced samples of
	// vkCreateDevice and vkDestroyDevice, taken with the drain idle, the
	// total at the sample's time; in between, where the drain asks the
	// driver after the application went on (the sample has its call's time,
	// its value may hold later calls), one of the totals the counters pass
	// through, in order.
	totals := layerTotals(cs)
	at := func(ts uint64) int64 {
		i, _ := slices.BinarySearchFunc(totals, ts, func(t layerTotal, ts uint64) int { return cmp.Compare(t.ts, ts+1) })
		return totals[max(i-1, 0)].total
	}
	next := 0
	for i, s := range usage.Samples {
		if i == 0 || i == len(usage.Samples)-1 {
			if total := at(s.Timestamp); total != s.Value {
				t.Errorf("heap usage %d at %d, the layer's counters hold %d", s.Value, s.Timestamp, total)
			}
			continue
		}
		j := slices.IndexFunc(totals[next:], func(t layerTotal) bool { return t.total == s.Value })
		if j < 0 {
			t.Errorf("heap usage %d at %d: the layer's counters never hold it after %d", s.Value, s.Timestamp, totals[next].ts)
			continue
		}
		next += j
	}
}

// layerTotal is the sum of the layer's app and driver usage tracks from ts
// on.
type layerTotal struct {
	ts    uint64
	total int64
}

// layerTotals is the layer's total after each change of its usage tracks,
// in time order.
func layerTotals(cs map[string]*decode.CounterSeries) []layerTotal {
	type change struct {
		ts    uint64
		delta int64
	}
	var changes []change
	for name, c := range cs {
		if !strings.HasPrefix(name, "vulkan.mem.app.usage.") && !strings.HasPrefix(name, "vulkan.mem.driver.usage.") {
			continue
		}
		var v int64
		for _, x := range c.Samples {
			changes = append(changes, change{x.Timestamp, x.Value - v})
			v = x.Value
		}
	}
	slices.SortStableFunc(changes, func(a, b change) int { return cmp.Compare(a.ts, b.ts) })
	out := []layerTotal{{0, 0}}
	for _, c := range changes {
		last := &out[len(out)-1]
		if c.ts == last.ts {
			last.total += c.delta
		} else {
			out = append(out, layerTotal{c.ts, last.total + c.delta})
		}
	}
	return out
}
