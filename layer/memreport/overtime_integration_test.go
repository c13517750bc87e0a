package memreport_test

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/internal/perfettotools"
	"github.com/vkgen/vkgen/internal/vktest"
	"github.com/vkgen/vkgen/layer/memreport"
	"github.com/vkgen/vkgen/perfetto/decode"
)

// frameRun is what frameprog printed, its stderr and its trace.
type frameRun struct {
	lines  []string
	stderr string
	trace  *decode.Trace
	path   string
}

// runFrameProg runs frameprog over the memdriver (options plus present)
// with DeviceMemoryReport and a trace.
func runFrameProg(t *testing.T, options string, env []string, args ...string) *frameRun {
	t.Helper()
	setup(t)
	prog := vktest.Program(t, "layer/memreport/testdata/frameprog.c")
	r := &frameRun{path: filepath.Join(t.TempDir(), "frameprog.pftrace")}
	cmd := exec.Command(prog, args...)
	// frameprog presents every frame: a window frame only before its first
	// present, which a slow start (a loaded machine, emulation) would add.
	cmd.Env = append(append(vktest.DriverEnv(t, strings.Trim(options+",present", ","), dmrLayer),
		"VK_VKGEN_TRACE_FILE="+r.path, "VK_VKGEN_DEVICEMEMORYREPORT_FRAME_WINDOW_MS=60000"), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	r.stderr = stderr.String()
	if err != nil {
		t.Fatalf("frameprog %v: %v\n%s\n%s", args, err, out, r.stderr)
	}
	r.lines = strings.Split(strings.TrimSpace(string(out)), "\n")
	perfettotools.CheckStats(t, r.path)
	if r.trace, err = decode.ReadFile(r.path); err != nil {
		t.Fatal(err)
	}
	return r
}

// named returns the layer's events of one name, in time order.
func named(tr *decode.Trace, name string) []event {
	var out []event
	for _, e := range layerEvents(tr) {
		if e.name == name {
			out = append(out, e)
		}
	}
	return out
}

// frameTime is when the frame counter reached n (0: never).
func frameTime(tr *decode.Trace, n int64) uint64 {
	if c := tr.Counters()[memreport.FrameTrackName]; c != nil {
		for _, s := range c.Samples {
			if s.Value == n {
				return s.Timestamp
			}
		}
	}
	return 0
}

// growthHandles are a growth event's handles, sorted.
func growthHandles(t *testing.T, e event) []uint64 {
	var out []uint64
	for _, f := range strings.Fields(e.args["handles"]) {
		h, _, _ := strings.Cut(f, ":")
		v, err := strconv.ParseUint(h, 0, 64)
		if err != nil {
			t.Fatalf("handles %q: %v", e.args["handles"], err)
		}
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}

// A program leaking a 64 KiB buffer in its own memory every 10 frames,
// under a steady workload (20 buffers with memory made and freed each
// frame, a ring of buffers living 3 frames), is found within 60 frames (a
// second at 60 fps): one growth event per group (leak.buffer, leak.memory)
// listing exactly the objects leaked by then, and one stderr line each. The
// same program without the leak gives no growth over 300 frames, and its
// frames' activity balances; with growth_frames 200 the leak is none.
func TestGrowthThroughLoader(t *testing.T) {
	r := runFrameProg(t, "", nil, "leak", "120")
	var bufs, mems []uint64
	for _, l := range r.lines {
		if strings.HasPrefix(l, "leak ") {
			if f := field(t, l, "frame"); f <= 30 {
				bufs, mems = append(bufs, field(t, l, "buffer")), append(mems, field(t, l, "memory"))
			}
		}
	}
	gs := named(r.trace, memreport.GrowthEventName)
	if len(gs) != 2 {
		t.Fatalf("%d growth events, want 2: %v\nstderr:\n%s", len(gs), gs, r.stderr)
	}
	by := map[string]event{}
	for _, g := range gs {
		by[g.args["type"]+" "+g.args["object_name"]] = g
	}
	for key, want := range map[string][]uint64{"BUFFER leak.buffer": bufs, "DEVICE_MEMORY leak.memory": mems} {
		g, ok := by[key]
		if !ok {
			t.Fatalf("no growth of %s in %v", key, gs)
		}
		slices.Sort(want)
		if got := growthHandles(t, g); !slices.Equal(got, want) {
			t.Errorf("%s: objects %#x, want %#x", key, got, want)
		}
		if at := frameTime(r.trace, 60); at == 0 || g.ts > at {
			t.Errorf("%s found at %d, after frame 60 (%d)", key, g.ts, at)
		}
		if g.args["bytes_per_second"] == "0" || g.args["objects"] != strconv.Itoa(len(want)) {
			t.Errorf("%s: %v", key, g.args)
		}
	}
	if n := strings.Count(r.stderr, "memory growth:"); n != 2 || !strings.Contains(r.stderr, `BUFFER "leak.buffer" grew`) {
		t.Errorf("stderr has %d growth lines, want 2:\n%s", n, r.stderr)
	}

	// growth_frames 200 (the setting, from the environment): the leak's
	// rises span too few frames.
	r = runFrameProg(t, "", []string{"VK_VKGEN_DEVICEMEMORYREPORT_GROWTH_FRAMES=200"}, "leak", "120")
	if gs := named(r.trace, memreport.GrowthEventName); len(gs) != 0 {
		t.Fatalf("growth with growth_frames 200: %v", gs)
	}

	r = runFrameProg(t, "", nil, "steady", "300")
	if gs := named(r.trace, memreport.GrowthEventName); len(gs) != 0 || strings.Contains(r.stderr, "growth") {
		t.Fatalf("steady program: growth events %v, stderr %s", gs, r.stderr)
	}
	frames := named(r.trace, memreport.FrameEventName)
	if len(frames) != 300 || frameTime(r.trace, 300) == 0 {
		t.Fatalf("%d frame events, frame counter to 300 at %d", len(frames), frameTime(r.trace, 300))
	}
	for _, f := range frames[4:] {
		a := f.args
		if a["allocated"] != a["freed"] || a["bound"] != a["unbound"] || a["allocated"] != a["bound"] ||
			a["allocated"] != a["allocated_heap0_unbound_memory"] || a["bound"] != a["bound_heap0_geometry_mesh"] || a["allocated"] == "0" {
			t.Fatalf("steady frame %v", a)
		}
	}
}

// With a small budget (the memdriver's VK_EXT_memory_budget of 16 MiB),
// allocating 1 MiB a frame crosses 90 % once: one threshold event naming
// the cluster that grew and the largest new allocation; the failed
// allocation after carries the heap's usage, budget and largest objects.
// Without the extension the heap size stands in, and the events say so.
func TestBudgetThroughLoader(t *testing.T) {
	const fail = 12345678
	env := []string{"VKGEN_MEMDRIVER_BUDGET=16777216", "VKGEN_MEMDRIVER_FAIL_SIZE=" + strconv.Itoa(fail)}
	r := runFrameProg(t, "budget", env, "budget", "20")
	th := named(r.trace, memreport.ThresholdEventName)
	if len(th) != 1 {
		t.Fatalf("%d threshold events, want 1: %v", len(th), th)
	}
	a := th[0].args
	usage, _ := strconv.ParseUint(a["usage"], 10, 64)
	if a["heap"] != "0" || a["budget"] != "16777216" || usage*10 < 16777216*9 || a["budget_source"] != "VK_EXT_memory_budget" ||
		a["threshold_percent"] != "90" || a["grew_cluster"] != "unbound_memory" || a["largest_type"] != "DEVICE_MEMORY" ||
		a["largest_bytes"] != "1048576" || !strings.Contains(a["largest_live"], "budget.block DEVICE_MEMORY") {
		t.Fatalf("threshold event %v", a)
	}
	fl := named(r.trace, memreport.FailureEventName)
	if len(fl) != 1 || fl[0].args["heap_budget"] != "16777216" || fl[0].args["budget_source"] != "VK_EXT_memory_budget" ||
		!strings.Contains(fl[0].args["largest_live"], "budget.block DEVICE_MEMORY") || fl[0].args["heap_usage"] == "0" {
		t.Fatalf("failure events %v", fl)
	}

	r = runFrameProg(t, "", env[1:], "budget", "3")
	fl = named(r.trace, memreport.FailureEventName)
	size := r.trace.Counters()[memreport.HeapSizePrefix+"0.size"]
	if size == nil || len(fl) != 1 || fl[0].args["budget_source"] != "heap_size" || fl[0].args["heap_usage"] != strconv.Itoa(3<<20+1<<20) ||
		fl[0].args["heap_budget"] != strconv.FormatInt(size.Samples[0].Value, 10) {
		t.Fatalf("without the extension: heap size %v, failures %v", size, fl)
	}
}
