package tracing

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/internal/perfettotools"
	"github.com/vkgen/vkgen/perfetto"
	"github.com/vkgen/vkgen/perfetto/decode"
)

// freshWarnings forgets every warning and returns what Warn prints.
func freshWarnings(t *testing.T) *bytes.Buffer {
	t.Helper()
	var out bytes.Buffer
	warnings.mu.Lock()
	warnings.kept, warnings.dropped, warnings.out = nil, 0, &out
	warnings.mu.Unlock()
	t.Cleanup(func() {
		warnings.mu.Lock()
		warnings.kept, warnings.dropped, warnings.out = nil, 0, os.Stderr
		warnings.mu.Unlock()
	})
	return &out
}

// warningsIn lists a trace's vkgen.warning events as "key: message".
func warningsIn(t *testing.T, b []byte) []string {
	t.Helper()
	tr, err := decode.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range tr.Instants() {
		if p.Event.Name == "vkgen.warning" {
			k, _ := p.Event.Arg("key")
			m, _ := p.Event.Arg("message")
			out = append(out, k.Str+": "+m.Str)
		}
	}
	return out
}

// A warning is printed once and reaches running sessions live, sessions
// that start later by replay, and sessions whose filter takes no category.
func TestWarnReachesEverySession(t *testing.T) {
	printed := freshWarnings(t)
	var early, filtered, late bytes.Buffer
	start := func(name string, w *bytes.Buffer, o perfetto.Options) *perfetto.Session {
		s, err := perfetto.StartSession(name, perfetto.WriterOutput(w), o)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s1 := start("early", &early, perfetto.Options{})
	s2 := start("filtered", &filtered, perfetto.Options{CategoryFilter: func(perfetto.Category) bool { return false }})
	Warn("test.a", "first")
	Warn("test.a", "first")
	Warn("test.a", "second")
	s3 := start("late", &late, perfetto.Options{})
	for _, s := range []*perfetto.Session{s1, s2, s3} {
		if err := s.Stop(); err != nil {
			t.Fatal(err)
		}
	}
	if printed.String() != "vkgen: first\nvkgen: second\n" {
		t.Errorf("printed %q", printed.String())
	}
	for name, b := range map[string][]byte{"early": early.Bytes(), "filtered": filtered.Bytes(), "late": late.Bytes()} {
		if got := strings.Join(warningsIn(t, b), "|"); got != "test.a: first|test.a: second" {
			t.Errorf("%s session: warnings %q", name, got)
		}
	}
}

// Warnings are bounded: past MaxWarnings they are counted, not printed or
// kept, and a session learns how many it misses.
func TestWarningsAreBounded(t *testing.T) {
	printed := freshWarnings(t)
	for i := range 3 * MaxWarnings {
		Warn("test.flood", fmt.Sprintf("flood %d", i))
	}
	var b bytes.Buffer
	s, err := perfetto.StartSession("bounded", perfetto.WriterOutput(&b), perfetto.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(printed.String(), "\n"); n != MaxWarnings+1 {
		t.Errorf("printed %d lines, want %d", n, MaxWarnings+1)
	}
	got := warningsIn(t, b.Bytes())
	want := fmt.Sprintf("warnings.dropped: %d more warnings were not printed or recorded (more than %d)", 2*MaxWarnings, MaxWarnings)
	if len(got) != MaxWarnings+1 || got[MaxWarnings] != want {
		t.Errorf("%d warnings in the trace, last %q; want %d, last %q", len(got), got[len(got)-1], MaxWarnings+1, want)
	}
}

// Issue 28: VK_VKGEN_TRACE_CATEGORIES=VulkanDeviceMemoryReprot (or Nope,
// or *) recorded nothing, silently. Now an entry naming no category is
// reported on stderr and in the trace, "*" and trailing-* patterns match
// as in Perfetto's track_event config, other wildcards are refused by
// name, and with nothing valid left every category is recorded. The
// warning is read back with the SQL of docs/install.md by the real
// trace_processor. vkgen.trace_categories = Nope in vk_layer_settings.txt is
// reported with the file and line.
func TestTraceCategoryPatterns(t *testing.T) {
	bin := perfettotools.BinDir(t)
	vulkanA, vulkanB := perfetto.NewCategory("VulkanTestA"), perfetto.NewCategory("VulkanTestB")
	other := perfetto.NewCategory("tracing.other")
	ev := perfetto.NewEventName("tracing.pattern")
	dir := t.TempDir()
	t.Setenv(EnvSystem, "0")
	settingsFile := filepath.Join(dir, "vk_layer_settings.txt")
	if err := os.WriteFile(settingsFile, []byte("vkgen.trace_categories = Nope\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for i, c := range []struct{ value, recorded, reported string }{
		{"VulkanDeviceMemoryReprot", "VulkanTestA,VulkanTestB,tracing.other", `VulkanDeviceMemoryReprot names no category`},
		{"Nope", "VulkanTestA,VulkanTestB,tracing.other", `Nope names no category`},
		{"", "VulkanTestA,VulkanTestB,tracing.other", `trace_categories from ` + settingsFile + `:1: Nope names no category`},
		{"*", "VulkanTestA,VulkanTestB,tracing.other", ""},
		{"VulkanTest*", "VulkanTestA,VulkanTestB", ""},
		{"Vulkan?estA, tracing.other", "tracing.other", `Vulkan?estA: only a trailing * is a wildcard`},
	} {
		printed := freshWarnings(t)
		trace := filepath.Join(dir, fmt.Sprintf("%d.pftrace", i))
		t.Setenv(EnvTraceFile, trace)
		t.Setenv("VK_VKGEN_TRACE_CATEGORIES", c.value) // "": the settings file's line applies
		t.Setenv(EnvSettingsPath, settingsFile)
		if err := Start(); err != nil {
			t.Fatal(err)
		}
		for _, cat := range []perfetto.Category{vulkanA, vulkanB, other} {
			perfetto.Instant(cat, ev)
		}
		if err := perfetto.StopAll(); err != nil {
			t.Fatal(err)
		}
		rows, err := perfettotools.QueryErr(bin, trace, "SELECT GROUP_CONCAT(cat) AS cats FROM (SELECT cat FROM slice WHERE name = 'tracing.pattern' ORDER BY cat)")
		if err != nil {
			t.Fatal(err)
		}
		if got := rows.Column("cats"); len(got) != 1 || got[0] != c.recorded {
			t.Errorf("%q: recorded %v, want %s", c.value, got, c.recorded)
		}
		// trace_processor's CSV leaves the quotes in a message unescaped
		warned, err := perfettotools.QueryErr(bin, trace, "SELECT replace(message, '\"', '') AS message FROM ("+installWarningsSQL+")")
		if err != nil {
			t.Fatal(err)
		}
		msgs := strings.Join(warned.Column("message"), "\n")
		if c.reported == "" && (msgs != "" || printed.Len() != 0) {
			t.Errorf("%q: warned %q, printed %q", c.value, msgs, printed.String())
		}
		if c.reported != "" && (!strings.Contains(msgs, c.reported) || strings.Count(strings.ReplaceAll(printed.String(), `"`, ""), c.reported) != 1) {
			t.Errorf("%q: want %q in the trace's warnings %q and printed once in %q", c.value, c.reported, msgs, printed.String())
		}
	}
}

// installWarningsSQL is the query docs/install.md gives for a trace's
// warnings.
const installWarningsSQL = `SELECT ts,
  extract_arg(arg_set_id, 'debug.key') AS key,
  extract_arg(arg_set_id, 'debug.message') AS message
FROM slice WHERE name = 'vkgen.warning' ORDER BY ts`

// Issue 28: VK_VKGEN_TRACE_FILE=' ' created a file named " ". A blank value
// is reported and treated as unset.
func TestBlankTraceFileIsUnset(t *testing.T) {
	printed := freshWarnings(t)
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv(EnvSystem, "0")
	t.Setenv(EnvSettingsPath, filepath.Join(dir, "none"))
	t.Setenv(EnvTraceFile, " ")
	if err := Start(); err != nil || perfetto.Enabled() {
		t.Fatalf("Start: %v, tracing %v", err, perfetto.Enabled())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("created %v", entries)
	}
	if !strings.Contains(printed.String(), `vkgen: settings: trace_file from VK_VKGEN_TRACE_FILE: " " is blank; treated as unset`) {
		t.Errorf("printed %q", printed.String())
	}
}
