package layerstubs

import (
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/internal/testenv"
	"github.com/vkgen/vkgen/internal/testreg"
	"github.com/vkgen/vkgen/registry"
)

// header is the start of every hook file of the tests.
const header = `package x

import (
	"unsafe"

	"github.com/vkgen/vkgen/layer"
	"github.com/vkgen/vkgen/layer/vk"
)

var _ = unsafe.Pointer(nil)
var _ *layer.Call
`

// layerDir writes a layer package (spec and Go source) into a temporary
// directory and discovers what it implements.
func layerDir(t *testing.T, spec, src string) (*Spec, *Impl, string) {
	t.Helper()
	s, err := ParseSpec([]byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x.go"), []byte(header+src), 0o644); err != nil {
		t.Fatal(err)
	}
	impl, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s, impl, dir
}

func gen(t *testing.T, r *registry.Registry, spec, src string) (map[string]string, error) {
	t.Helper()
	s, impl, _ := layerDir(t, spec, src)
	files, _, err := Generate(r, "fw", []Layer{{Dir: "x", Spec: s, Impl: impl}}, Options{})
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	for _, f := range files {
		m[path.Base(f.Name)] = string(f.Data)
	}
	return m, nil
}

func contains(t *testing.T, name, text string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q", name, w)
		}
	}
}

const spec = `{"name": "VK_LAYER_T_t", "symbol": "t", "description": "d"}`

func TestGenerate(t *testing.T) {
	r := testreg.Load(t, testenv.PinnedRegistry)
	out, err := gen(t, r, `{"name": "VK_LAYER_T_t", "symbol": "t", "description": "d",
		"instance_extensions": [{"name": "VK_EXT_debug_utils", "spec_version": 2}]}`, `
func preCreateDevice(c *layer.Call, phys *vk.PhysicalDevice, info **vk.DeviceCreateInfo, alloc **vk.AllocationCallbacks, out **vk.Device) vk.Result {
	return vk.Success
}
func postCreateDevice(c *layer.Call, phys vk.PhysicalDevice, info *vk.DeviceCreateInfo, alloc *vk.AllocationCallbacks, out *vk.Device, r vk.Result) {}
func preCmdSetBlendConstants(vk.CommandBuffer, *float32) {}
func postGetPhysicalDeviceProperties2(vk.PhysicalDevice, *vk.PhysicalDeviceProperties2) {}
func postMapMemory(vk.Device, vk.DeviceMemory, vk.DeviceSize, vk.DeviceSize, vk.MemoryMapFlags, *unsafe.Pointer, vk.Result) {}
func postSetDebugUtilsObjectNameEXT(vk.Device, *vk.DebugUtilsObjectNameInfoEXT, vk.Result) {}
func onDeviceMemoryReportCallbackEXT(*vk.DeviceMemoryReportCallbackDataEXT, unsafe.Pointer) {}
func use() { next.GetPhysicalDeviceProperties2KHR(0, nil); next.GetBufferMemoryRequirements(0, 0, nil) }
`)
	if err != nil {
		t.Fatal(err)
	}
	contains(t, "vkgen_t.c", out["vkgen_t.gen.c"],
		// the layer's part is a table: hooks per entry point (the runtime's
		// commands, own VKGEN_0, have their entries in VKGEN_RUNTIME_ENTRIES)
		"X(vkCreateDevice, VKGEN_0, 1, .c_pre = t_edit_CreateDevice, .go_post = vkgen_t_go_post_CreateDevice) \\\n",
		// every command of a claimed extension is intercepted and handed out
		// even when the driver lacks it; the messenger's stand-in is the framework's
		"X(vkCreateDebugUtilsMessengerEXT, VKGEN_1, 1, .fallback = vkgen_stub_messenger_create) \\\n",
		"X(vkDestroyDebugUtilsMessengerEXT, VKGEN_1, 1, .c_pre = vkgen_stub_messenger_destroy_pre, .c_post = vkgen_stub_messenger_destroy_post) \\\n",
		"X(vkQueueInsertDebugUtilsLabelEXT, VKGEN_1, 1, 0) \\\n",
		// a naming hook sits behind the name cache
		"X(vkSetDebugUtilsObjectNameEXT, VKGEN_1, 1, .go_post = vkgen_t_go_post_SetDebugUtilsObjectNameEXT, .name_cache = 1) \\\n",
		// unclaimed, hooked: guarded by the chain below
		"X(vkMapMemory, VKGEN_1, 0, .go_post = vkgen_t_go_post_MapMemory) \\\n",
		"VKGEN_HOOKS(VKGEN_LAYER_TRAMP)\n",
		"VKGEN_RUNTIME_ENTRIES(t_) VKGEN_HOOKS(VKGEN_LAYER_ENTRY)\n",
		// the editing pre hook's C wrapper
		"static VkResult t_edit_CreateDevice(struct vkgen_call *call, VkPhysicalDevice *physicalDevice, const VkDeviceCreateInfo* *pCreateInfo, const VkAllocationCallbacks* *pAllocator, VkDevice* *pDevice) {\n\treturn vkgen_go_ok() ? (VkResult)vkgen_t_go_edit_CreateDevice(call, (void *)physicalDevice, (void *)pCreateInfo, (void *)pAllocator, (void *)pDevice) : VK_SUCCESS;",
		// the callback thunk, which never enters Go in a forked child
		"VKAPI_ATTR void VKAPI_CALL vkgen_t_cb_DeviceMemoryReportCallbackEXT(const VkDeviceMemoryReportCallbackDataEXT* pCallbackData, void* pUserData) {\n\tif (vkgen_go_ok()) vkgen_t_go_on_DeviceMemoryReportCallbackEXT((void*)pCallbackData, (void*)pUserData);",
		// next-layer helpers: through the instance's or the device's table, by entry point
		"void vkgen_t_next_GetPhysicalDeviceProperties2KHR(int *ok, uintptr_t physicalDevice, void * pProperties) {\n\tstruct vkgen_instance *d = vkgen_instance_of(LAYER, (const void *)physicalDevice);\n\tPFN_vkGetPhysicalDeviceProperties2KHR fn = d ? (PFN_vkGetPhysicalDeviceProperties2KHR)d->tab[VKGEN_I_vkGetPhysicalDeviceProperties2KHR] : NULL;",
		"struct vkgen_device *d = vkgen_device_of(LAYER, (const void *)device);",
	)
	if !strings.Contains(out["vkgen_t.gen.c"], "VKGEN_FORGETS") {
		t.Error("a layer with a name cache does not intercept destroy commands to invalidate it")
	}
	contains(t, "vkgen_trampolines.h", out["vkgen_trampolines.gen.h"],
		"#define VKGEN_TRAMPOLINE(S, RET, R, VR, NC, DOWN, F, PARAMS, ARGS, PTRS, GOTYPES, GOARGS, U64ARGS, FORGET) \\\n")
	// the commands only the layer intercepts are instantiated in its own file
	contains(t, "vkgen_t.c", out["vkgen_t.gen.c"],
		// the alias calls down through its own slot
		"#define VKGEN_CMD_vkGetPhysicalDeviceProperties2KHR(X, ...) X(vkGetPhysicalDeviceProperties2KHR, GetPhysicalDeviceProperties2, void, VKGEN_0, VKGEN_I_vkGetPhysicalDeviceProperties2KHR, (VkPhysicalDevice physicalDevice, VkPhysicalDeviceProperties2* pProperties), (physicalDevice, pProperties), __VA_ARGS__)",
		"VKGEN_TRAMPOLINE(CreateDebugUtilsMessengerEXT, VkResult, VKGEN_1, VKGEN_1, VKGEN_0, instance, 0, ",
		// an array parameter reaches Go as a pointer
		", ((GoUintptr)commandBuffer, (void*)blendConstants), ((uint64_t)(uintptr_t)commandBuffer, (uint64_t)(uintptr_t)blendConstants), ())",
	)
	contains(t, "glue", out["vkgen_t_glue.gen.go"],
		// exports take plain cgo types and hand hooks package vk's types
		"func vkgen_t_go_post_MapMemory(call unsafe.Pointer, device uintptr, memory uint64, offset C.VkDeviceSize, size C.VkDeviceSize, flags C.VkMemoryMapFlags, ppData unsafe.Pointer, result C.VkResult) {",
		"postMapMemory(vk.Device(device), vk.DeviceMemory(memory), vk.DeviceSize(offset), vk.DeviceSize(size), vk.MemoryMapFlags(flags), (*unsafe.Pointer)(ppData), vk.Result(result))",
		"preCmdSetBlendConstants(vk.CommandBuffer(commandBuffer), (*float32)(blendConstants))",
		"return C.VkResult(preCreateDevice((*layer.Call)(call), (*vk.PhysicalDevice)(physicalDevice), (**vk.DeviceCreateInfo)(pCreateInfo), (**vk.AllocationCallbacks)(pAllocator), (**vk.Device)(pDevice)))",
		"postCreateDevice((*layer.Call)(call), vk.PhysicalDevice(physicalDevice),",
		"var pfnDeviceMemoryReportCallbackEXT = vk.PFNDeviceMemoryReportCallbackEXT(unsafe.Pointer(C.vkgen_t_cb_DeviceMemoryReportCallbackEXT))",
		"func (nextLayer) GetPhysicalDeviceProperties2KHR(physicalDevice vk.PhysicalDevice, pProperties *vk.PhysicalDeviceProperties2) bool {",
		"C.vkgen_t_next_GetBufferMemoryRequirements(&ok, C.uintptr_t(device), C.uint64_t(buffer), unsafe.Pointer(pMemoryRequirements))",
	)
	for name, f := range out {
		if !strings.Contains(f, "Code generated by vkgen. DO NOT EDIT.") || !strings.Contains(f, "Vulkan registry 1.4.359") {
			t.Errorf("%s does not record the generated header and the registry version", name)
		}
	}
	contains(t, "manifest", out["VkLayer_vkgen_t.gen.json"], `"vkGetInstanceProcAddr": "vkgen_t_GetInstanceProcAddr"`)
}

// TestLibrary: two layers share one framework that depends on neither's
// hooks; each layer's files hold its own table and trampolines.
func TestLibrary(t *testing.T) {
	r := testreg.Load(t, testenv.PinnedRegistry)
	a, ai, _ := layerDir(t, `{"name": "VK_LAYER_T_a", "symbol": "a", "description": "d"}`,
		"func preCreateBuffer(vk.Device, *vk.BufferCreateInfo, *vk.AllocationCallbacks, *vk.Buffer) {}\n")
	b, bi, _ := layerDir(t, `{"name": "VK_LAYER_T_b", "symbol": "b", "description": "d"}`,
		"func postCreateImage(vk.Device, *vk.ImageCreateInfo, *vk.AllocationCallbacks, *vk.Image, vk.Result) {}\n")
	files, _, err := Generate(r, "fw", []Layer{{Dir: "l/a", Spec: a, Impl: ai}, {Dir: "l/b", Spec: b, Impl: bi}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var fw, la int
	for _, f := range files {
		switch {
		case f.Name == "fw/vkgen_trampolines.gen.h":
			fw++
			if strings.Contains(string(f.Data), "VKGEN_TRAMPOLINE(CreateBuffer,") || strings.Contains(string(f.Data), "VKGEN_TRAMPOLINE(CreateImage,") {
				t.Error("the framework instantiates a layer's trampoline")
			}
		case f.Name == "l/a/vkgen_a.gen.c":
			la++
			contains(t, f.Name, string(f.Data), "VKGEN_TRAMPOLINE(CreateBuffer,")
			if strings.Contains(string(f.Data), "CreateImage") {
				t.Error("layer a's table holds layer b's command")
			}
			if strings.Contains(string(f.Data), "VKGEN_FORGETS") {
				t.Error("a layer with neither name cache nor forget hook intercepts destroy commands")
			}
		}
	}
	if fw != 1 || la != 1 {
		t.Errorf("framework written %d times, layer a %d times", fw, la)
	}
	if _, _, err := Generate(r, "fw", []Layer{{Dir: "l/a", Spec: a, Impl: ai}, {Dir: "l/a2", Spec: a, Impl: ai}}, Options{}); err == nil {
		t.Error("two layers with one symbol accepted")
	}
}

func TestBadSpecs(t *testing.T) {
	for name, spec := range map[string]string{
		"unknown field": `{"name": "VK_LAYER_T_t", "symbol": "t", "description": "d", "comands": []}`,
		"bad name":      `{"name": "layer", "symbol": "t", "description": "d"}`,
		"bad symbol":    `{"name": "VK_LAYER_T_t", "symbol": "T-1", "description": "d"}`,
		"commands":      `{"name": "VK_LAYER_T_t", "symbol": "t", "description": "d", "commands": []}`,
		"ext version":   `{"name": "VK_LAYER_T_t", "symbol": "t", "description": "d", "device_extensions": [{"name": "VK_EXT_debug_marker"}]}`,
		"not json":      `{`,
	} {
		if _, err := ParseSpec([]byte(spec)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	r := testreg.Load(t, testenv.PinnedRegistry)
	if _, err := gen(t, r, `{"name": "VK_LAYER_T_t", "symbol": "t", "description": "d", "device_extensions": [{"name": "VK_EXT_debug_utils", "spec_version": 2}]}`, ""); err == nil {
		t.Error("an instance extension claimed as a device extension was accepted")
	}
}

// TestBadHooks: a hook that cannot be what its name says stops generation
// with the function's position, the function and the expected signature.
func TestBadHooks(t *testing.T) {
	r := testreg.Load(t, testenv.PinnedRegistry)
	for name, c := range map[string]struct{ src, want string }{
		"wrong type": {"func preCreateBuffer(device uintptr, info unsafe.Pointer, a unsafe.Pointer, b *uint64) {}",
			"x.go:12:6: preCreateBuffer has type func(uintptr, unsafe.Pointer, unsafe.Pointer, *uint64); want func(vk.Device, *vk.BufferCreateInfo, *vk.AllocationCallbacks, *vk.Buffer), or func(*layer.Call, *vk.Device, **vk.BufferCreateInfo, **vk.AllocationCallbacks, **vk.Buffer) vk.Result to edit"},
		"post without result": {"func postCreateBuffer(vk.Device, *vk.BufferCreateInfo, *vk.AllocationCallbacks, *vk.Buffer) {}",
			"want func(vk.Device, *vk.BufferCreateInfo, *vk.AllocationCallbacks, *vk.Buffer, vk.Result) or func(*layer.Call, vk.Device, *vk.BufferCreateInfo, *vk.AllocationCallbacks, *vk.Buffer, vk.Result)"},
		"unknown command": {"func preCreateBufer() {}", "preCreateBufer: no Vulkan command vkCreateBufer"},
		"alias":           {"func preGetPhysicalDeviceProperties2KHR() {}", "vkGetPhysicalDeviceProperties2KHR is an alias of vkGetPhysicalDeviceProperties2"},
		"gipa":            {"func preGetDeviceProcAddr() {}", "vkGetDeviceProcAddr cannot be hooked"},
		"global":          {"func preEnumerateInstanceVersion(*uint32) {}", "global command vkEnumerateInstanceVersion cannot be intercepted"},
		"forget":          {"func forgetNamed(uint64, int32, uint64) {}", "the forget hook is func forgetNamed(vk.Device, vk.ObjectType, uint64)"},
		"callback":        {"func onNope() {}", "onNope: no Vulkan callback type PFN_vkNope"},
		"callback type":   {"func onDeviceMemoryReportCallbackEXT(unsafe.Pointer) {}", "want func(*vk.DeviceMemoryReportCallbackDataEXT, unsafe.Pointer)"},
		"next":            {"func f() { next.Nope() }", "next.Nope: no Vulkan command vkNope"},
		"next global":     {"func f() { next.EnumerateInstanceVersion(nil) }", "global command vkEnumerateInstanceVersion cannot be intercepted"},
		"query args": {"//vkgen:query vkGetImageMemoryRequirements2\nfunc afterBindImageMemory(vk.Device, vk.Image, vk.DeviceMemory, vk.DeviceSize, vk.Result, *vk.MemoryRequirements2) {}",
			"afterBindImageMemory: the query vkGetImageMemoryRequirements2 needs a parameter VkImageMemoryRequirementsInfo2 pInfo that vkBindImageMemory lacks"},
		"query result": {"//vkgen:query vkGetBufferMemoryRequirements\nfunc afterBindBufferMemory(vk.Device, vk.Buffer, vk.DeviceMemory, vk.DeviceSize, vk.Result) {}",
			"want func(vk.Device, vk.Buffer, vk.DeviceMemory, vk.DeviceSize, vk.Result, *vk.MemoryRequirements)"},
		"durable pre": {"//vkgen:durable\nfunc preSetDebugUtilsObjectNameEXT(vk.Device, *vk.DebugUtilsObjectNameInfoEXT) {}",
			"preSetDebugUtilsObjectNameEXT: //vkgen:durable applies to the deferred hooks (before, after) of vkSetDebugUtilsObjectNameEXT and vkDebugMarkerSetObjectNameEXT"},
		"old directive": {"//vkgen:defer untraced\nfunc preSetDebugUtilsObjectNameEXT(vk.Device, *vk.DebugUtilsObjectNameInfoEXT) {}",
			`preSetDebugUtilsObjectNameEXT: unknown directive "//vkgen:defer untraced" (vkgen has //vkgen:query <command> and //vkgen:durable)`},
		"forget directive": {"//vkgen:durable2\nfunc forgetNamed(vk.Device, vk.ObjectType, uint64) {}",
			`forgetNamed: unknown directive "//vkgen:durable2"`},
		"durable other": {"//vkgen:durable\nfunc beforeDestroyBuffer(vk.Device, vk.Buffer, *vk.AllocationCallbacks) {}",
			"beforeDestroyBuffer: //vkgen:durable applies to the deferred hooks"},
	} {
		_, err := gen(t, r, spec, c.src+"\n")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v\nwant it to contain %q", name, err, c.want)
		}
	}
}

// A durable naming hook's record says what it holds, for the exit watcher,
// which maps debug-marker object types with the generated table.
func TestDurableNames(t *testing.T) {
	r := testreg.Load(t, testenv.PinnedRegistry)
	src := "//vkgen:durable\nfunc beforeSetDebugUtilsObjectNameEXT(vk.Device, *vk.DebugUtilsObjectNameInfoEXT) {}\n" +
		"//vkgen:durable\nfunc afterDebugMarkerSetObjectNameEXT(vk.Device, *vk.DebugMarkerObjectNameInfoEXT, vk.Result) {}\n"
	out, err := gen(t, r, spec, src)
	if err != nil {
		t.Fatal(err)
	}
	contains(t, "vkgen_t.c", out["vkgen_t.gen.c"],
		"struct vkgen_cap_cmd vkgen_cap_t_afterDebugMarkerSetObjectNameEXT = {.nparams = 2, .params = vkgen_cap_t_afterDebugMarkerSetObjectNameEXT_params, .names = 2};",
		"struct vkgen_cap_cmd vkgen_cap_t_beforeSetDebugUtilsObjectNameEXT = {.nparams = 2, .params = vkgen_cap_t_beforeSetDebugUtilsObjectNameEXT_params, .names = 1};")
	contains(t, "vkgen_capture.c", out["vkgen_capture.gen.c"],
		"int32_t vkgen_object_type_of_report(int32_t t) {",
		"\tcase 9: return 9;\n",           // BUFFER
		"\tcase 28: return 1000011000;\n") // DEBUG_REPORT_CALLBACK_EXT
	s, impl, dir := layerDir(t, spec, src)
	hooks, _, err := Hooks(r, dir, s, impl, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	contains(t, "vkgen layer hooks", string(hooks),
		"\tbeforeSetDebugUtilsObjectNameEXT: deferred, recorded before vkSetDebugUtilsObjectNameEXT; durable\n",
		"\tafterDebugMarkerSetObjectNameEXT: deferred, recorded after vkDebugMarkerSetObjectNameEXT; durable\n")
}

// TestObjectNames: a layer declaring object_names gets the framework's
// naming records (durable, drained by package layer into the shared store)
// on both naming commands, the framework's forget record and named filter
// (one for all such layers) on every destroyer, and may not hook the naming commands or forget names
// itself.
func TestObjectNames(t *testing.T) {
	r := testreg.Load(t, testenv.PinnedRegistry)
	const named = `{"name": "VK_LAYER_T_t", "symbol": "t", "description": "d", "object_names": true}`
	out, err := gen(t, r, named, "func afterCreateBuffer(vk.Device, *vk.BufferCreateInfo, *vk.AllocationCallbacks, *vk.Buffer, vk.Result) {}\n")
	if err != nil {
		t.Fatal(err)
	}
	contains(t, "vkgen_t.c", out["vkgen_t.gen.c"],
		"X(vkSetDebugUtilsObjectNameEXT, VKGEN_1, 0, .defer_pre = &vkgen_cap_names_SetDebugUtilsObjectNameEXT, .names_once = 1, .name_cache = 1) \\\n",
		"X(vkDebugMarkerSetObjectNameEXT, VKGEN_1, 0, .defer_pre = &vkgen_cap_names_DebugMarkerSetObjectNameEXT, .names_once = 1, .name_cache = 1) \\\n",
		"\nVKGEN_FORGETS\n",
		".object_names = 1, .forget = &vkgen_cap_names_forget, .named = &vkgen_object_names_named)",
		"struct vkgen_cap_cmd vkgen_cap_t_afterCreateBuffer = {.nparams = 4,")
	if strings.Contains(out["vkgen_t.gen.c"], "static struct vkgen_named named;") {
		t.Error("the layer has a named filter of its own: the layers declaring object_names share the framework's")
	}
	if strings.Contains(out["vkgen_t.gen.c"], "vkgen_cap_names_forget = ") {
		t.Error("the layer's C file defines a framework record")
	}
	contains(t, "vkgen_capture.c", out["vkgen_capture.gen.c"],
		"struct vkgen_cap_cmd vkgen_cap_names_SetDebugUtilsObjectNameEXT = {.nparams = 2, .params = vkgen_cap_names_SetDebugUtilsObjectNameEXT_params, .names = 1};",
		"struct vkgen_cap_cmd vkgen_cap_names_DebugMarkerSetObjectNameEXT = {.nparams = 2, .params = vkgen_cap_names_DebugMarkerSetObjectNameEXT_params, .names = 2};",
		"struct vkgen_cap_cmd vkgen_cap_names_forget = {.nparams = 3, .params = vkgen_cap_names_forget_params};")
	contains(t, "glue", out["vkgen_t_glue.gen.go"], "\tnaming.Record() // the layer declares object_names\n")
	s, impl, dir := layerDir(t, named, "")
	hooks, _, err := Hooks(r, dir, s, impl, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	contains(t, "vkgen layer hooks", string(hooks), "\tobject names: the framework records the naming calls into objectnames.Shared()")
	for _, src := range []string{
		"func beforeSetDebugUtilsObjectNameEXT(vk.Device, *vk.DebugUtilsObjectNameInfoEXT) {}",
		"func preDebugMarkerSetObjectNameEXT(vk.Device, *vk.DebugMarkerObjectNameInfoEXT) {}",
		"func forgetNamed(vk.Device, vk.ObjectType, uint64) {}",
	} {
		name := src[len("func "):strings.Index(src, "(")]
		want := name + ": the layer declares object_names"
		if _, err := gen(t, r, named, src+"\n"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v\nwant it to contain %q", name, err, want)
		}
	}
}

// TestForgetNamed: a forgetNamed hook gets every destroyer intercepted (per
// ended handle with the device, 0 for instance-level commands, arrays per
// element, pools clearing the name cache, a swapchain's images asked for
// and forgotten before the swapchain) and the framework's named filter,
// which the naming commands mark.
func TestForgetNamed(t *testing.T) {
	r := testreg.Load(t, testenv.PinnedRegistry)
	out, err := gen(t, r, spec, "func forgetNamed(vk.Device, vk.ObjectType, uint64) {}\n")
	if err != nil {
		t.Fatal(err)
	}
	tr := out["vkgen_trampolines.gen.h"]
	contains(t, "vkgen_trampolines.h", tr,
		"vkgen_forget(L, (uint64_t)(uintptr_t)device, 9, (uint64_t)buffer, 0);",
		"for (uint32_t i = 0; i < commandBufferCount; i++) vkgen_forget(L, (uint64_t)(uintptr_t)device, 6, (uint64_t)(uintptr_t)pCommandBuffers[i], 0);",
		"vkgen_forget(L, (uint64_t)(uintptr_t)device, 25, (uint64_t)commandPool, 1);",
		"vkgen_forget(L, 0, 1000000000, (uint64_t)surface, 0);",
		"(vkgen_destroy_on = vkgen_destroy_enter(L, 1000001000, (uint64_t)(uintptr_t)device, (uint64_t)swapchain, &vkgen_destroy_saved); "+
			"vkgen_forget_images(L, (uint64_t)(uintptr_t)device, (uint64_t)swapchain, VKGEN_D_vkGetSwapchainImagesKHR); "+
			"vkgen_forget(L, (uint64_t)(uintptr_t)device, 1000001000, (uint64_t)swapchain, 0);)",
		// one forget record per destroy call (a layer declaring object_names below another in it makes none)
		"vkgen_destroy_enter(L, 6, (uint64_t)(uintptr_t)device, (uint64_t)(uintptr_t)pCommandBuffers, &vkgen_destroy_saved);",
		"if (vkgen_destroy_on) vkgen_destroy_leave(&vkgen_destroy_saved);",
		"\tX(vkDestroySurfaceKHR) \\\n",
		"NC(if (L->named) vkgen_names_mark_##S(L, VKGEN_UNPAREN ARGS);)",
	)
	i := strings.Index(tr, "VKGEN_TRAMPOLINE(DestroyDevice,")
	j := strings.Index(tr[i:], "\n")
	if i < 0 || j < 0 || strings.Contains(tr[i:i+j], "vkgen_forget(") {
		t.Error("vkDestroyDevice is the runtime's, not a forget call")
	}
	c := out["vkgen_t.gen.c"]
	contains(t, "vkgen_t.c", c, "\nVKGEN_FORGETS\n", "VKGEN_FORGET_ENTRIES", ".forget = &vkgen_cap_t_forgetNamed, .named = &named)",
		"X(vkSetDebugUtilsObjectNameEXT, VKGEN_1, 0, 0) \\\n", "X(vkDebugMarkerSetObjectNameEXT, VKGEN_1, 0, 0) \\\n")
	if strings.Contains(c, ".names") {
		t.Error("a forget hook without naming hooks must not have a name cache")
	}
	// forgetNamed is deferred: the trampolines record (device, type, handle)
	contains(t, "glue", out["vkgen_t_glue.gen.go"], "forgetNamed(vk.Device(r.Value(0)), vk.ObjectType(r.Value(1)), r.Value(2))")
	contains(t, "vkgen_t.c", out["vkgen_t.gen.c"], "struct vkgen_cap_cmd vkgen_cap_t_forgetNamed = {.nparams = 3, .params = vkgen_cap_t_forgetNamed_params};")
}

// TestDeferred: before/after hooks are recorded by the trampolines into the
// ring, with tables saying what of the call is copied, and registered by
// the glue; the layer's other Go hooks drain the ring first.
func TestDeferred(t *testing.T) {
	r := testreg.Load(t, testenv.PinnedRegistry)
	out, err := gen(t, r, spec, `
func afterCreateBuffer(vk.Device, *vk.BufferCreateInfo, *vk.AllocationCallbacks, *vk.Buffer, vk.Result) {}
//vkgen:query vkGetBufferMemoryRequirements
func afterBindBufferMemory(vk.Device, vk.Buffer, vk.DeviceMemory, vk.DeviceSize, vk.Result, *vk.MemoryRequirements) {}
func beforeDestroyBuffer(vk.Device, vk.Buffer, *vk.AllocationCallbacks) {}
func beforeSetDebugUtilsObjectNameEXT(vk.Device, *vk.DebugUtilsObjectNameInfoEXT) {}
func postDestroyDevice(vk.Device, *vk.AllocationCallbacks) {}
`)
	if err != nil {
		t.Fatal(err)
	}
	contains(t, "vkgen_t.c", out["vkgen_t.gen.c"],
		"X(vkCreateBuffer, VKGEN_1, 0, .defer_post = &vkgen_cap_t_afterCreateBuffer) \\\n",
		"X(vkDestroyBuffer, VKGEN_1, 0, .defer_pre = &vkgen_cap_t_beforeDestroyBuffer) \\\n",
		"X(vkSetDebugUtilsObjectNameEXT, VKGEN_1, 0, .defer_pre = &vkgen_cap_t_beforeSetDebugUtilsObjectNameEXT, .name_cache = 1) \\\n",
		"struct vkgen_cap_cmd vkgen_cap_t_afterCreateBuffer = {.nparams = 4, .params = vkgen_cap_t_afterCreateBuffer_params};",
		// a query runs through the next layer's table when the call is recorded
		"static void vkgen_t_query_afterBindBufferMemory(const uint64_t *a, void *out) {\n\tstruct vkgen_device *d = vkgen_device_of(LAYER, (const void *)(uintptr_t)a[0]);\n\tPFN_vkGetBufferMemoryRequirements fn = d ? (PFN_vkGetBufferMemoryRequirements)d->tab[VKGEN_D_vkGetBufferMemoryRequirements] : NULL;\n\tif (fn) fn((VkDevice)(uintptr_t)a[0], (VkBuffer)(uintptr_t)a[1], (VkMemoryRequirements *)out);\n}",
	)
	contains(t, "vkgen_t.c", out["vkgen_t.gen.c"],
		// device by value, the create info with its chain, no allocator,
		// the created handle
		"static const struct vkgen_cap_ptr vkgen_cap_t_afterCreateBuffer_params[] = {\n\t{0, VKGEN_CAP_VALUE, 0, 0, 0, 0, NULL},\n\t{0, VKGEN_CAP_STRUCT, 0, 0, 0, 0, &vkgen_cap_VkBufferCreateInfo},\n\t{0, VKGEN_CAP_NULL, 0, 0, 0, 0, NULL},\n\t{0, VKGEN_CAP_BYTES, 0, 0, 0, 8, NULL},\n};",
	)
	contains(t, "vkgen_capture.c", out["vkgen_capture.gen.c"],
		// pQueueFamilyIndices is valid only with VK_SHARING_MODE_CONCURRENT
		// (noautovalidity): never read, NULL in the copy
		"static const struct vkgen_cap_ptr vkgen_cap_VkBufferCreateInfo_ptrs[] = {\n\t{8, VKGEN_CAP_CHAIN, 0, 0, 0, 0, NULL},\n\t{48, VKGEN_CAP_NULL, 0, 0, 0, 0, NULL},\n};",
		"const struct vkgen_cap_type vkgen_cap_VkBufferCreateInfo = {56, 2, vkgen_cap_VkBufferCreateInfo_ptrs};",
		// the name is a string
		"{32, VKGEN_CAP_STRING, 0, 0, 0, 0, NULL}",
		// a structure a chain of a create info may carry, by its sType
		"case 1000072000: return &vkgen_cap_VkExternalMemoryBufferCreateInfo;",
	)
	contains(t, "glue", out["vkgen_t_glue.gen.go"],
		"layer.RegisterDeferred(unsafe.Pointer(&C.vkgen_cap_t_afterCreateBuffer), \"VK_LAYER_T_t\", \"afterCreateBuffer\", func(r *layer.Record) {\n\t\tafterCreateBuffer(vk.Device(r.Value(0)), (*vk.BufferCreateInfo)(r.Pointer(1)), (*vk.AllocationCallbacks)(r.Pointer(2)), (*vk.Buffer)(r.Pointer(3)), vk.Result(r.Result()))",
		"beforeDestroyBuffer(vk.Device(r.Value(0)), vk.Buffer(r.Value(1)), (*vk.AllocationCallbacks)(r.Pointer(2)))",
		"\tif layer.Sync() { // the deferred hooks of the calls before this one run first\n\t\tdefer layer.Unsync()\n\t}\n\tpostDestroyDevice(",
		"afterBindBufferMemory(vk.Device(r.Value(0)), vk.Buffer(r.Value(1)), vk.DeviceMemory(r.Value(2)), vk.DeviceSize(r.Value(3)), vk.Result(r.Result()), (*vk.MemoryRequirements)(r.Pointer(4)))",
	)
	contains(t, "vkgen_t.c", out["vkgen_t.gen.c"], "vkgen_cap_t_afterBindBufferMemory_params, .query = vkgen_t_query_afterBindBufferMemory, .query_size = 24};")
	if _, err := gen(t, r, spec, "func afterCmdSetBlendConstants(vk.CommandBuffer, *float32) {}\n"); err != nil {
		t.Errorf("an array parameter cannot be deferred: %v", err)
	}
	if _, err := gen(t, r, spec, "func afterCmdSetDepthBias(vk.CommandBuffer, float32, float32, float32) {}\n"); err == nil || !strings.Contains(err.Error(), "cannot be recorded") {
		t.Errorf("a float parameter was deferred: %v", err)
	}
}

// TestCallStacks: a layer declaring call_stacks gets records carrying the
// caller's stack on its after<Cmd> hooks of commands that create objects
// holding memory, and only there; without it, none.
func TestCallStacks(t *testing.T) {
	r := testreg.Load(t, testenv.PinnedRegistry)
	const src = "func afterCreateBuffer(vk.Device, *vk.BufferCreateInfo, *vk.AllocationCallbacks, *vk.Buffer, vk.Result) {}\n" +
		"func afterCreateBufferView(vk.Device, *vk.BufferViewCreateInfo, *vk.AllocationCallbacks, *vk.BufferView, vk.Result) {}\n" +
		"func beforeDestroyBuffer(vk.Device, vk.Buffer, *vk.AllocationCallbacks) {}\n"
	out, err := gen(t, r, `{"name": "VK_LAYER_T_t", "symbol": "t", "description": "d", "call_stacks": true}`, src)
	if err != nil {
		t.Fatal(err)
	}
	c := out["vkgen_t.gen.c"]
	contains(t, "vkgen_t.c", c, "_params, .stack = 1};")
	for _, line := range strings.Split(c, "\n") {
		if !strings.HasPrefix(line, "struct vkgen_cap_cmd ") {
			continue
		}
		want := strings.Contains(line, "_afterCreateBuffer = ")
		if got := strings.Contains(line, ".stack = 1"); got != want {
			t.Errorf("stack mark %v, want %v: %s", got, want, line)
		}
	}
	plain, err := gen(t, r, `{"name": "VK_LAYER_T_t", "symbol": "t", "description": "d"}`, src)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain["vkgen_t.gen.c"], ".stack = 1") {
		t.Error("a layer without call_stacks has records with call stacks")
	}
}
