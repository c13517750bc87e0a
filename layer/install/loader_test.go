package install

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/internal/vktest"
	"github.com/vkgen/vkgen/perfetto/decode"
)

// userInstall installs the built layers for a throw-away user (HOME and
// XDG_DATA_HOME in a temporary folder, prefix ~/.local) and returns the
// environment of a run: lavapipe, that user, no layer variables.
func userInstall(t *testing.T) []string {
	t.Helper()
	home := t.TempDir()
	prefix := filepath.Join(home, ".local")
	if _, err := Install(Options{From: vktest.Layers(t), Prefix: prefix, Layers: []string{"debugmarker", "memreport"}}); err != nil {
		t.Fatal(err)
	}
	env := []string{
		"VK_ICD_FILENAMES=" + vktest.LavapipeICD,
		"XDG_RUNTIME_DIR=" + t.TempDir(),
		"NODEVICE_SELECT=1",
		"HOME=" + home,
		"XDG_DATA_HOME=" + filepath.Join(prefix, "share"),
	}
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k == "PATH" || k == "LANG" {
			env = append(env, kv)
		}
	}
	return env
}

func runIn(t *testing.T, env []string, name string, args ...string) (stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = env
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %v: %v\nstdout:\n%s\nstderr:\n%s", name, args, err, so.String(), se.String())
	}
	return so.String(), se.String()
}

// traceNames returns the object names in the VulkanObjectName events of a
// trace, or nil when the file does not exist.
func traceNames(t *testing.T, path string) map[string]bool {
	t.Helper()
	if _, err := os.Stat(path); os.IsNotExist(err) {
		return nil
	}
	tr, err := decode.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	names := map[string]bool{}
	for _, p := range tr.Instants() {
		if a, ok := p.Event.Arg("object_name"); ok && p.Event.Name == "VulkanObjectName" {
			names[a.Str] = true
		}
	}
	return names
}

func TestUserInstallListsLayersWithoutEnvironment(t *testing.T) {
	env := userInstall(t)
	out, _ := runIn(t, env, "vulkaninfo", "--summary")
	for _, name := range []string{"VK_LAYER_VKGEN_DebugMarker", "VK_LAYER_VKGEN_DeviceMemoryReport"} {
		if !strings.Contains(out, name) {
			t.Errorf("vulkaninfo --summary does not list %s:\n%s", name, out)
		}
	}
}

// TestImplicitLayersOneVariableEach runs the demo through the user-local
// install: without the variables the library is never mapped and no trace
// is written; VKGEN_MEMREPORT=1 VKGEN_DEBUGMARKER=1 record every buffer and
// image name the demo sets; DISABLE_VKGEN_MEMREPORT=1 wins over the enable
// variable.
func TestImplicitLayersOneVariableEach(t *testing.T) {
	env := userInstall(t)
	demo := vktest.Program(t, "demo/demo.c")
	dir := t.TempDir()

	off := filepath.Join(dir, "off.pftrace")
	_, stderr := runIn(t, append(env, "VK_VKGEN_TRACE_FILE="+off, "LD_DEBUG=files"), demo)
	if strings.Contains(stderr, Library) {
		t.Errorf("without VKGEN_* the library was loaded:\n%s", grepLines(stderr, Library))
	}
	if _, err := os.Stat(off); err == nil {
		t.Error("without VKGEN_* a trace was written")
	}

	on := filepath.Join(dir, "on.pftrace")
	stdout, _ := runIn(t, append(env, "VK_VKGEN_TRACE_FILE="+on, "VKGEN_MEMREPORT=1", "VKGEN_DEBUGMARKER=1"), demo)
	want := regexp.MustCompile(`(?m)^(?:buffer|image) (\S+) `).FindAllStringSubmatch(stdout, -1)
	if len(want) == 0 {
		t.Fatalf("demo printed no buffers or images:\n%s", stdout)
	}
	got := traceNames(t, on)
	for _, m := range want {
		if !got[m[1]] {
			t.Errorf("name %q of the demo is not in the trace (names: %v)", m[1], got)
		}
	}

	disabled := filepath.Join(dir, "disabled.pftrace")
	runIn(t, append(env, "VK_VKGEN_TRACE_FILE="+disabled, "VKGEN_MEMREPORT=1", "DISABLE_VKGEN_MEMREPORT=1"), demo)
	if _, err := os.Stat(disabled); err == nil {
		t.Error("DISABLE_VKGEN_MEMREPORT=1 did not keep the layer out")
	}
}

// TestImplicitLayersVkcube runs vkcube under xvfb through the user-local
// install, with and without the variables.
func TestImplicitLayersVkcube(t *testing.T) {
	for _, tool := range []string{"vkcube", "xvfb-run"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed (scripts/setup.sh installs vulkan-tools and xvfb)", tool)
		}
	}
	env := userInstall(t)
	dir := t.TempDir()
	off, on := filepath.Join(dir, "off.pftrace"), filepath.Join(dir, "on.pftrace")
	runIn(t, append(env, "VK_VKGEN_TRACE_FILE="+off), "xvfb-run", "-a", "vkcube", "--c", "20")
	if _, err := os.Stat(off); err == nil {
		t.Error("vkcube without VKGEN_*: a trace was written")
	}
	runIn(t, append(env, "VK_VKGEN_TRACE_FILE="+on, "VKGEN_MEMREPORT=1"), "xvfb-run", "-a", "vkcube", "--c", "20")
	tr, err := decode.ReadFile(on)
	if err != nil {
		t.Fatalf("vkcube with VKGEN_MEMREPORT=1: %v", err)
	}
	allocs := 0
	for _, p := range tr.Instants() {
		if p.Event.Name == "VulkanMemoryAllocation" {
			allocs++
		}
	}
	if allocs == 0 {
		t.Error("vkcube with VKGEN_MEMREPORT=1: no VulkanMemoryAllocation event in the trace")
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
