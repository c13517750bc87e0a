package settings

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"
)

const layer = "VK_LAYER_VKGEN_DeviceMemoryReport"

var defs = []Def{
	{Key: "trace_file", Label: "Trace file", Description: "d", Type: SaveFile, Default: ""},
	{Key: "perfetto_system", Label: "System backend", Description: "d", Type: Bool, Default: true},
	{Key: "buffer_kb", Label: "Buffer", Description: "d", Type: Int, Default: int64(1024), Min: 4, Max: 1 << 20},
}

type env map[string]string

func (e env) get(k string) string { return e[k] }
func (e env) list() []string {
	var out []string
	for k, v := range e {
		out = append(out, k+"="+v)
	}
	return out
}

// resolve runs Resolve with e as the whole environment, cwd as the current
// folder, and returns the values and what was reported.
func resolve(t *testing.T, e env, cwd string, api ...APISetting) (map[string]Value, string) {
	t.Helper()
	var log bytes.Buffer
	if cwd == "" {
		cwd = t.TempDir()
	}
	v := Resolve([]string{layer}, defs, Sources{Getenv: e.get, Environ: e.list, Cwd: cwd, API: api, Warn: logTo(&log)})
	return v, log.String()
}

// logTo is a Sources.Warn writing "key: message" lines to w.
func logTo(w io.Writer) func(key, message string) {
	return func(key, message string) { fmt.Fprintf(w, "%s: %s\n", key, message) }
}

func write(t *testing.T, path, text string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestEnvNames(t *testing.T) {
	got := strings.Join(EnvNames(layer, "trace_file"), " ")
	want := "VK_VKGEN_TRACE_FILE VK_VKGEN_DEVICEMEMORYREPORT_TRACE_FILE VK_DEVICEMEMORYREPORT_TRACE_FILE VK_TRACE_FILE"
	if got != want {
		t.Errorf("EnvNames = %s, want %s", got, want)
	}
	if ns := Namespace(layer); ns != "vkgen_devicememoryreport" {
		t.Errorf("Namespace = %s", ns)
	}
}

func TestDefaults(t *testing.T) {
	v, log := resolve(t, env{}, "")
	if v["trace_file"] != (Value{"", "default"}) || v["perfetto_system"] != (Value{true, "default"}) || v["buffer_kb"] != (Value{int64(1024), "default"}) {
		t.Errorf("defaults: %v", v)
	}
	if log != "" {
		t.Errorf("reported %q with no settings anywhere", log)
	}
}

func TestPrecedence(t *testing.T) {
	cwd := t.TempDir()
	file := write(t, filepath.Join(cwd, "vk_layer_settings.txt"), "vkgen_devicememoryreport.trace_file = /from/file\nvkgen.perfetto_system = off\n")
	api := []APISetting{
		{Layer: layer, Key: "trace_file", Type: apiString, Count: 1, Values: []any{"/from/api"}},
		{Layer: layer, Key: "buffer_kb", Type: apiUint32, Count: 1, Values: []any{int64(64)}},
		{Layer: "VK_LAYER_OTHER_x", Key: "perfetto_system", Type: apiBool32, Count: 1, Values: []any{true}},
	}
	v, log := resolve(t, env{}, cwd, api...)
	if v["trace_file"] != (Value{"/from/file", file + ":1"}) {
		t.Errorf("file over API: %v", v["trace_file"])
	}
	if v["perfetto_system"] != (Value{false, file + ":2"}) {
		t.Errorf("vkgen.<key> file line: %v", v["perfetto_system"])
	}
	if v["buffer_kb"] != (Value{int64(64), "VkLayerSettingsCreateInfoEXT"}) {
		t.Errorf("API over default: %v", v["buffer_kb"])
	}
	for i, name := range EnvNames(layer, "trace_file") {
		e := env{}
		for _, n := range EnvNames(layer, "trace_file")[i:] {
			e[n] = "/from/" + n
		}
		v, _ = resolve(t, e, cwd, api...)
		if v["trace_file"] != (Value{"/from/" + name, name}) {
			t.Errorf("with %v set: %v, want %s to win", e, v["trace_file"], name)
		}
	}
	if log != "" {
		t.Errorf("reported %q", log)
	}
}

func TestFileLocation(t *testing.T) {
	data, dir, cwd := t.TempDir(), t.TempDir(), t.TempDir()
	write(t, filepath.Join(cwd, "vk_layer_settings.txt"), "vkgen.trace_file = cwd\n")
	v, _ := resolve(t, env{}, cwd)
	if v["trace_file"].V != "cwd" {
		t.Errorf("current folder: %v", v["trace_file"])
	}
	write(t, filepath.Join(dir, "vk_layer_settings.txt"), "vkgen.trace_file = dir\n")
	v, _ = resolve(t, env{"VK_LAYER_SETTINGS_PATH": dir}, cwd)
	if v["trace_file"].V != "dir" {
		t.Errorf("VK_LAYER_SETTINGS_PATH folder: %v", v["trace_file"])
	}
	named := write(t, filepath.Join(dir, "any.txt"), "vkgen.trace_file = named\n")
	v, _ = resolve(t, env{"VK_LAYER_SETTINGS_PATH": named}, cwd)
	if v["trace_file"].V != "named" {
		t.Errorf("VK_LAYER_SETTINGS_PATH file: %v", v["trace_file"])
	}
	write(t, filepath.Join(data, "vulkan", "settings.d", "vk_layer_settings.txt"), "vkgen.trace_file = vkconfig\n")
	v, _ = resolve(t, env{"VK_LAYER_SETTINGS_PATH": named, "XDG_DATA_HOME": data}, cwd)
	if v["trace_file"].V != "vkconfig" {
		t.Errorf("Vulkan Configurator's file: %v", v["trace_file"])
	}
	v, _ = resolve(t, env{"HOME": filepath.Dir(filepath.Dir(data)), "VK_LAYER_SETTINGS_PATH": named}, cwd)
	if v["trace_file"].V != "named" {
		t.Errorf("HOME without the file: %v", v["trace_file"])
	}
}

func TestBadInputFallsBackAndIsReportedOnce(t *testing.T) {
	cwd := t.TempDir()
	file := write(t, filepath.Join(cwd, "vk_layer_settings.txt"),
		"# comment\nvkgen_devicememoryreport.perfetto_system = maybe\nvkgen_devicememoryreport.colour = red\nvkgen.buffer_kb = 0x7\nvk_other.x = 1\nvkgen.colour = blue\n")
	e := env{"VK_VKGEN_DEVICEMEMORYREPORT_BUFFER_KB": "12 KB", "VK_VKGEN_DEVICEMEMORYREPORT_SPEED": "fast"}
	api := []APISetting{
		{Layer: layer, Key: "trace_file", Type: apiBool32, Count: 1, Values: []any{true}},
		{Layer: layer, Key: "verbose", Type: apiBool32, Count: 1, Values: []any{true}},
	}
	v, log := resolve(t, e, cwd, api...)
	for key, want := range map[string]Value{
		// buffer_kb: the variable does not parse, so the file's value applies
		"perfetto_system": {true, "default"}, "buffer_kb": {int64(7), file + ":4"}, "trace_file": {"", "default"},
	} {
		if v[key] != want {
			t.Errorf("%s = %v, want %v", key, v[key], want)
		}
	}
	for _, want := range []string{
		`settings.perfetto_system: settings: perfetto_system from ` + file + `:2: "maybe" is not a boolean`,
		`settings: settings: unknown setting vkgen_devicememoryreport.colour in ` + file + `:3`,
		`settings: settings: unknown setting vkgen.colour in ` + file + `:6`,
		`settings.buffer_kb: settings: buffer_kb from VK_VKGEN_DEVICEMEMORYREPORT_BUFFER_KB: "12 KB" is not an integer`,
		`settings: settings: unknown setting variable VK_VKGEN_DEVICEMEMORYREPORT_SPEED`,
		`settings.trace_file: settings: trace_file from VkLayerSettingsCreateInfoEXT: type VK_LAYER_SETTING_TYPE_BOOL32_EXT, want VK_LAYER_SETTING_TYPE_STRING_EXT`,
		`settings: settings: unknown setting verbose of VK_LAYER_VKGEN_DeviceMemoryReport in VkLayerSettingsCreateInfoEXT`,
	} {
		if strings.Count(log, want) != 1 {
			t.Errorf("report %q: want it once in\n%s", want, log)
		}
	}
	if strings.Contains(log, "vk_other") {
		t.Errorf("another layer's key reported:\n%s", log)
	}
}

// Issue 28: a blank value (VK_VKGEN_TRACE_FILE=' ') named a file " "; it is
// reported and treated as unset, here and in every source.
func TestBlankValuesAreUnset(t *testing.T) {
	cwd := t.TempDir()
	file := write(t, filepath.Join(cwd, "vk_layer_settings.txt"), "vkgen.trace_file = /from/file\nvkgen.buffer_kb =\n")
	v, log := resolve(t, env{"VK_VKGEN_TRACE_FILE": " ", "VK_VKGEN_BUFFER_KB": "\t"}, cwd)
	if v["trace_file"] != (Value{"/from/file", file + ":1"}) || v["buffer_kb"] != (Value{int64(1024), "default"}) {
		t.Errorf("blank values: %v", v)
	}
	for _, want := range []string{`trace_file from VK_VKGEN_TRACE_FILE: " " is blank; treated as unset`, `buffer_kb from VK_VKGEN_BUFFER_KB: "\t" is blank`} {
		if !strings.Contains(log, want) {
			t.Errorf("want %q reported in\n%s", want, log)
		}
	}
	v, log = resolve(t, env{}, "", APISetting{Layer: layer, Key: "trace_file", Type: apiString, Count: 1, Values: []any{"  "}})
	if v["trace_file"].V != "" || !strings.Contains(log, `trace_file from VkLayerSettingsCreateInfoEXT: "  " is blank`) {
		t.Errorf("blank create-info string: %v, reported %q", v["trace_file"], log)
	}
}

// Issue 28: what looks like a setting of ours but is none is reported: a
// file line without "=", a VK_VKGEN_ variable naming no setting.
func TestWhatNamesNothingIsReported(t *testing.T) {
	cwd := t.TempDir()
	file := write(t, filepath.Join(cwd, "vk_layer_settings.txt"), "vkgen.trace_file /x\nvk_other.y\n\n  # only a comment\n")
	e := env{"VK_VKGEN_TRACE_CATEGORIE": "x", "VK_VKGEN_EXAMPLE_TRACE_FILE": "/e", "VK_VKGEN_BUFFER_KB": "8"}
	v, log := resolve(t, e, cwd)
	if v["trace_file"].V != "" || v["buffer_kb"].V != int64(8) {
		t.Errorf("values: %v", v)
	}
	for _, want := range []string{file + `:1: "vkgen.trace_file /x" is not "key = value"`, `unknown setting variable VK_VKGEN_TRACE_CATEGORIE`} {
		if strings.Count(log, want) != 1 {
			t.Errorf("want %q once in\n%s", want, log)
		}
	}
	if n := strings.Count(log, "\n"); n != 2 {
		t.Errorf("%d reports, want 2 (another layer's line and variable are not ours):\n%s", n, log)
	}
}

func TestRangeAndForms(t *testing.T) {
	for in, want := range map[string]Value{
		"0x40": {int64(64), "VK_VKGEN_BUFFER_KB"}, "2": {int64(1024), "default"}, "-5": {int64(1024), "default"},
	} {
		v, _ := resolve(t, env{"VK_VKGEN_BUFFER_KB": in}, "")
		if v["buffer_kb"] != want {
			t.Errorf("buffer_kb=%s: %v, want %v", in, v["buffer_kb"], want)
		}
	}
	for in, want := range map[string]bool{"1": true, "0": false, "ON": true, "off": false, "True": true, "FALSE": false} {
		v, _ := resolve(t, env{"VK_VKGEN_PERFETTO_SYSTEM": in}, "")
		if v["perfetto_system"].V != want {
			t.Errorf("perfetto_system=%s: %v", in, v["perfetto_system"])
		}
	}
}

func TestUnreadableFilesAreNoError(t *testing.T) {
	dir := t.TempDir()
	unreadable := write(t, filepath.Join(dir, "vk_layer_settings.txt"), "vkgen.trace_file = x\n")
	if err := os.Chmod(unreadable, 0); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/dev/zero", filepath.Join(dir, "missing"), unreadable} {
		v, log := resolve(t, env{"VK_LAYER_SETTINGS_PATH": path}, "")
		if os.Geteuid() != 0 || path != unreadable {
			if v["trace_file"] != (Value{"", "default"}) || log != "" {
				t.Errorf("%s: %v, reported %q", path, v["trace_file"], log)
			}
		}
	}
}

func TestFromChain(t *testing.T) {
	name, key1, key2 := cstr(layer), cstr("trace_file"), cstr("buffer_kb")
	path := cstr("/tmp/x.pftrace")
	strs := []unsafe.Pointer{path}
	nums := []uint32{7, 9}
	settings := []layerSetting{
		{pLayerName: name, pSettingName: key1, typ: apiString, valueCount: 1, pValues: unsafe.Pointer(&strs[0])},
		{pLayerName: name, pSettingName: key2, typ: apiUint32, valueCount: 2, pValues: unsafe.Pointer(&nums[0])},
		{pLayerName: nil, pSettingName: key2, typ: apiUint32, valueCount: 1, pValues: unsafe.Pointer(&nums[0])},
	}
	ci := &layerSettingsCreateInfo{sType: structureTypeLayerSettingsCreateInfo, settingCount: uint32(len(settings)), pSettings: unsafe.Pointer(&settings[0])}
	other := &baseInStructure{sType: 1, pNext: unsafe.Pointer(ci)}
	got := FromChain(unsafe.Pointer(other))
	if len(got) != 2 || got[0].Key != "trace_file" || got[0].Values[0] != "/tmp/x.pftrace" || got[0].Layer != layer ||
		got[1].Key != "buffer_kb" || got[1].Count != 2 || len(got[1].Values) != 1 || got[1].Values[0] != int64(7) {
		t.Fatalf("FromChain = %+v", got)
	}
	ci.pNext = unsafe.Pointer(other) // a cycle ends at the chain bound
	// maxChain structures visited, every second one the create info with 2 settings
	if n := len(FromChain(unsafe.Pointer(other))); n != maxChain {
		t.Errorf("cyclic chain: %d settings, want %d", n, maxChain)
	}
	if FromChain(nil) != nil {
		t.Error("nil chain")
	}
}

func cstr(s string) unsafe.Pointer {
	b := append([]byte(s), 0)
	return unsafe.Pointer(&b[0])
}

// The layers share one tracing setup: a setting given for any layer that
// takes part applies, the compatibility names apply with no layer at all,
// and another vkgen layer's namespace applies only once it takes part.
func TestSeveralLayers(t *testing.T) {
	const dm = "VK_LAYER_VKGEN_DebugMarker"
	cwd := t.TempDir()
	write(t, filepath.Join(cwd, "vk_layer_settings.txt"), "vkgen_debugmarker.trace_file = /dm\n")
	e := env{"VK_VKGEN_PERFETTO_SYSTEM": "0", "VK_VKGEN_DEBUGMARKER_BUFFER_KB": "8"}
	get := func(layers ...string) map[string]Value {
		return Resolve(layers, defs, Sources{Getenv: e.get, Environ: e.list, Cwd: cwd, Warn: logTo(io.Discard)})
	}
	none := get()
	if none["perfetto_system"].V != false || none["trace_file"].V != "" || none["buffer_kb"].V != int64(1024) {
		t.Errorf("no layer: %v", none)
	}
	if v := get(layer); v["trace_file"].V != "" || v["buffer_kb"].V != int64(1024) {
		t.Errorf("DeviceMemoryReport alone: %v", v)
	}
	both := get(layer, dm)
	if both["trace_file"].V != "/dm" || both["buffer_kb"] != (Value{int64(8), "VK_VKGEN_DEBUGMARKER_BUFFER_KB"}) {
		t.Errorf("both layers: %v", both)
	}
}

// Values given for one layer and differently for the other cannot both
// hold: the first, in the source's order, is used and the others are
// reported; equal values and VK_<KEY> (another tool's, perhaps) are not.
func TestSeveralLayersDisagreeing(t *testing.T) {
	const dm = "VK_LAYER_VKGEN_DebugMarker"
	cwd := t.TempDir()
	write(t, filepath.Join(cwd, "vk_layer_settings.txt"),
		"vkgen_devicememoryreport.buffer_kb = 16\nvkgen_debugmarker.buffer_kb = 32\nvkgen.buffer_kb = 16\n")
	e := env{
		"VK_VKGEN_DEVICEMEMORYREPORT_TRACE_FILE": "/mr",
		"VK_VKGEN_DEBUGMARKER_TRACE_FILE":        "/dm",
		"VK_TRACE_FILE":                          "/other-tool",
		"VK_VKGEN_PERFETTO_SYSTEM":               "0",
		"VK_DEBUGMARKER_PERFETTO_SYSTEM":         "off",
	}
	var log bytes.Buffer
	v := Resolve([]string{layer, dm}, defs, Sources{Getenv: e.get, Environ: e.list, Cwd: cwd, Warn: logTo(&log)})
	if v["trace_file"] != (Value{"/mr", "VK_VKGEN_DEVICEMEMORYREPORT_TRACE_FILE"}) || v["buffer_kb"].V != int64(16) || v["perfetto_system"].V != false {
		t.Errorf("values: %v", v)
	}
	got := log.String()
	for _, want := range []string{
		`settings.trace_file: settings: trace_file from VK_VKGEN_DEBUGMARKER_TRACE_FILE ("/dm") is not used: the vkgen layers share one value, and "/mr" from VK_VKGEN_DEVICEMEMORYREPORT_TRACE_FILE comes first`,
		`settings.buffer_kb: settings: buffer_kb from ` + filepath.Join(cwd, "vk_layer_settings.txt") + `:2 (32) is not used: the vkgen layers share one value, and 16 from ` + filepath.Join(cwd, "vk_layer_settings.txt") + `:1 comes first`,
	} {
		if !strings.Contains(got, want+"\n") {
			t.Errorf("not reported: %s\nreported:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "\n"); n != 2 {
		t.Errorf("%d reports, want 2:\n%s", n, got)
	}
}
