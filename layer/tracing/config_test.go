package tracing

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/layer/settings"
	"github.com/vkgen/vkgen/perfetto"
	"github.com/vkgen/vkgen/perfetto/decode"
)

// The trace file comes from $VK_VKGEN_TRACE_FILE, else vk_layer_settings.txt;
// Start starts it once, and refuses an existing file or an unwritable path
// with an error, leaving tracing off.
func TestTraceFileConfiguration(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvSystem, "0")
	t.Setenv(EnvSettingsPath, filepath.Join(dir, "none"))
	t.Setenv(EnvTraceFile, "")
	if err := Start(); err != nil || perfetto.Enabled() {
		t.Fatalf("unconfigured: %v, tracing on %v", err, perfetto.Enabled())
	}

	t.Setenv(EnvTraceFile, filepath.Join(dir, "t-%p.pftrace"))
	if err := Start(); err != nil {
		t.Fatal(err)
	}
	if err := Start(); err != nil { // the file's session runs: nothing to do
		t.Fatal(err)
	}
	want := filepath.Join(dir, "t-"+strconv.Itoa(os.Getpid())+".pftrace")
	if ss := perfetto.Sessions(); len(ss) != 1 || ss[0].Name() != want {
		t.Fatalf("sessions %v, want one writing %s", ss, want)
	}
	perfetto.VkObjectName(1, 9, 2, "env")
	if err := perfetto.StopAll(); err != nil {
		t.Fatal(err)
	}
	if tr, err := decode.ReadFile(want); err != nil || len(tr.ObjectNames()) != 1 {
		t.Fatalf("env session: %v, want the one name", err)
	}

	// The file exists now (another process's, say: a child run with the
	// same environment): it stays as it is, and this process writes beside
	// it, named with its pid, once however often tracing starts.
	before, _ := os.ReadFile(want)
	for range 2 {
		if err := Start(); err != nil {
			t.Fatalf("existing file: %v", err)
		}
	}
	beside := filepath.Join(dir, "t-"+strconv.Itoa(os.Getpid())+"."+strconv.Itoa(os.Getpid())+".pftrace")
	if ss := perfetto.Sessions(); len(ss) != 1 || ss[0].Name() != beside {
		t.Fatalf("sessions %v, want one writing %s", ss, beside)
	}
	if err := perfetto.StopAll(); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(want); string(after) != string(before) || len(before) == 0 {
		t.Errorf("the existing trace changed: %d bytes, then %d", len(before), len(after))
	}
	// Both taken: refused, and stays refused; tracing stays off.
	for range 2 {
		if err := Start(); err == nil || !strings.Contains(err.Error(), "trace file from "+EnvTraceFile) || !strings.Contains(err.Error(), "already exists") {
			t.Fatalf("existing files: %v", err)
		}
	}
	if perfetto.Enabled() {
		t.Error("tracing on after a refused start")
	}
	t.Setenv(EnvTraceFile, filepath.Join(dir, "no-such-dir", "t.pftrace"))
	if err := Start(); err == nil || perfetto.Enabled() {
		t.Fatalf("unwritable path: %v", err)
	}

	// vk_layer_settings.txt through VK_LAYER_SETTINGS_PATH (a directory).
	t.Setenv(EnvTraceFile, "")
	settings := filepath.Join(dir, "vk_layer_settings.txt")
	trace := filepath.Join(dir, "from-settings-100%%.pftrace")
	if err := os.WriteFile(settings, []byte("# comment\nkhronos_validation.x = 1\n"+SettingTraceFile+" = "+trace+"  # trailing\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvSettingsPath, dir)
	if p, src := TraceFileSetting(); p != filepath.Join(dir, "from-settings-100%.pftrace") || src != settings+":3" {
		t.Fatalf("setting %q from %q", p, src)
	}
	if err := Start(); err != nil {
		t.Fatal(err)
	}
	if err := perfetto.StopAll(); err != nil {
		t.Fatal(err)
	}
	if _, err := decode.ReadFile(filepath.Join(dir, "from-settings-100%.pftrace")); err != nil {
		t.Fatal(err)
	}
}

// trace_categories limits what the trace file records to the categories it
// names; raw object-name packets are recorded whatever it says.
func TestTraceCategories(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "cats.pftrace")
	t.Setenv(EnvSystem, "0")
	t.Setenv(EnvSettingsPath, filepath.Join(dir, "none"))
	t.Setenv(EnvTraceFile, trace)
	t.Setenv("VK_VKGEN_TRACE_CATEGORIES", " tracing.kept , other")
	kept, dropped := perfetto.NewCategory("tracing.kept"), perfetto.NewCategory("tracing.dropped")
	ev := perfetto.NewEventName("tracing.event")
	if err := Start(); err != nil {
		t.Fatal(err)
	}
	perfetto.Instant(kept, ev)
	perfetto.Instant(dropped, ev)
	perfetto.VkObjectName(1, 9, 2, "raw")
	if err := perfetto.StopAll(); err != nil {
		t.Fatal(err)
	}
	tr, err := decode.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	var cats []string
	for _, p := range tr.Instants() {
		if p.Event.Name == "tracing.event" {
			cats = append(cats, p.Event.Categories...)
		}
	}
	if strings.Join(cats, ",") != "tracing.kept" || len(tr.ObjectNames()) != 1 {
		t.Errorf("recorded categories %v and %d object names, want tracing.kept and 1", cats, len(tr.ObjectNames()))
	}
}

// The system producer's shared memory and startup window come from the
// settings (perfetto_smb_kb, perfetto_startup_ms).
func TestSystemConfigFromSettings(t *testing.T) {
	t.Setenv(EnvSettingsPath, filepath.Join(t.TempDir(), "none"))
	c := readConfig("", nil).systemConfig()
	if c.SMBSizeHint != 4<<20 || c.StartupWindow.Milliseconds() != 10000 {
		t.Errorf("defaults: %+v", c)
	}
	t.Setenv("VK_VKGEN_PERFETTO_SMB_KB", "32768")
	t.Setenv("VK_VKGEN_PERFETTO_STARTUP_MS", "0")
	if c := readConfig("", nil).systemConfig(); c.SMBSizeHint != 32<<20 || c.StartupWindow != 0 {
		t.Errorf("from the environment: %+v", c)
	}
}

// Package tracing registers the settings of its settings.json (a binary
// without a layer knows no other).
func TestSettingsKnown(t *testing.T) {
	var keys []string
	for _, d := range settings.Known() {
		keys = append(keys, d.Key)
	}
	want := []string{"trace_file", "trace_buffer_kb", "trace_compress", "trace_categories", "perfetto_system", "perfetto_smb_kb", "vulkan_memory_events", "perfetto_startup_ms"}
	if !slices.Equal(keys, want) {
		t.Errorf("Known = %v, want %v", keys, want)
	}
}
