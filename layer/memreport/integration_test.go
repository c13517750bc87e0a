package memreport_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

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
	memories       map[string]demoMemory // by name
	resources      []demoResource
	trace          *decode.Trace
}

type demoMemory struct {
	handle, size uint64
	flags        uint32
}

type demoResource struct {
	kind                        string // buffer or image
	name                        string
	handle, usage, size, offset uint64
	memory                      string
}

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
	return parseDemo(t, so.String(), se.String(), tracePath)
}

// parseDemo reads what the demo printed and decodes its trace.
func parseDemo(t *testing.T, stdout, stderr, tracePath string) *demoRun {
	t.Helper()
	r := &demoRun{stdout: stdout, stderr: stderr, memories: map[string]demoMemory{}}
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 {
			continue
		}
		kv := map[string]string{}
		for _, x := range f[2:] {
			k, v, _ := strings.Cut(x, "=")
			kv[k] = v
		}
		num := func(k string) uint64 {
			v, err := strconv.ParseUint(kv[k], 0, 64)
			if err != nil {
				t.Fatalf("demo line %q: %s: %v", sc.Text(), k, err)
			}
			return v
		}
		switch f[0] {
		case "memory":
			r.memories[f[1]] = demoMemory{num("handle"), num("size"), uint32(num("flags"))}
		case "buffer", "image":
			r.resources = append(r.resources, demoResource{f[0], f[1], num("handle"), num("usage"), num("size"), num("offset"), kv["memory"]})
		}
	}
	if len(r.resources) < 10 || len(r.memories) < 3 {
		t.Fatalf("demo printed too little:\n%s", r.stdout)
	}
	var err error
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
	if n, _ := count(memreport.AllocationEventName, map[string]string{"operation": "CREATE"}); n != len(r.memories) {
		t.Errorf("%d CREATE events, want %d (one per successful vkAllocateMemory)", n, len(r.memories))
	}
	var total uint64
	for name, m := range r.memories {
		total += m.size
		// Names of memory objects. One is given through
		// vkDebugMarkerSetObjectNameEXT when the DebugMarker layer offers
		// it; lavapipe does not implement it, so this layer never sees that
		// call, and the name reaches its event through the shared store.
		if n, _ := count(memreport.ObjectNameEventName, map[string]string{"object_type": "8", "object_handle": u(m.handle), "object_name": name}); n != 1 {
			t.Errorf("memory %s: %d VulkanObjectName events, want 1", name, n)
		}
		for _, op := range []string{"CREATE", "DESTROY"} {
			if n, _ := count(memreport.AllocationEventName, map[string]string{"operation": op, "source": "DEVICE_MEMORY",
				"memory_object_id": u(m.handle), "object_handle": u(m.handle), "size": u(m.size), "offset": "0", "memory_type": "unbound_memory"}); n != 1 {
				t.Errorf("memory %s: %d %s events, want 1", name, n, op)
			}
		}
	}

	// Binds: exact size, offset, memory and cluster; expected counters.
	want := map[string]int64{accounting.TrackName(false, accounting.ClusterUnbound): int64(total)}
	var lastBind uint64
	for _, res := range r.resources {
		m := r.memories[res.memory]
		cl, src := accounting.ClassifyBuffer(res.usage, m.flags), "BUFFER"
		if res.kind == "image" {
			cl, src = accounting.ClassifyImage(uint32(res.usage), m.flags), "IMAGE"
		}
		args := map[string]string{"source": src, "memory_object_id": u(m.handle), "object_handle": u(res.handle),
			"size": u(res.size), "offset": u(res.offset), "memory_type": cl.String()}
		for _, op := range []string{"BIND", "DESTROY"} {
			args["operation"] = op
			n, e := count(memreport.AllocationEventName, args)
			if n != 1 {
				t.Errorf("%s %s: %d %s events matching %v, want 1", res.kind, res.name, n, op, args)
			}
			if op == "BIND" {
				lastBind = max(lastBind, e.ts)
			}
		}
		want[accounting.TrackName(false, cl)] += int64(res.size)
		want[accounting.TrackName(false, accounting.ClusterUnbound)] -= int64(res.size)

		// Names: exactly one VulkanObjectName per named object, in this
		// layer's category, even with the DebugMarker layer loaded too.
		typ := "9"
		if res.kind == "image" {
			typ = "10"
		}
		if n, _ := count(memreport.ObjectNameEventName, map[string]string{"object_type": typ, "object_handle": u(res.handle), "object_name": res.name}); n != 1 {
			t.Errorf("%s %s: %d VulkanObjectName events, want 1", res.kind, res.name, n)
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
