package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/internal/perfettotools"
	"github.com/vkgen/vkgen/internal/testenv"
	"github.com/vkgen/vkgen/internal/vktest"
	"github.com/vkgen/vkgen/perfetto/decode"
)

// stack returns the environment of a chain with the given layers in that
// order, the first nearest the application: the loader (1.3.239) stacks
// the layers it finds in VK_ADD_LAYER_PATH's order, so each gets a
// directory of its own with a copy of its manifest naming the library by
// its absolute path. A layer name not of this library is a foreign layer:
// plainLayer is testdata/countlayer (a C layer that wraps nothing and hands
// out the next layer's commands it does not intercept), any other Khronos
// validation under that name (the loader would take the system manifest of
// its own name instead of the copy), which wraps handles.
func stack(t *testing.T, layers ...string) []string {
	t.Helper()
	root := t.TempDir()
	own := map[string]string{}
	ms, _ := filepath.Glob(filepath.Join(built.libDir, "VkLayer_vkgen_*.json"))
	for _, m := range ms {
		b, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range built.layers {
			if strings.Contains(string(b), `"`+l+`"`) {
				own[l] = strings.Replace(string(b), `"./libVkLayer_vkgen.so"`, `"`+filepath.Join(built.libDir, "libVkLayer_vkgen.so")+`"`, 1)
			}
		}
	}
	var dirs []string
	for i, l := range layers {
		text, ok := own[l]
		if l == plainLayer {
			text, ok = plainManifest(t), true
		}
		if !ok {
			b, err := os.ReadFile("/usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json")
			if err != nil {
				t.Skipf("no Khronos validation layer for the foreign layer: %v", err)
			}
			text = strings.Replace(string(b), `"VK_LAYER_KHRONOS_validation"`, `"`+l+`"`, 1)
		}
		dir := filepath.Join(root, string(rune('a'+i)))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "layer.json"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, dir)
	}
	return vktest.EnvWith(t, strings.Join(dirs, string(os.PathListSeparator)), layers...)
}

const plainLayer = "VK_LAYER_VKGEN_TEST_count"

// plainManifest builds testdata/countlayer and returns a manifest naming it
// plainLayer.
func plainManifest(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	lib := filepath.Join(dir, "libcountlayer.so")
	if out, err := exec.Command(vktest.CC, "-O2", "-Wall", "-shared", "-fPIC", "-o", lib,
		filepath.Join(testenv.Root(), "testdata", "countlayer", "countlayer.c")).CombinedOutput(); err != nil {
		t.Fatalf("countlayer: %v\n%s", err, out)
	}
	b, _ := json.Marshal(map[string]any{"file_format_version": "1.2.0", "layer": vktest.CountLayerManifest(plainLayer, lib)})
	return string(b)
}

// TestNameRecordedOncePerProcess: whichever layers declaring object_names
// are loaded, and whatever sits between them, each naming call is recorded
// once (counted by the framework's drain, VKGEN_DEFER_STATS): vkprog names
// five times, one an unchanged re-application the name cache filters, so
// four records. A plain C layer between two of this library's layers hands
// the lower one the call directly: the upper one's record covers it. So
// with the forget records of the ends of named objects: vkprog destroys
// its three named objects and the device, four records whatever the chain.
func TestNameRecordedOncePerProcess(t *testing.T) {
	setup(t)
	const dm, mr = "VK_LAYER_VKGEN_DebugMarker", "VK_LAYER_VKGEN_DeviceMemoryReport"
	for _, chain := range [][]string{{dm}, {mr}, {dm, mr}, {mr, dm}, {dm, plainLayer, mr}, {mr, plainLayer, dm}} {
		t.Run(strings.Join(chain, ","), func(t *testing.T) {
			dir := t.TempDir()
			stats := filepath.Join(dir, "defer.tsv")
			env := append(stack(t, chain...), "VK_VKGEN_TRACE_FILE="+filepath.Join(dir, "t.pftrace"), "VKGEN_DEFER_STATS="+stats)
			run(t, env, built.prog)
			b, err := os.ReadFile(stats)
			if err != nil {
				t.Fatal(err)
			}
			runs := map[string]string{}
			for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				if f := strings.Split(l, "\t"); len(f) == 3 {
					runs[f[0]+" "+f[1]] = f[2]
				}
			}
			if got := runs["vkgen object names vkSetDebugUtilsObjectNameEXT"]; got != "4" {
				t.Errorf("%s naming records, want 4 (one per call that changes a name)\n%s", got, b)
			}
			if got := runs["vkgen object names forget"]; got != "4" {
				t.Errorf("%s forget records, want 4 (one per ended named object and the device)\n%s", got, b)
			}
		})
	}
}

// TestNamesRecordedOncePerChain: the layers declaring object_names record
// each naming call once per device chain. The uppermost records it; one
// below it with only this library's layers in between hands out the next
// layer's naming command (vkprog --procaddr asks each layer's own
// vkGetDeviceProcAddr), unless it implements the command for nothing below
// (vkDebugMarkerSetObjectNameEXT, which DebugMarker claims and lavapipe
// lacks); a foreign layer in between makes the one below record too. In
// every order the names reach DebugMarker's trace.
func TestNamesRecordedOncePerChain(t *testing.T) {
	setup(t)
	const (
		dm, mr, ex = "VK_LAYER_VKGEN_DebugMarker", "VK_LAYER_VKGEN_DeviceMemoryReport", "VK_LAYER_VKGEN_example"
		foreign    = "VK_LAYER_VKGEN_TEST_foreign"
		utils      = "vkSetDebugUtilsObjectNameEXT"
		marker     = "vkDebugMarkerSetObjectNameEXT"
		vkgen      = "libVkLayer_vkgen.so"
	)
	for _, c := range []struct {
		chain   []string
		want    map[string]string // "symbol command" -> library, or NULL
		wrapped bool              // a foreign layer wraps handles: the one below names the driver's
	}{
		{[]string{dm, mr}, map[string]string{
			"debugmarker " + utils: vkgen, "memreport " + utils: "libvulkan.so.1",
			"debugmarker " + marker: vkgen, "memreport " + marker: "NULL",
		}, false},
		{[]string{mr, dm}, map[string]string{
			"memreport " + utils: vkgen, "debugmarker " + utils: "libvulkan.so.1",
			"memreport " + marker: vkgen, "debugmarker " + marker: vkgen,
		}, false},
		{[]string{dm, ex, mr}, map[string]string{ // the example hooks names itself, not for the store
			"debugmarker " + utils: vkgen, "example " + utils: vkgen, "memreport " + utils: "libvulkan.so.1",
		}, false},
		{[]string{dm, foreign, mr}, map[string]string{
			"debugmarker " + utils: vkgen, "memreport " + utils: vkgen,
		}, true},
	} {
		t.Run(strings.Join(c.chain, ","), func(t *testing.T) {
			trace := filepath.Join(t.TempDir(), "names.pftrace")
			r := run(t, append(stack(t, c.chain...), "VK_VKGEN_TRACE_FILE="+trace), built.prog, "--procaddr")
			got := map[string]string{}
			for _, l := range strings.Split(r.stdout, "\n") {
				if f := strings.Fields(l); len(f) >= 4 && f[0] == "layerprocaddr" {
					got[f[1]+" "+f[2]] = f[3]
				}
			}
			for k, want := range c.want {
				if got[k] != want {
					t.Errorf("%s's vkGetDeviceProcAddr: %s, want %s", k, got[k], want)
				}
			}
			perfettotools.CheckStats(t, trace)
			tr, err := decode.ReadFile(trace)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			handles := map[uint64]bool{}
			for _, p := range tr.Packets {
				if o := p.ObjectName; o != nil {
					names = append(names, o.Name)
					handles[o.Object] = true
				}
			}
			slices.Sort(names)
			if c.wrapped {
				if len(handles) != 6 {
					t.Errorf("names of %d handles, want 6: 3 objects as the application and as the layer below the wrapping one see them", len(handles))
				}
				names = slices.Compact(names)
			}
			// vkprog names two buffers and an image, re-applies one name and
			// renames a buffer, all after the session started (with the
			// instance): each name is in the trace once.
			if want := []string{"buf-A", "buf-A2", "buf-B", "img"}; !slices.Equal(names, want) {
				t.Errorf("names in DebugMarker's trace %q, want %q", names, want)
			}
		})
	}
}
