// Package docs_test runs every SQL block of the documentation against a
// trace of the demo, so the documented queries cannot drift from the trace
// format: the demo runs once per test binary through the real loader on
// lavapipe with the DebugMarker and DeviceMemoryReport layers, and
// Perfetto's own trace_processor_shell loads its trace.
package docs_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/vkgen/vkgen/demo/account"
	"github.com/vkgen/vkgen/internal/perfettotools"
	"github.com/vkgen/vkgen/internal/testenv"
	"github.com/vkgen/vkgen/internal/vktest"
	"github.com/vkgen/vkgen/layer/memreport/accounting"
	"github.com/vkgen/vkgen/perfetto/decode"
)

var tmp string // this test binary's folder for the demo's trace

func TestMain(m *testing.M) {
	d, err := os.MkdirTemp("", "vkgen-docs-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	tmp = d
	code := m.Run()
	os.RemoveAll(d)
	os.Exit(code)
}

// demoRun is the one run of `demo --reuse`: its account and its trace.
type demoRun struct {
	trace string
	out   *account.Output
	tr    *decode.Trace
}

var run struct {
	once sync.Once
	r    *demoRun
	fail string
}

// theDemo runs the demo on the first call; it skips without lavapipe, gcc,
// the Vulkan headers or ../shared (trace_processor_shell).
func theDemo(t *testing.T) *demoRun {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the layer library and runs the demo; skipped with -short")
	}
	perfettotools.BinDir(t)
	prog := vktest.Program(t, "demo/demo.c")
	env := vktest.Env(t, "VK_LAYER_VKGEN_DebugMarker", "VK_LAYER_VKGEN_DeviceMemoryReport")
	run.once.Do(func() {
		trace := filepath.Join(tmp, "demo.pftrace")
		cmd := exec.Command(prog, "--reuse", "--fail-alloc", "--leak")
		cmd.Env = append(env, "VK_VKGEN_TRACE_FILE="+trace)
		b, err := cmd.Output()
		if err != nil {
			run.fail = fmt.Sprintf("demo --reuse: %v\n%s", err, b)
			return
		}
		r := &demoRun{trace: trace}
		if r.out, err = account.Parse(string(b)); err != nil {
			run.fail = err.Error()
			return
		}
		if r.tr, err = decode.ReadFile(trace); err != nil {
			run.fail = err.Error()
			return
		}
		run.r = r
	})
	if run.fail != "" {
		t.Fatal(run.fail)
	}
	return run.r
}

// TestDemoTraceStats: trace_processor reads the demo's trace without a
// non-zero error or data_loss stat.
func TestDemoTraceStats(t *testing.T) {
	perfettotools.CheckStats(t, theDemo(t).trace)
}

// sqlBlock is one ```sql block of a markdown file in docs/, named by the
// file and its first line.
type sqlBlock struct{ key, sql string }

var fence = regexp.MustCompile("(?s)```sql\n(.*?)```")

func sqlBlocks(t *testing.T) []sqlBlock {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(testenv.Root(), "docs", "*.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no docs/*.md: %v", err)
	}
	var out []sqlBlock
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range fence.FindAllStringSubmatch(string(b), -1) {
			first, _, _ := strings.Cut(m[1], "\n")
			out = append(out, sqlBlock{filepath.Base(f) + ": " + first, m[1]})
		}
	}
	return out
}

var results sync.Map // SQL text -> perfettotools.Result

// query runs a block against the demo's trace once per test binary.
func query(t *testing.T, sql string) perfettotools.Result {
	t.Helper()
	if r, ok := results.Load(sql); ok {
		return r.(perfettotools.Result)
	}
	r := perfettotools.Query(t, theDemo(t).trace, sql)
	results.Store(sql, r)
	return r
}

// expectation is what a documented query must return: all its columns and
// the exact values of the leading columns of every row, from the demo's
// account and the Go decoder's reading of the same trace.
type expectation struct {
	columns []string
	rows    func(*demoRun) [][]string
	// sorted: the rows are compared in sorted order, for queries whose
	// order comes from columns the expectation leaves out (timestamps).
	sorted bool
}

var expected = map[string]expectation{
	"memreport.md: -- Memory per object. An object is one life of a handle: from its first": {
		[]string{"type", "handle", "name", "bytes", "cluster", "first_ts", "destroyed_ts"}, wantObjects, true},
	"memreport.md: -- Peak and final bytes per counter track.": {
		[]string{"track", "peak", "final"}, wantPeakFinal, false},
	"perfetto-system.md: -- Every value of the memory counters.": {
		[]string{"name", "ts", "value"}, wantSamples, false},
	"memreport.md: -- Leaks: what was alive when its device's life ended, named.": {
		[]string{"type", "name", "bytes", "at"}, wantLeaks, false},
	"memreport.md: -- Lifetime slices: device > heap > kind, one slice per name of each life.": {
		[]string{"device", "heap", "kind", "slice", "ended"}, wantSlices, true},
	// the demo's settings are all good: no warning
	"install.md: -- The layers' warnings, in order.": {
		[]string{"ts", "key", "message"}, func(*demoRun) [][]string { return nil }, false},
}

// wantLeaks: the demo's --leak objects, the allocation first (the layer
// reports an allocation, then what is bound in it).
func wantLeaks(r *demoRun) [][]string {
	m, _ := r.out.Memory("leak.block")
	var b account.Resource
	for _, res := range r.out.Resources {
		if res.Name == "leak.forgotten" {
			b = res
		}
	}
	return [][]string{
		{"DEVICE_MEMORY", m.Name, dec(m.Size), "vkDestroyDevice"},
		{"BUFFER", b.Name, dec(b.Size), "vkDestroyDevice"},
	}
}

// wantSlices: every buffer and image one slice under its name; every
// allocation two (its handle's until the demo names it, then the name);
// all on heap 0 of the demo's one device, all ended. The device column is
// checked by its prefix.
func wantSlices(r *demoRun) [][]string {
	var rows [][]string
	for _, m := range r.out.Memories {
		rows = append(rows, []string{"VkDeviceMemory", fmt.Sprintf("VkDeviceMemory %#x", m.Handle), "1"},
			[]string{"VkDeviceMemory", m.Name, "1"})
	}
	for _, res := range r.out.Resources {
		kind := "VkBuffer"
		if res.Kind == "image" {
			kind = "VkImage"
		}
		rows = append(rows, []string{kind, res.Name, "1"})
	}
	return rows
}

// TestDocsSQL runs every ```sql block of docs/*.md and compares its rows
// with the expected ones; a block without expectations fails.
func TestDocsSQL(t *testing.T) {
	r := theDemo(t)
	blocks := sqlBlocks(t)
	for _, b := range blocks {
		t.Run(b.key, func(t *testing.T) {
			want, ok := expected[b.key]
			if !ok {
				t.Fatalf("no expected rows for this SQL block; add them to docs_test.go:\n%s", b.sql)
			}
			res := query(t, b.sql)
			rows := want.rows(r)
			if b.key == "memreport.md: -- Lifetime slices: device > heap > kind, one slice per name of each life." {
				res = deviceAndHeap(t, res)
			}
			got := leading(res, rows)
			if want.sorted {
				slices.SortFunc(got, slices.Compare)
				slices.SortFunc(rows, slices.Compare)
			}
			if !slices.Equal(res.Columns, want.columns) || !slices.EqualFunc(got, rows, slices.Equal) {
				t.Errorf("columns %q, rows:\n%s\nwant columns %q, rows:\n%s", res.Columns, table(got), want.columns, table(rows))
			}
		})
	}
	if len(blocks) != len(expected) {
		t.Errorf("%d SQL blocks in docs/, %d expected: a documented query was removed or its first line changed", len(blocks), len(expected))
	}
}

// deviceAndHeap checks the slice query's device and heap columns (one
// VkDevice, heap 0) and drops them.
func deviceAndHeap(t *testing.T, res perfettotools.Result) perfettotools.Result {
	t.Helper()
	devices := map[string]bool{}
	out := res
	out.Rows = nil
	for _, row := range res.Rows {
		devices[row[0]] = true
		if !strings.HasPrefix(row[0], "VkDevice 0x") || row[1] != "heap 0" {
			t.Errorf("slice row %q: want device VkDevice 0x..., heap 0", row)
		}
		out.Rows = append(out.Rows, row[2:])
	}
	if len(devices) != 1 {
		t.Errorf("slices on %d devices, want 1", len(devices))
	}
	return out
}

// leading cuts each row of res to the width of the expected rows.
func leading(res perfettotools.Result, want [][]string) [][]string {
	n := 0
	if len(want) > 0 {
		n = len(want[0])
	}
	out := make([][]string, len(res.Rows))
	for i, row := range res.Rows {
		out[i] = row[:min(n, len(row))]
	}
	return out
}

func table(rows [][]string) string {
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(strings.Join(r, ",") + "\n")
	}
	return b.String()
}

func hex(v uint64) string { return fmt.Sprintf("%#x", v) }

func dec[T int64 | uint64](v T) string { return fmt.Sprint(v) }

// wantObjects: one row per allocation, buffer and image the demo printed,
// with the cluster the accounting engine gives its usage and memory.
func wantObjects(r *demoRun) [][]string {
	var rows [][]string
	for _, m := range r.out.Memories {
		rows = append(rows, []string{"DEVICE_MEMORY", hex(m.Handle), m.Name, dec(m.Size), "unbound_memory"})
	}
	for _, res := range r.out.Resources {
		m, _ := r.out.Memory(res.Memory)
		cl, typ := accounting.ClassifyBuffer(res.Usage, m.Flags), "BUFFER"
		if res.Kind == "image" {
			cl, typ = accounting.ClassifyImage(uint32(res.Usage), m.Flags), "IMAGE"
		}
		rows = append(rows, []string{typ, hex(res.Handle), res.Name, dec(res.Size), cl.String()})
	}
	return rows
}

// memCounters returns the vulkan.mem.* counter series the Go decoder
// reads, by name.
func memCounters(r *demoRun) (names []string, series map[string][]decode.CounterSample) {
	series = map[string][]decode.CounterSample{}
	for name, cs := range r.tr.Counters() {
		if strings.HasPrefix(name, "vulkan.mem.") && len(cs.Samples) > 0 {
			names = append(names, name)
			series[name] = cs.Samples
		}
	}
	slices.Sort(names)
	return names, series
}

// wantPeakFinal: every track with the Go decoder's peak and final value.
func wantPeakFinal(r *demoRun) [][]string {
	names, series := memCounters(r)
	var rows [][]string
	for _, n := range names {
		s := series[n]
		peak := s[0].Value
		for _, x := range s {
			peak = max(peak, x.Value)
		}
		rows = append(rows, []string{n, dec(peak), dec(s[len(s)-1].Value)})
	}
	return rows
}

// wantSamples: every sample of every track, by track and time.
func wantSamples(r *demoRun) [][]string {
	names, series := memCounters(r)
	var rows [][]string
	for _, n := range names {
		for _, x := range series[n] {
			rows = append(rows, []string{n, dec(x.Timestamp), dec(x.Value)})
		}
	}
	return rows
}

// TestCountersEndAtZero: the documented query gives every memory track a
// final value of 0 (the demo frees everything).
func TestCountersEndAtZero(t *testing.T) {
	res := query(t, blockNamed(t, "memreport.md: -- Peak and final bytes per counter track."))
	if len(res.Rows) == 0 {
		t.Fatal("no vulkan.mem.* tracks")
	}
	for _, row := range res.Rows {
		if row[2] != "0" {
			t.Errorf("%s ends at %s, want 0", row[0], row[2])
		}
	}
}

// TestHandleReuse: lavapipe gives reuse.small the handle of the destroyed
// reuse.big (and both the handle of a buffer of the main part); the
// documented query gives each life of that handle its own row, name, size
// and cluster, in the order the demo bound them, and every object a
// destruction after its first event.
func TestHandleReuse(t *testing.T) {
	r := theDemo(t)
	var big, small account.Resource
	for _, res := range r.out.Resources {
		switch res.Name {
		case "reuse.big":
			big = res
		case "reuse.small":
			small = res
		}
	}
	if big.Handle == 0 || big.Handle != small.Handle {
		t.Fatalf("reuse.big %#x, reuse.small %#x: the driver did not reuse the handle, so this test proves nothing", big.Handle, small.Handle)
	}
	res := query(t, blockNamed(t, "memreport.md: -- Memory per object. An object is one life of a handle: from its first"))
	var got, want []string
	for _, res := range r.out.Resources {
		if res.Kind == "buffer" && res.Handle == big.Handle {
			want = append(want, res.Name+" "+dec(res.Size))
		}
	}
	last := int64(-1)
	for _, row := range res.Rows {
		if row[0] == "BUFFER" && row[1] == hex(big.Handle) {
			got = append(got, row[2]+" "+row[3])
		}
		first, err1 := strconv.ParseInt(row[5], 10, 64)
		destroyed, err2 := strconv.ParseInt(row[6], 10, 64)
		if err1 != nil || err2 != nil || destroyed < first || first < last {
			t.Errorf("row %q: want first_ts in order and a destroyed_ts after it", row)
		}
		last = first
	}
	if !slices.Equal(got, want) || len(want) < 2 {
		t.Errorf("objects of handle %#x: %q, want %q", big.Handle, got, want)
	}
}

// blockNamed returns the docs' SQL block of that key.
func blockNamed(t *testing.T, key string) string {
	t.Helper()
	for _, b := range sqlBlocks(t) {
		if b.key == key {
			return b.sql
		}
	}
	t.Fatalf("docs have no SQL block %q", key)
	return ""
}
