package sql_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/internal/perfettotools"
	"github.com/vkgen/vkgen/internal/testenv"
	"github.com/vkgen/vkgen/internal/vktest"
	"github.com/vkgen/vkgen/layer/memreport/tracesummary"
)

// checkSpec runs the trace-summary spec sql/spec/vkgen_memory.textproto
// with trace_processor_shell summarize on trace and checks that every
// metric row equals what `vkgen trace summary` (package tracesummary)
// computed in sum: per cluster, heap and total the peak and final bytes,
// the leak, alive-at-end and failure figures, and per growing type and name
// its growth bytes and events. The tests run it on the traces they record:
// memruns (a leak, a refused allocation), the demo and frameprog leaking
// every 10 frames (two growths). It returns how many (type, name) grew.
func checkSpec(t *testing.T, trace string, sum *tracesummary.Summary) int {
	t.Helper()
	got := specRows(t, trace)
	var want []string
	for _, g := range sum.Groups {
		switch g.Kind {
		case tracesummary.KindCluster, tracesummary.KindHeap, tracesummary.KindTotal:
			if g.Peak != 0 || g.Final != 0 { // a group only objects made (swapchain) has no track
				want = append(want, fmt.Sprintf("group %s %s %d %d", g.Kind, g.Key, g.Peak, g.Final))
			}
		}
	}
	var leaked, alive uint64
	for _, l := range sum.Leaks {
		leaked += l.Bytes
	}
	for _, l := range sum.AliveAtEnd {
		alive += l.Bytes
	}
	want = append(want, fmt.Sprintf("trace %d %d %d %d %d %s", len(sum.Leaks), leaked, len(sum.AliveAtEnd), alive, sum.AllocationFailures, sum.FailedBytes.String()))
	type growthKey struct{ typ, name string }
	growth := map[growthKey][2]uint64{}
	for _, g := range sum.Growths {
		k := growthKey{g.Type, g.Name}
		growth[k] = [2]uint64{growth[k][0] + g.Bytes - min(g.StartBytes, g.Bytes), growth[k][1] + 1}
	}
	for k, v := range growth {
		want = append(want, fmt.Sprintf("growth %s %s %d %d", k.typ, k.name, v[0], v[1]))
	}
	slices.Sort(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") || len(want) < 5 {
		t.Errorf("summarize:\n%s\nvkgen trace summary:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	return len(growth)
}

// specRows runs the spec on trace and returns its rows as "group KIND KEY
// PEAK FINAL" and "trace LEAKS ...", sorted.
func specRows(t *testing.T, trace string) []string {
	t.Helper()
	dir := filepath.Join(testenv.Root(), "layer", "memreport", "sql")
	cmd := exec.Command(filepath.Join(perfettotools.BinDir(t), "trace_processor_shell"), "summarize",
		"--add-sql-package", filepath.Join(dir, "vkgen"), "--metrics-v2", "all",
		trace, filepath.Join(dir, "spec", "vkgen_memory.textproto"))
	cmd.Env = perfettotools.MallocHugePages(os.Environ())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("summarize: %v\n%s", err, out)
	}
	var rows []string
	for _, bundle := range strings.Split(string(out), "metric_bundles {")[1:] {
		id := regexp.MustCompile(`bundle_id: "(\w+)"`).FindStringSubmatch(bundle)[1]
		for _, row := range strings.Split(bundle, "row {")[1:] {
			var f []string
			for _, m := range regexp.MustCompile(`(?:double_value|string_value|int64_value): ("[^"]*"|[-0-9.e+]+)`).FindAllStringSubmatch(row, -1) {
				v := strings.Trim(m[1], `"`)
				if x, err := strconv.ParseFloat(v, 64); err == nil && !strings.HasPrefix(m[0], "string") {
					v = strconv.FormatUint(uint64(x), 10)
				}
				f = append(f, v)
			}
			switch id {
			case "vkgen_memory_group": // dimensions kind, key; values peak, final
				if len(f) != 4 {
					t.Fatalf("group row %q", row)
				}
				rows = append(rows, "group "+strings.Join(f, " "))
			case "vkgen_memory_trace":
				rows = append(rows, "trace "+strings.Join(f, " "))
			case "vkgen_memory_growth": // dimensions type, name; values bytes, events
				if len(f) != 4 {
					t.Fatalf("growth row %q", row)
				}
				rows = append(rows, "growth "+strings.Join(f, " "))
			}
		}
	}
	slices.Sort(rows)
	return rows
}

// TestModuleInlined runs the module the way an engine without SQL
// packages (BigTrace) takes it, as docs/memreport.md says: memory.sql with
// its INCLUDE of vkgen.over_time replaced by over_time.sql, then the
// query, with no --add-sql-package; the groups, totals and growth equal
// those of the module included as a package. The trace (frameprog leaking
// every 10 frames, two growths, 5 short-lived buffers a frame as in
// TestModuleOverTime) is checkSpec's too.
func TestModuleInlined(t *testing.T) {
	t.Parallel()
	setup(t)
	trace, _ := recordIn(t, append(vktest.DriverEnv(t, "present", dmrLayer), "VK_VKGEN_DEVICEMEMORYREPORT_FRAME_WINDOW_MS=60000"),
		vktest.Program(t, "layer/memreport/testdata/frameprog.c"), "leak", "100", "5")
	if s := summary(t, trace); checkSpec(t, trace, s) != 2 {
		t.Errorf("frameprog leak 100 5: growths %+v, want BUFFER and DEVICE_MEMORY leak.*", s.Growths)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(moduleDir(), name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	const include = "INCLUDE PERFETTO MODULE vkgen.over_time;"
	memory := read("memory.sql")
	if strings.Count(memory, include) != 1 {
		t.Fatalf("memory.sql no longer includes %q once: update this test and the BigTrace recipe in docs/memreport.md", include)
	}
	queries := []string{
		"SELECT kind, key, peak_bytes, final_bytes FROM vkgen_memory_groups ORDER BY kind, key",
		"SELECT * FROM vkgen_memory_totals",
		"SELECT type, name, growth_events, growth_bytes FROM vkgen_memory_growth_totals",
	}
	b := batch(t, trace)
	var want []*perfettotools.Result
	for _, q := range queries {
		want = append(want, b.Add(q))
	}
	b.Run(t)
	inlined := perfettotools.Queries(t, trace, strings.Replace(memory, include, read("over_time.sql"), 1), queries)
	for i, q := range queries {
		if got := inlined[i]; got.String() != want[i].String() || len(want[i].Rows) == 0 {
			t.Errorf("%s\ninlined:\n%s\nmodule:\n%s", q, got, want[i])
		}
	}
}
