package registry

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/internal/testenv"
)

type loaded struct {
	version string
	reg     *Registry
}

// mustLoad loads the shared registry of one version (skipping without
// ../shared) and fails the test when it does not load.
func mustLoad(t *testing.T, version string, opts ...Option) *Registry {
	t.Helper()
	r, err := Load(testenv.Registry(t, version), opts...)
	if err != nil {
		t.Fatalf("%s: %v", version, err)
	}
	return r
}

// loadAll loads every registry under shared/vkregistry, oldest first.
func loadAll(t *testing.T) []loaded {
	t.Helper()
	versions := testenv.RegistryVersions(t)
	slices.SortFunc(versions, compareVersions)
	var out []loaded
	for _, v := range versions {
		out = append(out, loaded{v, mustLoad(t, v)})
	}
	return out
}

func TestSharedRegistries(t *testing.T) {
	all := loadAll(t)
	var prev *Registry
	for _, l := range all {
		v, r := l.version, l.reg
		t.Run(v, func(t *testing.T) {
			for _, w := range r.Warnings {
				t.Errorf("unexpected warning: %s", w)
			}
			parts := strings.Split(v, ".")
			if want := parts[0] + "." + parts[1]; r.APIVersion != want {
				t.Errorf("APIVersion = %q, want %q", r.APIVersion, want)
			}
			wantHeader, _ := strconv.Atoi(parts[2])
			if v == "1.0.3" {
				wantHeader = 0 // no VK_HEADER_VERSION yet
			}
			if r.HeaderVersion != wantHeader {
				t.Errorf("HeaderVersion = %d, want %d", r.HeaderVersion, wantHeader)
			}
			if prev != nil {
				if len(r.Handles) < len(prev.Handles) || len(r.Commands) < len(prev.Commands) || len(r.Extensions) < len(prev.Extensions) {
					t.Errorf("counts shrank: handles %d->%d commands %d->%d extensions %d->%d",
						len(prev.Handles), len(r.Handles), len(prev.Commands), len(r.Commands), len(prev.Extensions), len(r.Extensions))
				}
			}
			checkKnownEntries(t, v, r)
		})
		prev = r
	}
}

func checkKnownEntries(t *testing.T, v string, r *Registry) {
	if h := r.Handle("VkBuffer"); h == nil || h.Dispatchable || h.ObjectType != "VK_OBJECT_TYPE_BUFFER" || !slices.Equal(h.Parents, []string{"VkDevice"}) {
		t.Errorf("VkBuffer = %+v", h)
	} else if !slices.Contains(h.RequiredBy, "VK_VERSION_1_0") {
		t.Errorf("VkBuffer.RequiredBy = %v", h.RequiredBy)
	}
	if h := r.Handle("VkCommandBuffer"); h == nil || !h.Dispatchable {
		t.Errorf("VkCommandBuffer = %+v", h)
	}
	if h := r.Handle("VkSurfaceKHR"); h == nil || h.ObjectType != "VK_OBJECT_TYPE_SURFACE_KHR" {
		t.Errorf("VkSurfaceKHR = %+v", h)
	}
	if h := r.Handle("VkDebugReportCallbackEXT"); h != nil && h.ObjectType != "VK_OBJECT_TYPE_DEBUG_REPORT_CALLBACK_EXT" {
		t.Errorf("VkDebugReportCallbackEXT.ObjectType = %q", h.ObjectType)
	}
	levels := map[string]CommandLevel{
		"vkCmdDraw": LevelDevice, "vkCreateInstance": LevelGlobal, "vkEnumerateInstanceExtensionProperties": LevelGlobal,
		"vkEnumerateInstanceLayerProperties": LevelGlobal, "vkGetInstanceProcAddr": LevelInstance,
		"vkEnumeratePhysicalDevices": LevelInstance, "vkGetDeviceProcAddr": LevelDevice, "vkQueueSubmit": LevelDevice,
		"vkDestroySurfaceKHR": LevelInstance, "vkCreateSwapchainKHR": LevelDevice,
	}
	if compareVersions(v, "1.1.70") >= 0 {
		levels["vkEnumerateInstanceVersion"] = LevelGlobal
	}
	for name, want := range levels {
		if c := r.Command(name); c == nil || c.Level != want {
			t.Errorf("%s: %+v, want level %d", name, c, want)
		}
	}
	if c := r.Command("vkCmdDraw"); c == nil || !slices.Contains(c.RequiredBy, "VK_VERSION_1_0") || c.Return != "void" ||
		len(c.Params) != 5 || c.Params[0].C() != "VkCommandBuffer commandBuffer" || c.Params[0].Type != "VkCommandBuffer" {
		t.Errorf("vkCmdDraw = %+v", c)
	}
	if c := r.Command("vkCreateInstance"); c == nil || c.Params[1].C() != "const VkAllocationCallbacks* pAllocator" || !slices.Equal(c.Params[1].Optional, []bool{true}) {
		t.Errorf("vkCreateInstance = %+v", c)
	}
	if c := r.Command("vkCreateXlibSurfaceKHR"); c == nil || c.Protect != "VK_USE_PLATFORM_XLIB_KHR" || !slices.Equal(c.RequiredBy, []string{"VK_KHR_xlib_surface"}) {
		t.Errorf("vkCreateXlibSurfaceKHR = %+v", c)
	}
	if x := r.Extension("VK_KHR_xlib_surface"); x == nil || x.Protect != "VK_USE_PLATFORM_XLIB_KHR" || x.Number != 5 ||
		(compareVersions(v, "1.1.70") >= 0 && !strings.Contains(x.Depends, "VK_KHR_surface")) {
		t.Errorf("VK_KHR_xlib_surface = %+v", x)
	}
	// Enumerant math: dir="-" with the extension's number, bitpos.
	wantValues := map[string]int64{"VK_ERROR_SURFACE_LOST_KHR": -1000000000, "VK_QUEUE_GRAPHICS_BIT": 1, "VK_QUEUE_TRANSFER_BIT": 4}
	if r.Enum("VkObjectType") != nil {
		wantValues["VK_OBJECT_TYPE_SURFACE_KHR"] = 1000000000
		wantValues["VK_OBJECT_TYPE_BUFFER"] = 9
	}
	if compareVersions(v, "1.1.70") >= 0 {
		wantValues["VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES"] = 1000094000 // feature offset + extnumber
	}
	if compareVersions(v, "1.4.359") >= 0 {
		wantValues["VK_DEBUG_REPORT_OBJECT_TYPE_CUDA_MODULE_NV_EXT"] = 1000307000
	}
	if e := r.Enum("VkAccessFlagBits2"); e != nil {
		if e.BitWidth != 64 || e.Kind != EnumKindBitmask {
			t.Errorf("VkAccessFlagBits2: bitwidth %d kind %d", e.BitWidth, e.Kind)
		}
		wantValues["VK_ACCESS_2_SHADER_SAMPLED_READ_BIT"] = 1 << 32
	}
	for name, want := range wantValues {
		if _, ev := r.EnumValue(name); ev == nil || ev.Value != want {
			t.Errorf("%s = %+v, want %d", name, ev, want)
		}
	}
	if x := r.Extension("VK_EXT_debug_utils"); x != nil && !slices.Contains(x.Commands, "vkSetDebugUtilsObjectNameEXT") {
		t.Errorf("VK_EXT_debug_utils commands = %v", x.Commands)
	}
	if h := r.Handle("VkExternalComputeQueueNV"); h != nil {
		n := 0
		for _, c := range r.Commands {
			if len(c.Params) > 0 && c.Params[0].Type == "VkExternalComputeQueueNV" {
				n++
				if c.Level != LevelDevice {
					t.Errorf("%s level %d, want device", c.Name, c.Level)
				}
			}
		}
		if n == 0 {
			t.Error("no command dispatches on VkExternalComputeQueueNV")
		}
	}
	for _, c := range r.Commands {
		for _, by := range c.RequiredBy {
			if strings.Contains(by, "_BASE_VERSION_") || strings.Contains(by, "_COMPUTE_VERSION_") || strings.Contains(by, "_GRAPHICS_VERSION_") {
				t.Errorf("%s credited to internal feature %s", c.Name, by)
			}
		}
	}
	if r.Enum("API Constants") == nil {
		t.Error("no API Constants")
	} else if _, ev := r.EnumValue("VK_QUEUE_FAMILY_IGNORED"); ev == nil || ev.Text != "(~0U)" || ev.Value != 0xFFFFFFFF {
		t.Errorf("VK_QUEUE_FAMILY_IGNORED = %+v", ev)
	}
}

// TestInternalFeaturesMerged checks that 1.4.359, which splits each version
// into internal base/compute/graphics features, credits core commands the
// same way 1.4.328 (before the split) does.
func TestInternalFeaturesMerged(t *testing.T) {
	old := mustLoad(t, "1.4.328")
	reg := mustLoad(t, "1.4.359")
	var names []string
	for _, f := range reg.Features {
		names = append(names, f.Name)
	}
	if want := []string{"VK_VERSION_1_0", "VK_VERSION_1_1", "VK_VERSION_1_2", "VK_VERSION_1_3", "VK_VERSION_1_4"}; !slices.Equal(names, want) {
		t.Fatalf("features %v, want %v", names, want)
	}
	f := reg.Feature("VK_VERSION_1_1")
	if !slices.Equal(f.Merged, []string{"VK_BASE_VERSION_1_1", "VK_COMPUTE_VERSION_1_1", "VK_GRAPHICS_VERSION_1_1"}) || f.Depends != "VK_VERSION_1_0" {
		t.Errorf("VK_VERSION_1_1: merged %v depends %q", f.Merged, f.Depends)
	}
	if reg.Feature("VK_GRAPHICS_VERSION_1_0") != reg.Feature("VK_VERSION_1_0") {
		t.Error("internal feature lookup does not resolve to VK_VERSION_1_0")
	}
	for _, oc := range old.Commands {
		nc := reg.Command(oc.Name)
		if nc == nil {
			t.Errorf("%s missing in 1.4.359", oc.Name)
			continue
		}
		for _, by := range oc.RequiredBy {
			if strings.HasPrefix(by, "VK_VERSION_") && !slices.Contains(nc.RequiredBy, by) {
				t.Errorf("%s: 1.4.328 RequiredBy %v, 1.4.359 %v", oc.Name, oc.RequiredBy, nc.RequiredBy)
			}
		}
	}
}

var (
	pfnRe    = regexp.MustCompile(`\(VKAPI_PTR \*PFN_(vk\w+)\)`)
	handleRe = regexp.MustCompile(`VK_DEFINE_(NON_DISPATCHABLE_)?HANDLE\((Vk\w+)\)`)
	valueRe  = regexp.MustCompile(`(?m)^\s+(VK_[A-Z0-9_]+) = (-?(?:0x[0-9A-Fa-f]+|\d+)),?$`)
	value64  = regexp.MustCompile(`static const Vk\w+ (VK_[A-Z0-9_]+) = (0x[0-9A-Fa-f]+|\d+)ULL;`)
)

// TestAgainstHeaders compares the model with the C headers Khronos generated
// from the same vk.xml: every command, handle and enumerant value in the
// headers must be in the model, and every required command in the headers.
func TestAgainstHeaders(t *testing.T) {
	for _, l := range loadAll(t) {
		t.Run(l.version, func(t *testing.T) {
			dir := filepath.Join(filepath.Dir(testenv.Registry(t, l.version)), "include", "vulkan")
			files, _ := filepath.Glob(filepath.Join(dir, "vulkan*.h"))
			var src strings.Builder
			for _, f := range files {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				src.Write(b)
			}
			h := src.String()
			r := l.reg
			fps := map[string]bool{}
			for _, fp := range r.FuncPointers {
				fps[fp.Name] = true
			}
			headerCmds := map[string]bool{}
			for _, m := range pfnRe.FindAllStringSubmatch(h, -1) {
				if !fps["PFN_"+m[1]] {
					headerCmds[m[1]] = true
				}
			}
			modelCmds := map[string]bool{}
			for _, c := range r.Commands {
				modelCmds[c.Name] = len(c.RequiredBy) > 0
				for a := range c.AliasRequiredBy {
					modelCmds[a] = true
				}
			}
			for name := range headerCmds {
				if !modelCmds[name] {
					t.Errorf("header command %s not required in the model", name)
				}
			}
			for name, req := range modelCmds {
				if req && !headerCmds[name] {
					t.Errorf("model command %s not in the headers", name)
				}
			}
			for _, m := range handleRe.FindAllStringSubmatch(h, -1) {
				hd := r.Handle(m[2])
				if hd == nil || hd.Dispatchable != (m[1] == "") {
					t.Errorf("header handle %s: model %+v", m[2], hd)
				}
			}
			n := 0
			check := func(name, lit string) {
				if strings.Contains(name, "_MAX_ENUM") || strings.Contains(name, "_BEGIN_RANGE") || strings.Contains(name, "_END_RANGE") || strings.Contains(name, "_RANGE_SIZE") {
					return // emitted by the header generator, not in vk.xml
				}
				want, ok := parseCInt(lit)
				if !ok {
					t.Errorf("bad literal %s = %s", name, lit)
					return
				}
				_, ev := r.EnumValue(name)
				if ev == nil || ev.Value != want {
					t.Errorf("%s: header %d, model %+v", name, want, ev)
				}
				n++
			}
			for _, m := range valueRe.FindAllStringSubmatch(h, -1) {
				check(m[1], m[2])
			}
			for _, m := range value64.FindAllStringSubmatch(h, -1) {
				check(m[1], m[2])
			}
			if n < 100 {
				t.Errorf("only %d enumerants compared", n)
			}
		})
	}
}

// TestFuncPointerSyntaxes compares 1.4.328 (C text typedefs) with 1.4.359
// (<proto>/<param> typedefs): the model must not see the difference.
func TestFuncPointerSyntaxes(t *testing.T) {
	old := mustLoad(t, "1.4.328")
	reg := mustLoad(t, "1.4.359")
	byName := map[string]*FuncPointer{}
	for _, fp := range reg.FuncPointers {
		byName[fp.Name] = fp
	}
	for _, o := range old.FuncPointers {
		n := byName[o.Name]
		if n == nil {
			t.Errorf("%s missing in 1.4.359", o.Name)
			continue
		}
		if n.Return != o.Return || len(n.Params) != len(o.Params) {
			t.Errorf("%s:\n old %q %d params\n new %q %d params", o.Name, o.Return, len(o.Params), n.Return, len(n.Params))
			continue
		}
		for i := range o.Params {
			if !reflect.DeepEqual(o.Params[i], n.Params[i]) {
				t.Errorf("%s param %d: old %+v new %+v", o.Name, i, o.Params[i], n.Params[i])
			}
		}
	}
}

func TestVulkanSC(t *testing.T) {
	reg := mustLoad(t, "1.4.359", WithAPI("vulkansc"))
	// The registry aliases VK_EXT_robustness2's (vulkansc) enumerants to
	// VK_KHR_robustness2's, which is vulkan-only: a tolerated oddity.
	for _, w := range reg.Warnings {
		if !strings.Contains(w.Msg, "ROBUSTNESS_2") {
			t.Errorf("unexpected warning: %s", w)
		}
	}
	if reg.Feature("VKSC_VERSION_1_0") == nil || reg.Command("vkCmdDraw") == nil {
		t.Error("vulkansc model lacks VKSC_VERSION_1_0 or vkCmdDraw")
	}
	// Removed by VKSC_VERSION_1_0; only in vulkan.
	if c := reg.Command("vkCreateShaderModule"); c != nil {
		t.Errorf("vkCreateShaderModule present in vulkansc: %+v", c)
	}
	if reg.Extension("VK_KHR_surface") == nil || reg.Extension("VK_KHR_acceleration_structure") != nil {
		t.Error("vulkansc extension filtering wrong")
	}
	if x := reg.Extension("VK_KHR_surface"); x != nil && !slices.Contains(x.Supported, "vulkansc") {
		t.Errorf("VK_KHR_surface supported = %v", x.Supported)
	}
}
