package objtypes

import (
	"strings"
	"testing"

	"github.com/vkgen/vkgen/registry"
)

// miniRegistry is a hand-built model with the shapes the derivation must
// handle: identity and non-identity mappings, an alias, an unresolvable
// debug-report value, array frees and self-destroying dispatchables.
func miniRegistry() *registry.Registry {
	h := func(name, objType, parent string, disp bool, aliases ...string) *registry.Handle {
		var ps []string
		if parent != "" {
			ps = []string{parent}
		}
		return &registry.Handle{Name: name, ObjectType: objType, Parents: ps, Dispatchable: disp, Aliases: aliases, RequiredBy: []string{"VK_VERSION_1_0"}}
	}
	v := func(name string, val int64) *registry.EnumValue { return &registry.EnumValue{Name: name, Value: val} }
	p := func(typ, name, length string) registry.Decl {
		return registry.Decl{Type: typ, Name: name, Len: length}
	}
	r := &registry.Registry{
		HeaderVersion: 7,
		Handles: []*registry.Handle{
			h("VkInstance", "VK_OBJECT_TYPE_INSTANCE", "", true),
			h("VkDevice", "VK_OBJECT_TYPE_DEVICE", "VkInstance", true),
			h("VkCommandPool", "VK_OBJECT_TYPE_COMMAND_POOL", "VkDevice", false),
			h("VkCommandBuffer", "VK_OBJECT_TYPE_COMMAND_BUFFER", "VkCommandPool", true),
			h("VkDeviceMemory", "VK_OBJECT_TYPE_DEVICE_MEMORY", "VkDevice", false),
			h("VkSurfaceKHR", "VK_OBJECT_TYPE_SURFACE_KHR", "VkInstance", false),
			h("VkTemplate", "VK_OBJECT_TYPE_TEMPLATE", "VkDevice", false, "VkTemplateKHR"),
		},
		Enums: []*registry.Enum{
			{Name: ObjectTypeEnum, Values: []*registry.EnumValue{
				v("VK_OBJECT_TYPE_UNKNOWN", 0), v("VK_OBJECT_TYPE_INSTANCE", 1), v("VK_OBJECT_TYPE_DEVICE", 3),
				v("VK_OBJECT_TYPE_COMMAND_BUFFER", 6), v("VK_OBJECT_TYPE_DEVICE_MEMORY", 8), v("VK_OBJECT_TYPE_COMMAND_POOL", 25),
				v("VK_OBJECT_TYPE_SURFACE_KHR", 1000000000), v("VK_OBJECT_TYPE_TEMPLATE", 1000085000),
				{Name: "VK_OBJECT_TYPE_TEMPLATE_KHR", Alias: "VK_OBJECT_TYPE_TEMPLATE", Value: 1000085000},
			}},
			{Name: DebugReportEnum, Values: []*registry.EnumValue{
				v("VK_DEBUG_REPORT_OBJECT_TYPE_UNKNOWN_EXT", 0), v("VK_DEBUG_REPORT_OBJECT_TYPE_INSTANCE_EXT", 1),
				v("VK_DEBUG_REPORT_OBJECT_TYPE_SURFACE_KHR_EXT", 26), v("VK_DEBUG_REPORT_OBJECT_TYPE_GONE_NVX_EXT", 31),
				v("VK_DEBUG_REPORT_OBJECT_TYPE_TEMPLATE_KHR_EXT", 1000085000), v("VK_DEBUG_REPORT_ODD", 40),
				{Name: "VK_DEBUG_REPORT_OBJECT_TYPE_INSTANCE_OLD_EXT", Alias: "VK_DEBUG_REPORT_OBJECT_TYPE_INSTANCE_EXT", Value: 1},
			}},
		},
		Commands: []*registry.Command{
			{Name: "vkDestroyInstance", Params: []registry.Decl{p("VkInstance", "instance", ""), p("VkAllocationCallbacks", "pAllocator", "")}},
			{Name: "vkFreeCommandBuffers", Params: []registry.Decl{p("VkDevice", "device", ""), p("VkCommandPool", "commandPool", ""),
				p("uint32_t", "commandBufferCount", ""), p("VkCommandBuffer", "pCommandBuffers", "commandBufferCount")}},
			{Name: "vkFreeMemory", Params: []registry.Decl{p("VkDevice", "device", ""), p("VkDeviceMemory", "memory", "")}},
			{Name: "vkDestroyTemplate", Aliases: []string{"vkDestroyTemplateKHR"}, Params: []registry.Decl{p("VkDevice", "device", ""), p("VkTemplate", "t", "")}},
			{Name: "vkReleaseProfilingLockKHR", Params: []registry.Decl{p("VkDevice", "device", "")}},
			{Name: "vkDestroyNothing", Params: []registry.Decl{p("VkDevice", "device", "")}},
			{Name: "vkCreateDevice", Params: []registry.Decl{p("VkInstance", "instance", "")}},
		},
		Extensions: []*registry.Extension{{Name: "VK_NVX_gone"}, {Name: "VK_KHR_surface"}},
	}
	for _, c := range r.Commands {
		c.RequiredBy = []string{"VK_VERSION_1_0"}
	}
	// Neither belongs to the selected API: no warning, no destroyer.
	r.Handles = append(r.Handles, &registry.Handle{Name: "VkScOnly", ObjectType: "VK_OBJECT_TYPE_SC_ONLY"})
	r.Commands = append(r.Commands, &registry.Command{Name: "vkDestroyScOnly", Params: []registry.Decl{p("VkDevice", "device", ""), p("VkScOnly", "x", "")}})
	return r
}

func TestDerive(t *testing.T) {
	tb, err := Derive(miniRegistry())
	if err != nil {
		t.Fatal(err)
	}
	if tb.HeaderVersion != 7 || len(tb.ObjectTypes) != 8 || len(tb.DebugReport) != 6 {
		t.Fatalf("counts: header %d objects %d debug %d", tb.HeaderVersion, len(tb.ObjectTypes), len(tb.DebugReport))
	}
	o, ok := tb.ObjectTypeByName("VK_OBJECT_TYPE_TEMPLATE_KHR")
	if !ok || o.Name != "VK_OBJECT_TYPE_TEMPLATE" || o.Handle != "VkTemplate" || o.Parent != "VK_OBJECT_TYPE_DEVICE" {
		t.Errorf("alias lookup: %+v %v", o, ok)
	}
	if cb, _ := tb.ObjectTypeByName("VK_OBJECT_TYPE_COMMAND_BUFFER"); !cb.Dispatchable || cb.Parent != "VK_OBJECT_TYPE_COMMAND_POOL" {
		t.Errorf("command buffer: %+v", cb)
	}
	mapped := map[string]string{}
	for _, d := range tb.DebugReport {
		mapped[d.Name] = d.ObjectType
	}
	want := map[string]string{
		"VK_DEBUG_REPORT_OBJECT_TYPE_UNKNOWN_EXT":      "VK_OBJECT_TYPE_UNKNOWN",
		"VK_DEBUG_REPORT_OBJECT_TYPE_INSTANCE_EXT":     "VK_OBJECT_TYPE_INSTANCE",
		"VK_DEBUG_REPORT_OBJECT_TYPE_SURFACE_KHR_EXT":  "VK_OBJECT_TYPE_SURFACE_KHR",
		"VK_DEBUG_REPORT_OBJECT_TYPE_GONE_NVX_EXT":     "",
		"VK_DEBUG_REPORT_OBJECT_TYPE_TEMPLATE_KHR_EXT": "VK_OBJECT_TYPE_TEMPLATE", // via the object type's alias
	}
	for k, w := range want {
		if mapped[k] != w {
			t.Errorf("%s -> %q, want %q", k, mapped[k], w)
		}
	}
	if d, ok := tb.DebugReportByName("VK_DEBUG_REPORT_OBJECT_TYPE_INSTANCE_OLD_EXT"); !ok || d.Name != "VK_DEBUG_REPORT_OBJECT_TYPE_INSTANCE_EXT" {
		t.Errorf("alias lookup: %+v", d)
	}
	if u := tb.Unmapped(); len(u) != 2 || u[0].Value != 31 || u[1].Value != 40 {
		t.Errorf("Unmapped = %+v", u)
	}
	warns := strings.Join(tb.Warnings, "\n")
	if strings.Contains(warns, "ScOnly") {
		t.Errorf("warned about a handle outside the API:\n%s", warns)
	}
	for _, w := range []string{"GONE_NVX_EXT = 31", "VK_DEBUG_REPORT_ODD = 40: not of the form", "vkDestroyNothing"} {
		if !strings.Contains(warns, w) {
			t.Errorf("warnings lack %q:\n%s", w, warns)
		}
	}
	if strings.Contains(warns, "vkReleaseProfilingLockKHR") {
		t.Errorf("release of a lock warned about:\n%s", warns)
	}
	gotD := map[string]Destroyer{}
	for _, d := range tb.Destroyers {
		gotD[d.Command] = d
	}
	wantD := []Destroyer{
		{"vkDestroyInstance", "VK_OBJECT_TYPE_INSTANCE", 0, -1},
		{"vkDestroyTemplate", "VK_OBJECT_TYPE_TEMPLATE", 1, -1},
		{"vkDestroyTemplateKHR", "VK_OBJECT_TYPE_TEMPLATE", 1, -1},
		{"vkFreeCommandBuffers", "VK_OBJECT_TYPE_COMMAND_BUFFER", 3, 2},
		{"vkFreeMemory", "VK_OBJECT_TYPE_DEVICE_MEMORY", 1, -1},
	}
	if len(tb.Destroyers) != len(wantD) {
		t.Errorf("destroyers: %+v", tb.Destroyers)
	}
	for i, w := range wantD {
		if gotD[w.Command] != w || tb.Destroyers[i].Command != w.Command {
			t.Errorf("destroyer %d: %+v, want %+v", i, gotD[w.Command], w)
		}
	}
}

func TestGoName(t *testing.T) {
	tb, err := Derive(miniRegistry())
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		"DEBUG_REPORT_CALLBACK_EXT": "DebugReportCallbackEXT",
		"CU_MODULE_NVX":             "CuModuleNVX",
		"BUFFER":                    "Buffer",
		"SURFACE_KHR":               "SurfaceKHR",
		"A__B":                      "AB",
	} {
		if got := tb.GoName(in); got != want {
			t.Errorf("GoName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMapName(t *testing.T) {
	for in, want := range map[string]string{
		"VK_DEBUG_REPORT_OBJECT_TYPE_DEBUG_REPORT_CALLBACK_EXT_EXT": "VK_OBJECT_TYPE_DEBUG_REPORT_CALLBACK_EXT",
		"VK_DEBUG_REPORT_OBJECT_TYPE_CUDA_MODULE_NV_EXT":            "VK_OBJECT_TYPE_CUDA_MODULE_NV",
		"VK_DEBUG_REPORT_OBJECT_TYPE_EXT":                           "",
		"VK_OBJECT_TYPE_BUFFER":                                     "",
		"VK_DEBUG_REPORT_OBJECT_TYPE_BUFFER":                        "",
	} {
		got, ok := MapName(in)
		if got != want || ok != (want != "") {
			t.Errorf("MapName(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}

func TestDeriveBadInput(t *testing.T) {
	if _, err := Derive(nil); err == nil {
		t.Error("nil registry accepted")
	}
	r := miniRegistry()
	r.Enums[0].Values = append(r.Enums[0].Values, &registry.EnumValue{Name: "VK_OBJECT_TYPE_CLASH", Value: 3})
	if _, err := Derive(r); err == nil || !strings.Contains(err.Error(), "VK_OBJECT_TYPE_CLASH") {
		t.Errorf("duplicate value: err = %v", err)
	}
	// A registry without the enums (Vulkan 1.0) and with nil entries derives empty tables.
	tb, err := Derive(&registry.Registry{Handles: []*registry.Handle{nil}, Enums: []*registry.Enum{nil}, Commands: []*registry.Command{nil}})
	if err != nil || tb.HasObjectType() || len(tb.DebugReport) != 0 {
		t.Errorf("empty registry: %+v, %v", tb, err)
	}
}
