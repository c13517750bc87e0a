package memreport_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/demo/account"
	"github.com/vkgen/vkgen/internal/perfettotools"
	"github.com/vkgen/vkgen/internal/vktest"
	"github.com/vkgen/vkgen/layer/memreport"
	"github.com/vkgen/vkgen/layer/memreport/accounting"
	"github.com/vkgen/vkgen/perfetto/decode"
)

// The integration tests run demo/demo.c through the real loader on lavapipe
// (no VK_EXT_device_memory_report there: the fallback path) with the layer
// library built by scripts/build-layers.sh, and check the decoded trace
// against what the program printed.

const (
	validation = "VK_LAYER_KHRONOS_validation"
	dmrLayer   = "VK_LAYER_VKGEN_DeviceMemoryReport"
	dmLayer    = "VK_LAYER_VKGEN_DebugMarker"
)

// setup builds the layer library and demo/demo.c (internal/vktest), or
// skips; the library's directory and the demo's path are left in built.
func setup(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the layer library; skipped with -short")
	}
	built.libDir = vktest.Layers(t)
	built.demo = vktest.Program(t, "demo/demo.c")
}

var built struct{ libDir, demo string }

// demoRun is what the demo printed and the trace it produced.
type demoRun struct {
	stdout, stderr string
	out            *account.Output
	trace          *decode.Trace
}

// runDemo runs the demo with layers enabled and a trace; trace_processor
// must read the trace with a clean stats table.
func runDemo(t *testing.T, layers []string, args ...string) *demoRun {
	t.Helper()
	tracePath := filepath.Join(t.TempDir(), "demo.pftrace")
	cmd := exec.Command(built.demo, args...)
	cmd.Env = append(vktest.Env(t, layers...), "VK_VKGEN_TRACE_FILE="+tracePath)
	var so, se strings.Builder
	cmd.Stdout, cmd.Stderr = &so, &se
	if err := cmd.Run(); err != nil {
		t.Fatalf("demo %v: %v\n%s\n%s", args, err, so.String(), se.String())
	}
	r := parseDemo(t, so.String(), se.String(), tracePath)
	perfettotools.CheckStats(t, tracePath)
	return r
}

// parseDemo reads what the demo printed and decodes its trace.
func parseDemo(t *testing.T, stdout, stderr, tracePath string) *demoRun {
	t.Helper()
	r := &demoRun{stdout: stdout, stderr: stderr}
	var err error
	if r.out, err = account.Parse(stdout); err != nil {
		t.Fatal(err)
	}
	if len(r.out.Resources) < 10 || len(r.out.Memories) < 3 {
		t.Fatalf("demo printed too little:\n%s", r.stdout)
	}
	if r.trace, err = decode.ReadFile(tracePath); err != nil {
		t.Fatal(err)
	}
	return r
}

// event is a decoded instant of the layer's category.
type event struct {
	ts   uint64
	name string
	args map[string]string
}

func layerEvents(tr *decode.Trace) []event {
	var out []event
	for _, p := range tr.Instants() {
		if !slices.Contains(p.Event.Categories, memreport.Category) {
			continue
		}
		e := event{ts: p.Timestamp, name: p.Event.Name, args: map[string]string{}}
		for _, a := range p.Event.Annotations {
			e.args[a.Name] = a.Value()
		}
		out = append(out, e)
	}
	slices.SortStableFunc(out, func(a, b event) int {
		switch {
		case a.ts < b.ts:
			return -1
		case a.ts > b.ts:
			return 1
		}
		return 0
	})
	return out
}

func u(v uint64) string { return strconv.FormatUint(v, 10) }

// checkRun verifies events and counters against the demo's own account.
func checkRun(t *testing.T, r *demoRun) {
	t.Helper()
	evs := layerEvents(r.trace)
	count := func(name string, want map[string]string) (n int, last event) {
		for _, e := range evs {
			if e.name != name {
				continue
			}
			ok := true
			for k, v := range want {
				ok = ok && e.args[k] == v
			}
			if ok {
				n, last = n+1, e
			}
		}
		return n, last
	}

	// Allocations: one CREATE and one DESTROY each, nothing for the
	// allocation the driver refused.
	if n, _ := count(memreport.AllocationEventName, map[string]string{"operation": "CREATE"}); n != len(r.out.Memories) {
		t.Errorf("%d CREATE events, want %d (one per successful vkAllocateMemory)", n, len(r.out.Memories))
	}
	var total uint64
	for _, m := range r.out.Memories {
		name := m.Name
		total += m.Size
		// Names of memory objects. One is given through
		// vkDebugMarkerSetObjectNameEXT when the DebugMarker layer offers
		// it; lavapipe does not implement it, so this layer never sees that
		// call, and the name reaches its event through the shared store.
		if n, _ := count(memreport.ObjectNameEventName, map[string]string{"object_type": "8", "object_handle": u(m.Handle), "object_name": name}); n != 1 {
			t.Errorf("memory %s: %d VulkanObjectName events, want 1", name, n)
		}
		for _, op := range []string{"CREATE", "DESTROY"} {
			if n, _ := count(memreport.AllocationEventName, map[string]string{"operation": op, "source": "DEVICE_MEMORY",
				"memory_object_id": u(m.Handle), "object_handle": u(m.Handle), "size": u(m.Size), "offset": "0", "memory_type": "unbound_memory"}); n != 1 {
				t.Errorf("memory %s: %d %s events, want 1", name, n, op)
			}
		}
	}

	// Binds: exact size, offset, memory and cluster; expected counters.
	want := map[string]int64{accounting.TrackName(false, accounting.ClusterUnbound): int64(total)}
	var lastBind uint64
	for _, res := range r.out.Resources {
		m, _ := r.out.Memory(res.Memory)
		cl, src := accounting.ClassifyBuffer(res.Usage, m.Flags), "BUFFER"
		if res.Kind == "image" {
			cl, src = accounting.ClassifyImage(uint32(res.Usage), m.Flags), "IMAGE"
		}
		args := map[string]string{"source": src, "memory_object_id": u(m.Handle), "object_handle": u(res.Handle),
			"size": u(res.Size), "offset": u(res.Offset), "memory_type": cl.String()}
		for _, op := range []string{"BIND", "DESTROY"} {
			args["operation"] = op
			n, e := count(memreport.AllocationEventName, args)
			if n != 1 {
				t.Errorf("%s %s: %d %s events matching %v, want 1", res.Kind, res.Name, n, op, args)
			}
			if op == "BIND" {
				lastBind = max(lastBind, e.ts)
			}
		}
		want[accounting.TrackName(false, cl)] += int64(res.Size)
		want[accounting.TrackName(false, accounting.ClusterUnbound)] -= int64(res.Size)

		// Names: exactly one VulkanObjectName per named object, in this
		// layer's category, even with the DebugMarker layer loaded too.
		typ := "9"
		if res.Kind == "image" {
			typ = "10"
		}
		if n, _ := count(memreport.ObjectNameEventName, map[string]string{"object_type": typ, "object_handle": u(res.Handle), "object_name": res.Name}); n != 1 {
			t.Errorf("%s %s: %d VulkanObjectName events, want 1", res.Kind, res.Name, n)
		}
	}

	// Counters when everything was bound, and 0 at the end.
	counters := r.trace.Counters()
	for _, name := range accounting.TrackNames() {
		cs := counters[name]
		var at, final int64
		if cs != nil {
			for _, s := range cs.Samples {
				if s.Timestamp <= lastBind {
					at = s.Value
				}
			}
			final = cs.Samples[len(cs.Samples)-1].Value
		}
		if at != want[name] {
			t.Errorf("%s = %d after the last bind, want %d", name, at, want[name])
		}
		if final != 0 {
			t.Errorf("%s ends at %d, want 0", name, final)
		}
	}
}

func TestDemoFallbackPath(t *testing.T) {
	setup(t)
	r := runDemo(t, []string{dmrLayer}, "--fail-alloc")
	if !strings.Contains(r.stdout, "failed_allocation result=-2") {
		t.Fatalf("the oversized allocation did not fail as expected:\n%s", r.stdout)
	}
	checkRun(t, r)
	// The refused allocation is one failure event, of its size and heap.
	var fails []string
	for _, e := range layerEvents(r.trace) {
		if e.name == memreport.FailureEventName {
			fails = append(fails, e.args["source"]+" "+e.args["size"]+" heap="+e.args["heap"])
		}
	}
	if want := []string{"DEVICE_MEMORY " + u(1<<62) + " heap=0"}; !slices.Equal(fails, want) {
		t.Errorf("failure events %q, want %q", fails, want)
	}
	// The DebugMarker layer is in the library but not enabled: it must
	// publish nothing, although the names are in the store it shares.
	if n := len(r.trace.ObjectNames()); n != 0 {
		t.Errorf("%d VkDebugUtilsObjectName packets without the DebugMarker layer enabled, want 0", n)
	}
}

// TestDemoDebugMarkerOnly: with only the DebugMarker layer enabled, this
// layer publishes nothing (no events, no counters) and DebugMarker names the
// demo's objects.
func TestDemoDebugMarkerOnly(t *testing.T) {
	setup(t)
	if _, err := os.Stat(filepath.Join(built.libDir, "VkLayer_vkgen_debugmarker.json")); err != nil {
		t.Skip("DebugMarker layer not built")
	}
	r := runDemo(t, []string{dmLayer})
	if evs := layerEvents(r.trace); len(evs) != 0 {
		t.Errorf("%d %s events with the layer disabled, e.g. %+v", len(evs), memreport.Category, evs[0])
	}
	for name := range r.trace.Counters() {
		if strings.HasPrefix(name, "vulkan.mem.") {
			t.Errorf("counter %s recorded with the layer disabled", name)
		}
	}
	if len(r.trace.ObjectNames()) == 0 {
		t.Error("no VkDebugUtilsObjectName packets from the DebugMarker layer")
	}
}

func TestDemoWithDebugMarkerAndValidation(t *testing.T) {
	setup(t)
	if _, err := os.Stat("/usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json"); err != nil {
		t.Skip("vulkan-validationlayers not installed")
	}
	man, _ := filepath.Glob(filepath.Join(built.libDir, "VkLayer_vkgen_debugmarker.json"))
	layers := []string{dmrLayer, validation}
	if len(man) == 1 {
		layers = []string{dmLayer, dmrLayer, validation}
	} else {
		t.Log("DebugMarker layer not built; running DeviceMemoryReport with validation only")
	}
	orders := [][]string{layers, slices.Concat([]string{validation}, layers[:len(layers)-1])}
	if len(layers) == 3 { // and the two vkgen layers the other way round
		orders = append(orders, []string{dmrLayer, dmLayer, validation})
	}
	for _, order := range orders {
		t.Run(strings.Join(order, ","), func(t *testing.T) {
			r := runDemo(t, order)
			if !strings.Contains(r.stdout, "validation_messages=0\n") {
				t.Errorf("validation reported messages:\n%s\n%s", r.stdout, r.stderr)
			}
			checkRun(t, r)
		})
	}
}

// TestRecordedRun applies the same checks to a run recorded elsewhere by
// demo/run.sh (e.g. on another GPU): VKGEN_MEMREPORT_RUN=DIR holding
// demo.out and demo.pftrace.
func TestRecordedRun(t *testing.T) {
	dir := os.Getenv("VKGEN_MEMREPORT_RUN")
	if dir == "" {
		t.Skip("VKGEN_MEMREPORT_RUN not set")
	}
	out, err := os.ReadFile(filepath.Join(dir, "demo.out"))
	if err != nil {
		t.Fatal(err)
	}
	checkRun(t, parseDemo(t, string(out), "", filepath.Join(dir, "demo.pftrace")))
}
