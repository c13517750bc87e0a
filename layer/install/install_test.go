package install

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fakeBuild is a build folder with a library and two manifests.
func fakeBuild(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for short, name := range map[string]string{"memreport": "VK_LAYER_VKGEN_DeviceMemoryReport", "debugmarker": "VK_LAYER_VKGEN_DebugMarker"} {
		m := `{"file_format_version": "1.2.0", "layer": {"name": "` + name + `", "type": "GLOBAL", "library_path": "./` + Library + `",
			"api_version": "1.3.239", "implementation_version": "1", "description": "d", "functions": {"vkGetInstanceProcAddr": "vkgen_` + short + `_GetInstanceProcAddr"},
			"instance_extensions": [{"name": "VK_EXT_layer_settings", "spec_version": "2"}]}}`
		if err := os.WriteFile(filepath.Join(dir, "VkLayer_vkgen_"+short+".json"), []byte(m), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, Library), []byte("ELF"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m["layer"].(map[string]any)
}

func TestInstallUninstall(t *testing.T) {
	dest := t.TempDir()
	o := Options{From: fakeBuild(t), Prefix: "/usr", LibDir: "/usr/lib/x86_64-linux-gnu/vkgen", DestDir: dest, Layers: []string{"memreport"}}
	files, err := Install(o)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"/usr/lib/x86_64-linux-gnu/vkgen/" + Library,
		"/usr/share/vulkan/explicit_layer.d/VkLayer_vkgen_memreport.json",
		"/usr/share/vulkan/implicit_layer.d/VkLayer_vkgen_memreport.json",
	}
	if !reflect.DeepEqual(files, want) {
		t.Fatalf("installed %q, want %q", files, want)
	}
	explicit := readJSON(t, filepath.Join(dest, want[1]))
	implicit := readJSON(t, filepath.Join(dest, want[2]))
	if explicit["library_path"] != want[0] || implicit["library_path"] != want[0] {
		t.Errorf("library_path %v / %v, want %s", explicit["library_path"], implicit["library_path"], want[0])
	}
	if _, ok := explicit["enable_environment"]; ok {
		t.Error("explicit manifest has enable_environment")
	}
	if !reflect.DeepEqual(implicit["enable_environment"], map[string]any{"VKGEN_MEMREPORT": "1"}) ||
		!reflect.DeepEqual(implicit["disable_environment"], map[string]any{"DISABLE_VKGEN_MEMREPORT": "1"}) {
		t.Errorf("implicit variables: %v / %v", implicit["enable_environment"], implicit["disable_environment"])
	}
	// An implicit layer's extensions reach every application: vulkaninfo
	// enables VK_EXT_layer_settings, which Debian 12's loader refuses.
	if _, ok := implicit["instance_extensions"]; ok || explicit["instance_extensions"] == nil {
		t.Errorf("instance extensions: implicit %v (want none), explicit %v", implicit["instance_extensions"], explicit["instance_extensions"])
	}
	if implicit["functions"] == nil || implicit["name"] != "VK_LAYER_VKGEN_DeviceMemoryReport" {
		t.Errorf("implicit manifest lost fields: %v", implicit)
	}
	if _, err := os.Stat(filepath.Join(dest, "/usr/share/vulkan/explicit_layer.d/VkLayer_vkgen_debugmarker.json")); err == nil {
		t.Error("a layer not asked for was installed")
	}
	if _, err := Uninstall(o); err != nil {
		t.Fatal(err)
	}
	for _, f := range append(want, "/usr/lib/x86_64-linux-gnu/vkgen") {
		if _, err := os.Stat(filepath.Join(dest, f)); err == nil {
			t.Errorf("%s left after uninstall", f)
		}
	}
	if _, err := Uninstall(o); err != nil {
		t.Errorf("uninstall of nothing: %v", err)
	}
}

func TestInstallErrors(t *testing.T) {
	build := fakeBuild(t)
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{From: t.TempDir(), Prefix: "/p"}, "no VkLayer_vkgen_*.json manifests"},
		{Options{From: build, Prefix: "/p", Layers: []string{"nosuch"}}, `no layer "nosuch" (have debugmarker, memreport)`},
		{Options{From: build, Prefix: "rel"}, "must be absolute"},
	} {
		tc.o.DestDir = t.TempDir()
		if _, err := Install(tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.o, err, tc.want)
		}
	}
	bad := fakeBuild(t)
	os.WriteFile(filepath.Join(bad, "VkLayer_vkgen_broken.json"), []byte("{"), 0o644)
	if _, err := Install(Options{From: bad, Prefix: "/p", DestDir: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "VkLayer_vkgen_broken.json") {
		t.Errorf("broken manifest: %v", err)
	}
}
