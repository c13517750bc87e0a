package debugmarker_test

// Integration tests: the real Vulkan loader, lavapipe, the one layer library
// built by scripts/build-layers.sh, and testdata/dmprog.c. They skip when
// the loader, lavapipe, gcc or the headers are absent.

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/generated"
	"github.com/vkgen/vkgen/internal/perfettotools"
	"github.com/vkgen/vkgen/internal/vktest"
	"github.com/vkgen/vkgen/perfetto"
	"github.com/vkgen/vkgen/perfetto/decode"
)

const (
	layerName  = "VK_LAYER_VKGEN_DebugMarker"
	validation = "VK_LAYER_KHRONOS_validation"
)

// dmprog is the built testdata/dmprog.c, set by setup.
var dmprog string

// setup builds the layer library and dmprog (internal/vktest), or skips.
func setup(t *testing.T) {
	t.Helper()
	vktest.Layers(t)
	dmprog = vktest.Program(t, "layer/debugmarker/testdata/dmprog.c")
}

type progOut struct {
	stdout, stderr string
	objs           map[string]uint64
}

func runProg(t *testing.T, env []string, args ...string) progOut {
	t.Helper()
	cmd := exec.Command(dmprog, args...)
	cmd.Env = env
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	if err := cmd.Run(); err != nil {
		t.Fatalf("dmprog %v: %v\nstdout:\n%s\nstderr:\n%s", args, err, so.String(), se.String())
	}
	o := progOut{stdout: so.String(), stderr: se.String(), objs: map[string]uint64{}}
	for _, l := range strings.Split(o.stdout, "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "obj" {
			v, err := strconv.ParseUint(f[2], 0, 64)
			if err != nil {
				t.Fatalf("bad line %q", l)
			}
			o.objs[f[1]] = v
		}
	}
	if !strings.Contains(o.stdout, "scenario ok\n") {
		t.Fatalf("dmprog did not finish:\n%s\n%s", o.stdout, o.stderr)
	}
	return o
}

// name is one VkDebugUtilsObjectName packet, in a form easy to compare.
type name struct {
	ts   uint64 // not printed
	dev  uint64
	typ  generated.ObjectType
	obj  uint64
	name string
}

func (n name) String() string {
	return fmt.Sprintf("{dev %#x %v %#x %q}", n.dev, n.typ, n.obj, n.name)
}

// names reads a trace and returns its name packets in file order, checking
// that each carries an absolute BOOTTIME timestamp with an explicit clock id.
func names(t *testing.T, path string) []name {
	t.Helper()
	tr, err := decode.ReadFile(path)
	if err != nil {
		t.Fatalf("decode %s: %v", path, err)
	}
	var out []name
	for _, p := range tr.Packets {
		if o := p.ObjectName; o != nil {
			if !p.HasTimestamp || !p.HasClockID || p.ClockID != perfetto.ClockBoottime {
				t.Errorf("%s: packet %d: timestamp %v clock %v/%d, want explicit BOOTTIME (6)", path, p.Index, p.HasTimestamp, p.HasClockID, p.ClockID)
			}
			out = append(out, name{p.Timestamp, o.Device, generated.ObjectType(o.ObjectType), o.Object, o.Name})
		}
	}
	protocCheck(t, path, len(out))
	perfettotools.CheckStats(t, path)
	return out
}

// protocCheck decodes the trace, inflated (the layers compress trace files),
// with protoc and the real Perfetto schema (when ../shared and protoc are
// present) and counts the name packets.
func protocCheck(t *testing.T, path string, want int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out, missing := perfettotools.Protoc(t, "decode", "Trace", "perfetto_trace.proto", perfettotools.Inflated(t, data))
	if missing != "" {
		return
	}
	if got := strings.Count(string(out), "vk_debug_utils_object_name {"); got != want {
		t.Errorf("protoc sees %d VkDebugUtilsObjectName packets, perfetto/decode %d", got, want)
	}
}

// scenario runs dmprog with a trace configured from the start through the
// layer settings file; the program switches the setting to late before its
// second vkCreateInstance, which starts a second session mid-run.
func scenario(t *testing.T) (o progOut, early, late []name) {
	setup(t)
	dir := t.TempDir()
	settings := filepath.Join(dir, "vk_layer_settings.txt")
	a, b := filepath.Join(dir, "early.trace"), filepath.Join(dir, "late.trace")
	if err := os.WriteFile(settings, []byte("vkgen.trace_file = "+a+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := append(vktest.Env(t, layerName), "VK_LAYER_SETTINGS_PATH="+settings)
	o = runProg(t, e, "--settings", settings, "--late-trace", b)
	return o, names(t, a), names(t, b)
}

func TestNamesFromBothAPIsReachTheTrace(t *testing.T) {
	o, early, _ := scenario(t)
	// Packets of one session are spread over several sequences, so file
	// order is not call order; timestamps are (names are emitted under the
	// store's lock for their object).
	sort.SliceStable(early, func(i, j int) bool { return early[i].ts < early[j].ts })
	dev, m := o.objs["device"], o.objs
	buf, img := generated.ObjectTypeBuffer, generated.ObjectTypeImage
	// Call order per object; packets of different objects may sit on
	// different sequences, so compare per object.
	want := []name{
		{0, dev, generated.ObjectTypeInstance, m["instance"], "inst"},
		{0, dev, generated.ObjectTypeInstance, m["instance"], "inst-2"},
		{0, dev, generated.ObjectTypeDevice, dev, "dev"},
		{0, dev, buf, m["b1"], "b1-utils"}, // re-applied unchanged: no second packet
		{0, dev, img, m["img"], "img-marker"},
		{0, dev, buf, m["b2"], "b2-marker"},
		{0, dev, generated.ObjectTypeCommandPool, m["pool"], "pool-marker"},
		{0, dev, generated.ObjectTypeCommandBuffer, m["cb"], "cb-marker"},
		{0, dev, buf, m["b1"], "b1-renamed"}, // the same name again through debug marker: no packet
		{0, dev, buf, m["b3"], "b3-temp"},
		{0, dev, buf, m["b3"], ""}, // NULL name: removal
		{0, dev, buf, m["b2"], ""}, // empty name: removal
		{0, dev, buf, m["b2"], "b2-again"},
		{0, dev, img, m["img"], "img-late"},
		{0, dev, buf, m["b4"], "b4-new"},
	}
	if m["b4"] == m["b1"] {
		// The recycled handle: its packets are b1's then b4's.
		t.Logf("b4 reuses b1's handle %#x", m["b1"])
	}
	checkPerObject(t, early, want)
}

// checkPerObject compares packets per (type, object) in order, and the
// number of packets overall.
func checkPerObject(t *testing.T, got, want []name) {
	t.Helper()
	type key struct {
		typ generated.ObjectType
		obj uint64
	}
	split := func(ns []name) map[key][]name {
		m := map[key][]name{}
		for _, n := range ns {
			k := key{n.typ, n.obj}
			m[k] = append(m[k], n)
		}
		return m
	}
	g, w := split(got), split(want)
	for k, wn := range w {
		if fmt.Sprint(g[k]) != fmt.Sprint(wn) {
			t.Errorf("%v %#x: packets %v, want %v", k.typ, k.obj, g[k], wn)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d name packets, want %d:\n%v", len(got), len(want), got)
	}
}

func TestLateSessionReplaysLiveNamesFirst(t *testing.T) {
	o, _, late := scenario(t)
	dev, m := o.objs["device"], o.objs
	// Live at the second vkCreateInstance: b1 was destroyed (its recycled
	// handle b4 is unnamed), b3's name removed, b2 renamed.
	replay := []name{
		{0, dev, generated.ObjectTypeInstance, m["instance"], "inst-2"},
		{0, dev, generated.ObjectTypeDevice, dev, "dev"},
		{0, dev, generated.ObjectTypeCommandBuffer, m["cb"], "cb-marker"},
		{0, dev, generated.ObjectTypeBuffer, m["b2"], "b2-again"},
		{0, dev, generated.ObjectTypeImage, m["img"], "img-marker"},
		{0, dev, generated.ObjectTypeCommandPool, m["pool"], "pool-marker"},
	}
	// Replay order: object type ascending, then handle.
	sort.SliceStable(replay, func(i, j int) bool { return replay[i].typ < replay[j].typ })
	live := []name{
		{0, dev, generated.ObjectTypeImage, m["img"], "img-late"},
		{0, dev, generated.ObjectTypeBuffer, m["b4"], "b4-new"},
	}
	if len(late) != len(replay)+len(live) {
		t.Fatalf("late session has %d name packets, want %d replayed + %d live:\n%v", len(late), len(replay), len(live), late)
	}
	if got := fmt.Sprint(late[:len(replay)]); got != fmt.Sprint(replay) {
		t.Errorf("replay\n got %v\nwant %v", got, replay)
	}
	checkPerObject(t, late[len(replay):], live)
}

func TestStackedWithValidationIsClean(t *testing.T) {
	setup(t)
	if _, err := os.Stat("/usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json"); err != nil {
		t.Skip("vulkan-validationlayers not installed")
	}
	for name, layers := range map[string][]string{
		"validation_below": {layerName, validation},
		"validation_above": {validation, layerName},
	} {
		t.Run(name, func(t *testing.T) {
			trace := filepath.Join(t.TempDir(), "v.trace")
			o := runProg(t, append(vktest.Env(t, layers...), "VK_VKGEN_TRACE_FILE="+trace), "--messenger")
			if !strings.Contains(o.stdout, "validation_messages=0\n") || strings.Contains(o.stderr, "VUID") {
				t.Errorf("validation reported messages:\n%s\n%s", o.stdout, o.stderr)
			}
			if len(names(t, trace)) == 0 {
				t.Error("no names traced with validation stacked")
			}
		})
	}
}

func TestEnumerationTwoCallIdiomAndForwarding(t *testing.T) {
	setup(t)
	cmd := exec.Command(dmprog, "--enum", filepath.Join(vktest.Layers(t), "libVkLayer_vkgen.so"))
	cmd.Env = vktest.Env(t)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "enum ok") {
		t.Fatalf("dmprog --enum: %v\n%s", err, out)
	}
}

// TestNullInfosReachNoLayerCode calls the DebugMarker, DeviceMemoryReport and
// example entry points over a fake chain with NULL create, name and bind infos
// (invalid usage that the real loader's trampolines and lavapipe would
// dereference first): the layers must forward them without crashing or
// panicking in their own code.
func TestNullInfosReachNoLayerCode(t *testing.T) {
	setup(t)
	cmd := exec.Command(dmprog, "--null", filepath.Join(vktest.Layers(t), "libVkLayer_vkgen.so"))
	cmd.Env = vktest.Env(t)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "null ok") {
		t.Fatalf("dmprog --null: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "recovered panic") {
		t.Errorf("a layer hook panicked on a NULL info:\n%s", out)
	}
	// Through the real loader: vkGetDeviceProcAddr hands out the layer's
	// own function, and lavapipe has no VK_EXT_debug_marker below it.
	o := runProg(t, vktest.Env(t, layerName), "--null-info")
	if !strings.Contains(o.stdout, "null_info_marker_result 0\n") || strings.Contains(o.stderr, "recovered panic") {
		t.Errorf("vkDebugMarkerSetObjectNameEXT(dev, NULL) through the loader:\n%s\n%s", o.stdout, o.stderr)
	}
}
