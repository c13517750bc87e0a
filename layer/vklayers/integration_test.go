package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vkgen/vkgen/internal/vktest"
	"github.com/vkgen/vkgen/layer/example"
)

var (
	buildOnce sync.Once
	built     struct {
		libDir, prog string
		layers       []string // every project layer name
		err          string
	}
)

// setup builds the layer library and testdata/vkprog (internal/vktest) and
// reads the names of every project layer from their manifests, or skips.
func setup(t *testing.T) {
	t.Helper()
	built.libDir = vktest.Layers(t)
	built.prog = vktest.Program(t, "testdata/vkprog/vkprog.c")
	buildOnce.Do(func() {
		ms, _ := filepath.Glob(filepath.Join(built.libDir, "VkLayer_vkgen_*.json"))
		for _, m := range ms {
			var man struct{ Layer struct{ Name string } }
			b, err := os.ReadFile(m)
			if err == nil {
				err = json.Unmarshal(b, &man)
			}
			if err != nil {
				built.err = m + ": " + err.Error()
				return
			}
			built.layers = append(built.layers, man.Layer.Name)
		}
		sort.Strings(built.layers)
	})
	if built.err != "" {
		t.Fatal(built.err)
	}
}

type result struct {
	stdout, stderr string
	reports        []example.Report
}

func run(t *testing.T, env []string, name string, args ...string) result {
	t.Helper()
	out := filepath.Join(t.TempDir(), "example.jsonl")
	cmd := exec.Command(name, args...)
	cmd.Env = append(env, "VKGEN_EXAMPLE_OUT="+out)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %v: %v\nstdout:\n%s\nstderr:\n%s", name, args, err, so.String(), se.String())
	}
	r := result{stdout: so.String(), stderr: se.String()}
	if f, err := os.Open(out); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var rep example.Report
			if err := json.Unmarshal(sc.Bytes(), &rep); err != nil {
				t.Fatalf("report %q: %v", sc.Text(), err)
			}
			r.reports = append(r.reports, rep)
		}
	}
	return r
}

// wantCycle is what the example layer's Go hooks see in one vkprog cycle:
// five naming calls of which one re-applies an unchanged name (filtered in C).
var wantCycle = map[string]int64{
	"vkCreateInstance": 1, "vkCreateDevice": 1, "vkCreateBuffer": 2,
	"vkSetDebugUtilsObjectNameEXT": 4, "vkDestroyInstance": 1,
}

func checkReports(t *testing.T, r result, cycles int) {
	t.Helper()
	if len(r.reports) != cycles {
		t.Fatalf("got %d example reports, want %d (one per vkDestroyInstance)\nstderr:\n%s", len(r.reports), cycles, r.stderr)
	}
	for i, rep := range r.reports {
		if !reflect.DeepEqual(rep.Calls, wantCycle) {
			t.Errorf("cycle %d: hooks saw %v\nwant %v", i, rep.Calls, wantCycle)
		}
		var names []string
		for _, n := range rep.Names {
			names = append(names, n)
		}
		sort.Strings(names)
		if want := []string{"buf-A2", "buf-B", "img"}; !reflect.DeepEqual(names, want) {
			t.Errorf("cycle %d: names %v, want %v", i, names, want)
		}
	}
}

func TestAllLayersSeeExpectedCalls(t *testing.T) {
	setup(t)
	r := run(t, vktest.Env(t, built.layers...), built.prog, "--cycles", "3")
	checkReports(t, r, 3)
	if strings.Contains(r.stderr, "vkgen:") {
		t.Errorf("unexpected vkgen diagnostics:\n%s", r.stderr)
	}
}

func TestStackedWithValidation(t *testing.T) {
	setup(t)
	if _, err := os.Stat("/usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json"); err != nil {
		t.Skip("vulkan-validationlayers not installed")
	}
	const validation = "VK_LAYER_KHRONOS_validation"
	orders := map[string][]string{
		"validation_first": append([]string{validation}, built.layers...),
		"validation_last":  append(append([]string(nil), built.layers...), validation),
	}
	for name, layers := range orders {
		t.Run(name, func(t *testing.T) {
			r := run(t, vktest.Env(t, layers...), built.prog, "--cycles", "2", "--messenger")
			if !strings.Contains(r.stdout, "validation_messages=0\n") {
				t.Errorf("validation reported messages:\n%s\n%s", r.stdout, r.stderr)
			}
			if strings.Contains(r.stderr, "VUID") || strings.Contains(r.stderr, "Validation Error") {
				t.Errorf("validation output on stderr:\n%s", r.stderr)
			}
			checkReports(t, r, 2)
			// Negative control: validation is really in the chain.
			bad := run(t, vktest.Env(t, layers...), built.prog, "--messenger", "--misuse")
			if strings.Contains(bad.stdout, "validation_messages=0\n") || !strings.Contains(bad.stderr, "VUID-VkBufferCreateInfo-size-00912") {
				t.Errorf("--misuse was not reported by validation:\n%s\n%s", bad.stdout, bad.stderr)
			}
		})
	}
}

func TestProcAddrPassThrough(t *testing.T) {
	setup(t)
	parse := func(out string) map[string]string {
		m := map[string]string{}
		for _, l := range strings.Split(out, "\n") {
			if f := strings.Fields(l); len(f) >= 3 && f[0] == "procaddr" {
				m[f[1]] = strings.Join(f[2:], " ")
			}
		}
		return m
	}
	without := parse(run(t, vktest.Env(t), built.prog, "--procaddr").stdout)
	with := parse(run(t, vktest.Env(t, "VK_LAYER_VKGEN_example"), built.prog, "--procaddr").stdout)
	// Not intercepted: the driver's own function, same library and offset.
	const plain = "vkGetImageMemoryRequirements"
	if with[plain] == "" || with[plain] != without[plain] || !strings.HasPrefix(with[plain], "libvulkan_lvp") {
		t.Errorf("%s: with layer %q, without %q; want lavapipe's own pointer", plain, with[plain], without[plain])
	}
	// Intercepted by the example layer.
	if !strings.HasPrefix(with["vkCreateBuffer"], "libVkLayer_vkgen.so") {
		t.Errorf("vkCreateBuffer resolves to %q, want the layer's trampoline", with["vkCreateBuffer"])
	}
	// Intercepted, but lavapipe lacks VK_EXT_debug_marker and the layer does
	// not claim it: no interceptor may be handed out.
	if with["vkDebugMarkerSetObjectNameEXT"] != "NULL" || without["vkDebugMarkerSetObjectNameEXT"] != "NULL" {
		t.Errorf("vkDebugMarkerSetObjectNameEXT: with %q, without %q; want NULL", with["vkDebugMarkerSetObjectNameEXT"], without["vkDebugMarkerSetObjectNameEXT"])
	}
}

func TestPanicInHookIsRecovered(t *testing.T) {
	setup(t)
	env := append(vktest.Env(t, "VK_LAYER_VKGEN_example"), "VKGEN_EXAMPLE_PANIC=vkCreateBuffer")
	r := run(t, env, built.prog, "--cycles", "2")
	if got := strings.Count(r.stderr, "vkgen: VK_LAYER_VKGEN_example: recovered panic in preCreateBuffer"); got != 4 {
		t.Errorf("%d recovered-panic reports, want 4:\n%s", got, r.stderr)
	}
	// vkprog exits non-zero if vkCreateBuffer fails.
	checkReports(t, r, 2)
	if last := r.reports[len(r.reports)-1]; last.Panics != 4 {
		t.Errorf("panics = %d, want 4", last.Panics)
	}
}

// filterInfo drops the lines that legitimately differ when our layers are
// enabled: the loader's notes about VK_INSTANCE_LAYERS and our layers' names.
func filterInfo(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, "VK_LAYER_VKGEN") || strings.Contains(l, "VK_INSTANCE_LAYERS") {
			continue
		}
		out = append(out, l)
	}
	return out
}

func TestVulkaninfoUnchanged(t *testing.T) {
	setup(t)
	if _, err := exec.LookPath("vulkaninfo"); err != nil {
		t.Skip("vulkaninfo (vulkan-tools) not installed")
	}
	without := run(t, vktest.Env(t), "vulkaninfo")
	with := run(t, vktest.Env(t, built.layers...), "vulkaninfo")
	a, b := filterInfo(without.stdout), filterInfo(with.stdout)
	if !reflect.DeepEqual(a, b) {
		for i := 0; i < len(a) && i < len(b); i++ {
			if a[i] != b[i] {
				t.Fatalf("vulkaninfo differs at line %d:\nwithout: %q\nwith:    %q", i+1, a[i], b[i])
			}
		}
		t.Fatalf("vulkaninfo: %d lines without the layers, %d with", len(a), len(b))
	}
}

func TestVkcube(t *testing.T) {
	setup(t)
	for _, tool := range []string{"vkcube", "xvfb-run"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	r := run(t, vktest.Env(t, built.layers...), "xvfb-run", "-a", "vkcube", "--c", "50")
	if len(r.reports) != 1 || r.reports[0].Calls["vkCreateDevice"] != 1 {
		t.Errorf("example layer reports %+v, want one instance with one device", r.reports)
	}
}

// TestGoApplicationKeepsPreemption runs a Go Vulkan application through the
// layers: the layer library's Go runtime takes SIGURG, and without the C
// multiplexer the application's own runtime never sees its preemption
// signals again, so its GC hangs behind a spinning goroutine.
func TestGoApplicationKeepsPreemption(t *testing.T) {
	setup(t)
	app := vktest.GoProgram(t, "./testdata/vkgoapp")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, app)
	cmd.Env = vktest.Env(t, built.layers...)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("Go application hung (lost async preemption):\n%s", out)
	}
	if err != nil || !strings.Contains(string(out), "gc_ms=") {
		t.Fatalf("vkgoapp: %v\n%s", err, out)
	}
}
