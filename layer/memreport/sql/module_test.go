// Package sql_test checks the PerfettoSQL module vkgen.memory (vkgen/memory.sql)
// with Perfetto's trace_processor_shell against `vkgen trace summary`
// (package tracesummary): two independent readers of the same trace must
// agree on every number, on the demo's trace and on a multi-thread stress
// trace, and the lifetime slices must span exactly what the instants say.
// The tests that run programs and read their traces run in parallel (each
// records its own traces); every query a test runs on one trace is
// answered by one trace_processor_shell process (a batch), which loads the
// trace and makes the module's tables once. TestModuleRangeKeys writes
// with the in-process session and TestModuleOverTime's frames follow the
// program's pace, so both stay serial.
package sql_test

import (
	"cmp"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/demo/account"
	"github.com/vkgen/vkgen/internal/perfettotools"
	"github.com/vkgen/vkgen/internal/testenv"
	"github.com/vkgen/vkgen/internal/vktest"
	"github.com/vkgen/vkgen/layer/memreport/tracesummary"
	"github.com/vkgen/vkgen/perfetto"
	"github.com/vkgen/vkgen/perfetto/decode"
)

const (
	dmrLayer = "VK_LAYER_VKGEN_DeviceMemoryReport"
	dmLayer  = "VK_LAYER_VKGEN_DebugMarker"
)

func setup(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the layer library and runs Vulkan programs; skipped with -short")
	}
	perfettotools.BinDir(t)
	vktest.Layers(t)
}

// record runs prog with args and the layers, writing a trace; it returns the
// trace's path and what the program printed.
func record(t *testing.T, prog string, layers []string, args ...string) (string, string) {
	t.Helper()
	return recordIn(t, vktest.Env(t, layers...), prog, args...)
}

// recordIn is record in the environment env.
func recordIn(t *testing.T, env []string, prog string, args ...string) (string, string) {
	t.Helper()
	trace := filepath.Join(t.TempDir(), "run.pftrace")
	cmd := exec.Command(prog, args...)
	cmd.Env = append(env, "VK_VKGEN_TRACE_FILE="+trace)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", prog, args, err, out)
	}
	return trace, string(out)
}

// batch gathers the queries of a test on trace, each after the module's
// INCLUDE, for one trace_processor_shell process, and checks the trace's
// stats there: the module's tables cost 1.2 CPU s to make on a frameprog
// trace, once per process.
func batch(t *testing.T, trace string) *perfettotools.Batch {
	t.Helper()
	b := perfettotools.NewBatch(trace, "INCLUDE PERFETTO MODULE vkgen.memory;", "--add-sql-package", moduleDir())
	b.CheckStats(t)
	return b
}

func moduleDir() string { return filepath.Join(testenv.Root(), "layer", "memreport", "sql", "vkgen") }

func summary(t *testing.T, trace string) *tracesummary.Summary {
	t.Helper()
	f, err := os.Open(trace)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := tracesummary.Read(f, trace, tracesummary.Options{Top: 0})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// handle prints a handle trace_processor stored as a signed integer the way
// the summary holds it.
func handle(t *testing.T, s string) string {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("handle %q: %v", s, err)
	}
	return fmt.Sprintf("%#x", uint64(v))
}

func nullAsMinusOne(s string) string {
	if s == "[NULL]" {
		return "-1"
	}
	return s
}

func sorted(rows []string) []string {
	slices.Sort(rows)
	return rows
}

// compare checks the module's objects, counter tracks, leaks and failures
// against the summary of the same trace, row for row, once b has run.
func compare(t *testing.T, b *perfettotools.Batch, sum *tracesummary.Summary) {
	t.Helper()
	objects := b.Add("SELECT type, handle, name, bytes, final_bytes, cluster, created_ns, destroyed_ns, descriptor FROM vkgen_memory_objects")
	clusters := b.Add("SELECT track, peak, final FROM vkgen_memory_clusters ORDER BY track")
	leaks := b.Add("SELECT ns, at, type, handle, name, bytes, cluster, heap, descriptor FROM vkgen_memory_leaks")
	alive := b.Add("SELECT type, handle, name, bytes, cluster, heap FROM vkgen_memory_alive_at_end")
	failures := b.Add("SELECT failed_allocations, failed_bytes FROM vkgen_memory_totals")
	b.Then(func() {
		var want, got []string
		for _, o := range sum.Objects {
			want = append(want, fmt.Sprintf("%s %#x %q %d %d %s %d %d %q", o.Type, o.Handle, o.Name, o.Bytes, o.Final, o.Cluster, o.Created, o.Destroyed, o.Descriptor))
		}
		for _, r := range objects.Rows {
			got = append(got, fmt.Sprintf("%s %s %q %s %s %s %s %s %q", r[0], handle(t, r[1]), r[2], r[3], r[4], r[5], r[6], nullAsMinusOne(r[7]), r[8]))
		}
		if len(want) != sum.ObjectsTotal || len(want) == 0 {
			t.Fatalf("summary has %d of %d objects", len(want), sum.ObjectsTotal)
		}
		if w, g := sorted(want), sorted(got); !slices.Equal(w, g) {
			t.Errorf("objects: module has %d rows, summary %d; first differences:\n%s", len(g), len(w), diff(g, w))
		}

		want, got = nil, nil
		for _, c := range sum.Clusters {
			want = append(want, fmt.Sprintf("%s %d %d", c.Track, c.Peak, c.Final))
		}
		for _, r := range clusters.Rows {
			got = append(got, strings.Join(r, " "))
		}
		if !slices.Equal(got, want) {
			t.Errorf("counter tracks:\n%s", diff(got, want))
		}

		want, got = nil, nil
		for _, l := range sum.Leaks {
			want = append(want, fmt.Sprintf("%d %s %s %#x %q %d %s %d %q", l.Time, l.At, l.Type, l.Handle, l.Name, l.Bytes, l.Cluster, l.Heap, l.Descriptor))
		}
		for _, r := range leaks.Rows {
			got = append(got, fmt.Sprintf("%s %s %s %s %q %s %s %s %q", r[0], r[1], r[2], handle(t, r[3]), r[4], r[5], r[6], r[7], r[8]))
		}
		if !slices.Equal(got, want) {
			t.Errorf("leaks:\n%s", diff(got, want))
		}

		want, got = nil, nil
		for _, l := range sum.AliveAtEnd {
			want = append(want, fmt.Sprintf("%s %#x %q %d %s %d", l.Type, l.Handle, l.Name, l.Bytes, l.Cluster, l.Heap))
		}
		for _, r := range alive.Rows {
			got = append(got, fmt.Sprintf("%s %s %q %s %s %s", r[0], handle(t, r[1]), r[2], r[3], r[4], r[5]))
		}
		if !slices.Equal(got, want) {
			t.Errorf("alive at the end:\n%s", diff(got, want))
		}

		if f, w := failures.Rows[0], []string{strconv.Itoa(sum.AllocationFailures), sum.FailedBytes.String()}; !slices.Equal(f, w) {
			t.Errorf("failures: module %q, summary %q", f, w)
		}
	})
	compareOverTime(t, b, sum)
	compareTotals(t, b, sum)
}

// compareTotals checks the module's totals per heap at peak and end against
// the summary's, and that they add up: unbound = allocated - bound, and
// the app cluster counters at the end hold unbound + resource bytes (each
// binding counts in full there).
func compareTotals(t *testing.T, b *perfettotools.Batch, sum *tracesummary.Summary) {
	t.Helper()
	ends := b.Add("SELECT MAX(ns) FROM vkgen_memory_heap_totals WHERE point = 'end'")
	totals := b.Add(`SELECT heap, point, ns, allocated_bytes, driver_bytes, bound_bytes, unbound_bytes,
	    aliased_bytes, resource_bytes, blocks FROM vkgen_memory_heap_totals`)
	b.Then(func() {
		var want, got []string
		row := func(heap, point string, ns uint64, x tracesummary.Totals) string {
			return fmt.Sprintf("%s %s %d %s %s %s %s %s %s %d", heap, point, ns, x.Allocated, x.Driver, x.Bound, x.Unbound, x.Aliased, x.Resources, x.Blocks)
		}
		var end uint64
		for _, r := range ends.Rows {
			end, _ = strconv.ParseUint(r[0], 10, 64)
		}
		for _, h := range sum.Totals {
			want = append(want, row(h.Heap, "peak", h.PeakNS, h.Peak), row(h.Heap, "end", end, h.Final))
			if h.Final.Unbound != h.Final.Allocated.Minus(h.Final.Bound) || h.Final.Bound.Less(h.Final.Aliased) {
				t.Errorf("heap %s totals do not add up: %+v", h.Heap, h.Final)
			}
		}
		// The clusters' rule for aliasing: each binding counts in full, so the
		// app cluster counters at the end hold unbound + resource bytes, which
		// exceed the allocated bytes by what aliasing counted twice.
		var clusters int64
		for _, c := range sum.Clusters {
			if strings.HasPrefix(c.Track, "vulkan.mem.app.usage.") {
				clusters += c.Final
			}
		}
		if n := len(sum.Totals); n > 0 {
			if all := sum.Totals[n-1].Final; all.Heap != tracesummary.AllHeaps || all.Unbound.Plus(all.Resources).Int64() != clusters {
				t.Errorf("app clusters at the end hold %d bytes, totals %+v (unbound + resources)", clusters, all)
			}
		}
		for _, r := range totals.Rows {
			got = append(got, strings.Join(r, " "))
		}
		if len(want) == 0 || !slices.Equal(sorted(got), sorted(want)) {
			t.Errorf("heap totals:\n%s", diff(got, want))
		}
	})
}

// diff lists the rows only one side has (at most 10 of each).
func diff(got, want []string) string {
	var b strings.Builder
	n := 0
	for _, g := range got {
		if !slices.Contains(want, g) && n < 10 {
			fmt.Fprintf(&b, "  module only:  %s\n", g)
			n++
		}
	}
	n = 0
	for _, w := range want {
		if !slices.Contains(got, w) && n < 10 {
			fmt.Fprintf(&b, "  summary only: %s\n", w)
			n++
		}
	}
	return b.String()
}

// TestModuleOnDemo: the demo with a failed allocation, a reused handle and
// a named leak, through DebugMarker and DeviceMemoryReport on lavapipe.
func TestModuleOnDemo(t *testing.T) {
	t.Parallel()
	setup(t)
	prog := vktest.Program(t, "demo/demo.c")
	trace, out := record(t, prog, []string{dmLayer, dmrLayer}, "--fail-alloc", "--reuse", "--leak")
	acc, err := account.Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	sum := summary(t, trace)
	b := batch(t, trace)
	compare(t, b, sum)
	checkSpec(t, trace, sum)

	// The named leak: both objects of --leak, with their sizes, once each,
	// at vkDestroyDevice.
	var leaks []string
	for _, l := range sum.Leaks {
		leaks = append(leaks, fmt.Sprintf("%s %s %d %s", l.Type, l.Name, l.Bytes, l.At))
	}
	mem, _ := acc.Memory("leak.block")
	var buf account.Resource
	for _, r := range acc.Resources {
		if r.Name == "leak.forgotten" {
			buf = r
		}
	}
	wantLeaks := []string{
		fmt.Sprintf("DEVICE_MEMORY leak.block %d vkDestroyDevice", mem.Size),
		fmt.Sprintf("BUFFER leak.forgotten %d vkDestroyDevice", buf.Size),
	}
	if mem.Size == 0 || buf.Size == 0 || !slices.Equal(sorted(leaks), sorted(wantLeaks)) {
		t.Errorf("leaks %q, want %q", leaks, wantLeaks)
	}
	// What each object is (issue 34): its create info, as the layer
	// described it, and memory that holds resources is an allocation.
	desc := map[string]string{}
	for _, o := range sum.Objects {
		desc[o.Type+" "+o.Name] = o.Cluster + ": " + o.Descriptor
	}
	for k, v := range map[string]string{
		"IMAGE albedo.texture":             "static_texture: image 2D 512x512 R8G8B8A8_UNORM transfer_dst|sampled",
		"IMAGE gbuffer.albedo":             "color_render_target: image 2D 256x256 R8G8B8A8_UNORM sampled|color_attachment",
		"IMAGE depth":                      "depth_stencil_target: image 2D 256x256 D32_SFLOAT depth_stencil_attachment",
		"BUFFER vertices":                  "geometry_mesh: buffer 65536 transfer_dst|vertex",
		"BUFFER upload":                    "staging_transfer: buffer 262144 transfer_src",
		"DEVICE_MEMORY block.host_visible": "allocation: memory type ",
	} {
		if !strings.HasPrefix(desc[k], v) {
			t.Errorf("%s: %q, want %q...", k, desc[k], v)
		}
	}
	// Totals at the peak: every block allocated, the resources bound, the
	// device-local block's tail free; blocks list its layout.
	if n := len(sum.Totals); n == 0 || sum.Totals[n-1].Peak.Bound.Int64() == 0 || sum.Totals[n-1].Peak.Aliased.Int64() != 0 {
		t.Errorf("totals %+v, want bound bytes at the peak and none aliased", sum.Totals)
	}
	m, _ := acc.Memory("block.device_local")
	i := slices.IndexFunc(sum.Blocks, func(b tracesummary.Block) bool { return b.Handle == m.Handle && b.Size == m.Size }) // --reuse: the handle comes back
	if i < 0 {
		t.Fatalf("no layout of block.device_local (%#x) in %+v", m.Handle, sum.Blocks)
	}
	if b := sum.Blocks[i]; len(b.Ranges) < 2 || b.Ranges[0].Offset != 0 || b.Size != m.Size || b.Bound == 0 ||
		len(b.Holes) == 0 || b.Holes[len(b.Holes)-1].Offset+b.Holes[len(b.Holes)-1].Size != b.Size {
		t.Errorf("block.device_local layout %+v", b)
	}
	if len(sum.AliveAtEnd) != 0 { // what a leak event reported is not listed again
		t.Errorf("alive at the end of a clean run: %v", sum.AliveAtEnd)
	}
	// The refused allocation: one failure of 1<<62 bytes.
	if sum.AllocationFailures != 1 || sum.FailedBytes != tracesummary.BytesOf(1<<62) {
		t.Errorf("failures %d (%s bytes), want 1 (%d)", sum.AllocationFailures, sum.FailedBytes, uint64(1)<<62)
	}

	checkLifetimes(t, b, sum)
	// The lifetime slices say what their object is too (the UI shows it).
	descs := b.Add(`SELECT s.name, EXTRACT_ARG(s.arg_set_id, 'debug.descriptor') FROM slice s
	    WHERE s.category = 'VulkanDeviceMemoryReport' AND s.name IN ('albedo.texture', 'vertices') AND s.dur > 0 ORDER BY s.name, s.ts`)
	// A name given after the bind renames the slice: the memory objects
	// are named after vkAllocateMemory, so their lifetimes have two slices
	// (the handle's, then the name's) that meet exactly.
	renamed := b.Add(`SELECT name, slices FROM vkgen_memory_lifetimes WHERE kind = 'VkDeviceMemory' AND name = 'block.device_local'`)
	b.Then(func() {
		if w := [][]string{{"albedo.texture", "memory type 0 heap 0 device_local|host_visible|host_coherent|host_cached"},
			{"albedo.texture", "image 2D 512x512 R8G8B8A8_UNORM transfer_dst|sampled"}, {"vertices", "buffer 65536 transfer_dst|vertex"}}; len(descs.Rows) < 3 ||
			!slices.ContainsFunc(descs.Rows, func(x []string) bool { return slices.Equal(x, w[1]) }) || !slices.ContainsFunc(descs.Rows, func(x []string) bool { return slices.Equal(x, w[2]) }) {
			t.Errorf("lifetime slices' descriptors %q, want among them %q", descs.Rows, w)
		}
		if len(renamed.Rows) != 1 || renamed.Rows[0][1] != "2" {
			t.Errorf("block.device_local lifetime: %v, want 2 slices", renamed.Rows)
		}
	})
	tr, err := decode.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	checkHeapCounters(t, b, tr)
	checkPeak(t, b, tr)
	b.Run(t)
}

// checkLifetimes: every object is one lifetime of slices named by its name,
// on a track under "heap 0" under "VkDevice 0x..." of the program's
// process, lasting exactly from its CREATE/BIND to its DESTROY.
func checkLifetimes(t *testing.T, b *perfettotools.Batch, sum *tracesummary.Summary) {
	t.Helper()
	lifetimes := b.Add(`SELECT kind, name, ts - (SELECT ts FROM vkgen_memory_t0), dur, device, heap FROM vkgen_memory_lifetimes`)
	// Grouping: object tracks -> heap track -> device track, all tracks of
	// the one process, and one device track.
	grouping := b.Add(`
SELECT COUNT(DISTINCT dev.id), COUNT(DISTINCT heap.id), MIN(kind.upid = dev.upid AND heap.upid = dev.upid),
       MIN(dev.parent_id IS NULL), (SELECT COUNT(*) FROM process WHERE upid = MIN(dev.upid) AND pid > 0)
FROM slice s
JOIN process_track kind ON kind.id = s.track_id
JOIN process_track heap ON heap.id = kind.parent_id
JOIN process_track dev ON dev.id = heap.parent_id
WHERE s.category = 'VulkanDeviceMemoryReport' AND s.dur != 0`)
	b.Then(func() {
		kinds := map[string]string{"VkBuffer": "BUFFER", "VkImage": "IMAGE", "VkDeviceMemory": "DEVICE_MEMORY"}
		var want, got []string
		for _, o := range sum.Objects {
			want = append(want, fmt.Sprintf("%s %s %d %d", o.Type, o.Name, o.Created, o.Destroyed-int64(o.Created)))
		}
		for _, r := range lifetimes.Rows {
			got = append(got, fmt.Sprintf("%s %s %s %s", kinds[r[0]], r[1], r[2], r[3]))
			if !strings.HasPrefix(r[4], "VkDevice 0x") || r[5] != "0" {
				t.Errorf("lifetime %q: want device VkDevice 0x... and heap 0", r)
			}
		}
		if !slices.Equal(sorted(got), sorted(want)) {
			t.Errorf("lifetimes (kind, name, start, duration) vs the summary's objects:\n%s", diff(got, want))
		}
		if w := []string{"1", "1", "1", "1", "1"}; len(grouping.Rows) != 1 || !slices.Equal(grouping.Rows[0], w) {
			t.Errorf("track grouping %v, want one device and one heap track of one process:\n%s", grouping.Rows, grouping)
		}
	})
}

// checkHeapCounters: lavapipe has one heap, so every vulkan.mem.heap0.*
// track has exactly the values of its process-wide track, and the module's
// per-heap view names them so.
func checkHeapCounters(t *testing.T, b *perfettotools.Batch, tr *decode.Trace) {
	t.Helper()
	cs := tr.Counters()
	n := 0
	for name, c := range cs {
		rest, ok := strings.CutPrefix(name, "vulkan.mem.heap0.")
		if !ok {
			continue
		}
		n++
		whole := cs["vulkan.mem."+rest]
		if whole == nil || !slices.Equal(values(c.Samples), values(whole.Samples)) {
			t.Errorf("%s values %v, process-wide %v", name, values(c.Samples), whole)
		}
	}
	if n == 0 {
		t.Fatal("no vulkan.mem.heap0.* tracks")
	}
	// A file writes its counter tracks and lifetime lanes with small uuids
	// (perfetto.Options.SmallTrackUUIDs): what the comparisons with the
	// summary read back is that compact encoding.
	lanes := 0
	for uuid, d := range tr.Tracks {
		lane := d.Name == "VkBuffer" || d.Name == "VkImage" || d.Name == "VkDeviceMemory"
		if lane {
			lanes++
		}
		if (lane || d.Counter != nil) && uuid >= 1<<16 {
			t.Errorf("track %q has uuid %#x, want a small one", d.Name, uuid)
		}
	}
	if lanes == 0 {
		t.Error("no lifetime lanes")
	}
	res := b.Add("SELECT COUNT(DISTINCT cluster_track), MIN(heap), MAX(heap) FROM vkgen_memory_heaps")
	b.Then(func() {
		if w := []string{strconv.Itoa(n), "0", "0"}; !slices.Equal(res.Rows[0], w) {
			t.Errorf("vkgen_memory_heaps: %q, want %q", res.Rows[0], w)
		}
	})
}

func values(s []decode.CounterSample) []int64 {
	var out []int64
	for _, x := range s {
		out = append(out, x.Value)
	}
	return out
}

// checkPeak: the module's peak equals the peak of the sum of the usage
// counters as the Go decoder reads them, taken at each allocation event
// (between the counter updates of one call the sum passes through
// intermediate values: a bind adds to its cluster before the unbound bytes
// shrink), and the allocations alive at it add up to it.
func checkPeak(t *testing.T, b *perfettotools.Batch, tr *decode.Trace) {
	t.Helper()
	type sample struct {
		ts    uint64
		track string // "" for an allocation event
		v     int64
	}
	var all []sample
	for name, c := range tr.Counters() {
		if strings.HasPrefix(name, "vulkan.mem.app.usage.") || strings.HasPrefix(name, "vulkan.mem.driver.usage.") {
			for _, s := range c.Samples {
				all = append(all, sample{s.Timestamp, name, s.Value})
			}
		}
	}
	for _, p := range tr.Instants() {
		if p.Event.Name == "VulkanMemoryAllocation" {
			all = append(all, sample{ts: p.Timestamp})
		}
	}
	// Counters first at equal times: an event follows its counter updates.
	slices.SortStableFunc(all, func(a, b sample) int {
		return cmp.Or(cmp.Compare(a.ts, b.ts), cmp.Compare(b.track, a.track))
	})
	last := map[string]int64{}
	var total, peak int64
	for _, s := range all {
		if s.track == "" {
			peak = max(peak, total)
			continue
		}
		total += s.v - last[s.track]
		last[s.track] = s.v
	}
	p := b.Add("SELECT peak_bytes FROM vkgen_memory_peak")
	a := b.Add("SELECT SUM(bytes) FROM vkgen_memory_top_at_peak WHERE type IN ('DEVICE_MEMORY', 'DRIVER')")
	b.Then(func() {
		if w := strconv.FormatInt(peak, 10); peak == 0 || len(p.Rows) != 1 || p.Rows[0][0] != w || a.Rows[0][0] != w {
			t.Errorf("peak: module %v, allocations at it %v; counters %d", p.Rows, a.Rows, peak)
		}
	})
}

// TestModuleOnStress: four threads creating, naming, binding and destroying
// buffers and memory on one device (lavapipe recycles the handles).
func TestModuleOnStress(t *testing.T) {
	t.Parallel()
	setup(t)
	prog := vktest.Program(t, "testdata/vkstress/vkstress.c")
	trace, _ := record(t, prog, []string{dmrLayer}, "--threads", "4", "--iterations", "200")
	sum := summary(t, trace)
	if sum.ObjectsTotal != 2*4*200 {
		t.Errorf("summary has %d objects, want %d (a buffer and its memory per iteration)", sum.ObjectsTotal, 2*4*200)
	}
	b := batch(t, trace)
	compare(t, b, sum)
	checkLifetimes(t, b, sum) // slices from four threads, renames of the memory
	b.Run(t)
}

// TestModuleOnBinds: the module and the summary agree on the traces of the
// other ways memory is bound (layer/memreport/testdata/bindprog.c): batches,
// maintenance4, dedicated and external memory and swapchain images (xvfb)
// on lavapipe; per-bind results, sparse ranges (several bindings of one
// buffer, replaced and shrunk) and video session bindings over the
// memdriver.
func TestModuleOnBinds(t *testing.T) {
	t.Parallel()
	setup(t)
	prog := vktest.Program(t, "layer/memreport/testdata/bindprog.c", "-lxcb")
	for _, c := range []struct{ mode, driver string }{{"core", ""}, {"maint6", "maintenance6"}, {"sparse", "sparse"}, {"video", "video"}} {
		t.Run(c.mode, func(t *testing.T) {
			t.Parallel()
			env := vktest.Env(t, dmrLayer)
			if c.driver != "" {
				env = vktest.DriverEnv(t, c.driver, dmrLayer)
			}
			trace, _ := recordIn(t, env, prog, c.mode)
			b := batch(t, trace)
			compare(t, b, summary(t, trace))
			b.Run(t)
		})
	}
	t.Run("swapchain", func(t *testing.T) {
		t.Parallel()
		if _, err := exec.LookPath("xvfb-run"); err != nil {
			t.Skip("xvfb-run not installed (scripts/setup.sh installs xvfb)")
		}
		trace, _ := recordIn(t, vktest.Env(t, dmrLayer), "xvfb-run", "-a", prog, "swapchain")
		sum := summary(t, trace)
		b := batch(t, trace)
		compare(t, b, sum)
		b.Run(t)
		n := 0
		for _, o := range sum.Objects {
			if o.Cluster == "swapchain" {
				n++
			}
		}
		if n < 3 {
			t.Errorf("%d swapchain images listed, want the swapchain's and the alias", n)
		}
	})
}

// TestModuleRangeKeys: two ranges of one sparse buffer aliasing the same
// memory and offset are two bindings (resource_offset tells them apart) for
// the module as for the summary: one object of both ranges' bytes.
func TestModuleRangeKeys(t *testing.T) {
	trace := synthetic(t, "VulkanMemoryAllocation", func(instant func(...perfetto.Arg), an func(string) perfetto.AnnotationName) {
		rng := func(op string, key uint64) {
			instant(perfetto.String(an("operation"), op), perfetto.String(an("source"), "BUFFER"),
				perfetto.Uint(an("memory_object_id"), 0x100), perfetto.Uint(an("size"), 4096), perfetto.Uint(an("offset"), 0),
				perfetto.Uint(an("object_handle"), 0xb1), perfetto.String(an("memory_type"), "compute_storage"),
				perfetto.Uint(an("resource_offset"), key))
		}
		rng("BIND", 0)
		rng("BIND", 65536)
		rng("DESTROY", 0)
		rng("DESTROY", 65536)
	})
	sum := summary(t, trace)
	if len(sum.Objects) != 1 || sum.Objects[0].Bytes != 8192 {
		t.Fatalf("summary objects %+v, want one of 8192 bytes", sum.Objects)
	}
	b := batch(t, trace)
	compare(t, b, sum)
	b.Run(t)
}

// TestModuleFailedBytesOverflow: 100,000 failed allocations of 2^62 bytes
// sum past 64 bits: the summary says the exact sum, the module NULL with
// failed_bytes_overflowed, never a saturated or wrapped number.
func TestModuleFailedBytesOverflow(t *testing.T) {
	trace := synthetic(t, "VulkanMemoryAllocationFailed", func(instant func(...perfetto.Arg), an func(string) perfetto.AnnotationName) {
		for range 100000 {
			instant(perfetto.String(an("source"), "DEVICE_MEMORY"), perfetto.Uint(an("size"), 1<<62), perfetto.Uint(an("heap"), 0))
		}
	})
	sum := summary(t, trace)
	if want := "461168601842738790400000"; sum.AllocationFailures != 100000 || sum.FailedBytes.String() != want {
		t.Errorf("summary: %d failures of %s bytes, want 100000 of %s", sum.AllocationFailures, sum.FailedBytes, want)
	}
	b := batch(t, trace)
	r := b.Add("SELECT failed_allocations, failed_bytes, failed_bytes_overflowed FROM vkgen_memory_totals")
	b.Run(t)
	if !slices.Equal(r.Rows[0], []string{"100000", "[NULL]", "1"}) {
		t.Errorf("module: %q, want 100000 failures, NULL bytes, overflowed", r.Rows[0])
	}
}

// synthetic writes a trace of the layer's category in which emit writes
// instants of event with the arguments it gives; the test's batch checks
// that trace_processor reads it with a clean stats table.
func synthetic(t *testing.T, event string, emit func(instant func(...perfetto.Arg), an func(string) perfetto.AnnotationName)) string {
	t.Helper()
	perfettotools.BinDir(t)
	trace := filepath.Join(t.TempDir(), "synthetic.pftrace")
	s, err := perfetto.StartFileSession(trace, perfetto.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cat, ev := perfetto.NewCategory("VulkanDeviceMemoryReport"), perfetto.NewEventName(event)
	emit(func(args ...perfetto.Arg) { perfetto.Instant(cat, ev, args...) }, perfetto.NewAnnotationName)
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	return trace
}
