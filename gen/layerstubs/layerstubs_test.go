package layerstubs

import (
	"path"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/internal/testenv"
	"github.com/vkgen/vkgen/internal/testreg"
	"github.com/vkgen/vkgen/registry"
)

func gen(t *testing.T, r *registry.Registry, spec string) (map[string]string, error) {
	t.Helper()
	s, err := ParseSpec([]byte(spec))
	if err != nil {
		return nil, err
	}
	files, err := Generate(r, "fw", []Layer{{Dir: "x", Spec: s}})
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

func TestGenerate(t *testing.T) {
	r := testreg.Load(t, testenv.PinnedRegistry)
	out, err := gen(t, r, `{"name": "VK_LAYER_T_t", "symbol": "t", "description": "d",
		"instance_extensions": [{"name": "VK_EXT_debug_utils", "spec_version": 2}],
		"commands": [
			{"name": "vkCreateDevice", "c_pre": true, "c_post": true},
			{"name": "vkCreateDebugUtilsMessengerEXT", "fallback": true},
			{"name": "vkCmdSetBlendConstants", "go_pre": true},
			{"name": "vkMapMemory", "go_post": true},
			{"name": "vkGetPhysicalDeviceProperties2"}
		]}`)
	if err != nil {
		t.Fatal(err)
	}
	contains(t, "vkgen_t.c", out["vkgen_t.c"],
		// the layer's part is a table: hooks per entry point (the runtime's
		// commands, own VKGEN_0, have their entries in VKGEN_RUNTIME_ENTRIES)
		"X(vkCreateDevice, VKGEN_0, 1, .c_pre = t_pre_CreateDevice, .c_post = t_post_CreateDevice) \\\n",
		// claimed extension command: handed out even when the driver lacks it
		"X(vkCreateDebugUtilsMessengerEXT, VKGEN_1, 1, .fallback = t_fallback_CreateDebugUtilsMessengerEXT) \\\n",
		// unclaimed: guarded by the chain below; the alias has its own row
		"X(vkGetPhysicalDeviceProperties2, VKGEN_1, 0, 0) \\\n",
		"X(vkGetPhysicalDeviceProperties2KHR, VKGEN_1, 0, 0) \\\n",
		// one trampoline and one intercepts entry per row
		"VKGEN_HOOKS(VKGEN_LAYER_TRAMP)\n",
		"VKGEN_RUNTIME_ENTRIES(t_) VKGEN_HOOKS(VKGEN_LAYER_ENTRY)\n",
	)
	if strings.Contains(out["vkgen_t.c"], "VKGEN_FORGETS") {
		t.Error("a layer with neither name cache nor forget hook intercepts destroy commands")
	}
	contains(t, "vkgen_trampolines.h", out["vkgen_trampolines.h"],
		// one body (VKGEN_TRAMPOLINE), instantiated once per command
		"#define VKGEN_TRAMPOLINE(S, RET, R, VR, NC, DOWN, F, PARAMS, ARGS, PTRS, GOTYPES, GOARGS, FORGET) \\\n",
		// the alias calls down through its own slot
		"#define VKGEN_CMD_vkGetPhysicalDeviceProperties2KHR(X, ...) X(vkGetPhysicalDeviceProperties2KHR, GetPhysicalDeviceProperties2, void, VKGEN_0, VKGEN_I_vkGetPhysicalDeviceProperties2KHR, (VkPhysicalDevice physicalDevice, VkPhysicalDeviceProperties2* pProperties), (physicalDevice, pProperties), __VA_ARGS__)",
		// C pre hook may replace parameters before the runtime walks the chain
		"VKGEN_TRAMPOLINE(CreateDevice, VkResult, VKGEN_1, VKGEN_1, VKGEN_0, call, vkgen_create_device, (VkPhysicalDevice physicalDevice, const VkDeviceCreateInfo* pCreateInfo, const VkAllocationCallbacks* pAllocator, VkDevice* pDevice), (physicalDevice, pCreateInfo, pAllocator, pDevice), (&physicalDevice, &pCreateInfo, &pAllocator, &pDevice),",
		// an instance-level command calls down the instance's table (else its fallback)
		"VKGEN_TRAMPOLINE(CreateDebugUtilsMessengerEXT, VkResult, VKGEN_1, VKGEN_1, VKGEN_0, instance, 0, ",
		// array parameter reaches Go as a pointer
		", ((GoUintptr)commandBuffer, (float*)blendConstants), ())",
	)
	contains(t, "vkgen_framework.h", out["vkgen_framework.h"],
		"VKGEN_SIGNATURES(CreateDevice, VkResult, VKGEN_1, (VkPhysicalDevice, const VkDeviceCreateInfo*, const VkAllocationCallbacks*, VkDevice*), (VkPhysicalDevice physicalDevice, const VkDeviceCreateInfo* pCreateInfo, const VkAllocationCallbacks* pAllocator, VkDevice* pDevice), (VkPhysicalDevice *physicalDevice, const VkDeviceCreateInfo* *pCreateInfo, const VkAllocationCallbacks* *pAllocator, VkDevice* *pDevice))",
		"#elif !(defined(VK_EXT_debug_utils))\n#error",
	)
	contains(t, "vkgen_t.h", out["vkgen_t.h"],
		"vkgen_pre_CreateDevice t_pre_CreateDevice;",
		"vkgen_post_CreateDevice t_post_CreateDevice;",
		"vkgen_fallback_CreateDebugUtilsMessengerEXT t_fallback_CreateDebugUtilsMessengerEXT;",
	)
	contains(t, "glue", out["vkgen_t_glue.go"],
		"func vkgen_t_go_post_MapMemory(device uintptr, memory uint64, offset C.VkDeviceSize, size C.VkDeviceSize, flags C.VkMemoryMapFlags, ppData *unsafe.Pointer, result C.VkResult)",
		"postMapMemory(device, memory, offset, size, flags, ppData, result)",
		// the compile-time signature check names the hook and the expected type
		"\t_ func(commandBuffer uintptr, blendConstants *C.float) ",
		"= preCmdSetBlendConstants\n",
		"calls preCmdSetBlendConstants, a func(commandBuffer uintptr, blendConstants *C.float).",
	)
	for name, f := range out {
		if !strings.Contains(f, "Code generated by vkgen. DO NOT EDIT.") || !strings.Contains(f, "Vulkan registry 1.4.359") {
			t.Errorf("%s does not record the generated header and the registry version", name)
		}
	}
	contains(t, "manifest", out["VkLayer_vkgen_t.json"], `"vkGetInstanceProcAddr": "vkgen_t_GetInstanceProcAddr"`)
}

// TestLibrary: two layers share one framework holding the union of their
// commands; each layer's file holds only its own table.
func TestLibrary(t *testing.T) {
	r := testreg.Load(t, testenv.PinnedRegistry)
	a, _ := ParseSpec([]byte(`{"name": "VK_LAYER_T_a", "symbol": "a", "description": "d", "commands": [{"name": "vkCreateBuffer", "go_pre": true}]}`))
	b, _ := ParseSpec([]byte(`{"name": "VK_LAYER_T_b", "symbol": "b", "description": "d", "commands": [{"name": "vkCreateImage", "go_post": true}]}`))
	files, err := Generate(r, "fw", []Layer{{Dir: "l/a", Spec: a}, {Dir: "l/b", Spec: b}})
	if err != nil {
		t.Fatal(err)
	}
	var fw, la int
	for _, f := range files {
		switch {
		case f.Name == "fw/vkgen_trampolines.h":
			fw++
			contains(t, f.Name, string(f.Data), "VKGEN_TRAMPOLINE(CreateBuffer,", "VKGEN_TRAMPOLINE(CreateImage,")
		case f.Name == "l/a/vkgen_a.c":
			la++
			if strings.Contains(string(f.Data), "CreateImage") {
				t.Error("layer a's table holds layer b's command")
			}
		}
	}
	if fw != 1 || la != 1 {
		t.Errorf("framework written %d times, layer a %d times", fw, la)
	}
	if _, err := Generate(r, "fw", []Layer{{Dir: "l/a", Spec: a}, {Dir: "l/a2", Spec: a}}); err == nil {
		t.Error("two layers with one symbol accepted")
	}
}

func TestBadSpecs(t *testing.T) {
	r := testreg.Load(t, testenv.PinnedRegistry)
	for name, spec := range map[string]string{
		"unknown field":   `{"name": "VK_LAYER_T_t", "symbol": "t", "description": "d", "comands": []}`,
		"bad name":        `{"name": "layer", "symbol": "t", "description": "d"}`,
		"bad symbol":      `{"name": "VK_LAYER_T_t", "symbol": "T-1", "description": "d"}`,
		"unknown command": `{"name": "VK_LAYER_T_t", "symbol": "t", "description": "d", "commands": [{"name": "vkNope"}]}`,
		"alias":           `{"name": "VK_LAYER_T_t", "symbol": "t", "description": "d", "commands": [{"name": "vkGetPhysicalDeviceProperties2KHR"}]}`,
		"hook gipa":       `{"name": "VK_LAYER_T_t", "symbol": "t", "description": "d", "commands": [{"name": "vkGetDeviceProcAddr", "go_pre": true}]}`,
		"global":          `{"name": "VK_LAYER_T_t", "symbol": "t", "description": "d", "commands": [{"name": "vkEnumerateInstanceVersion"}]}`,
		"name cache":      `{"name": "VK_LAYER_T_t", "symbol": "t", "description": "d", "commands": [{"name": "vkCreateBuffer", "go_pre": true, "name_cache": true}]}`,
		"cache no hook":   `{"name": "VK_LAYER_T_t", "symbol": "t", "description": "d", "commands": [{"name": "vkSetDebugUtilsObjectNameEXT", "name_cache": true}]}`,
		"ext type":        `{"name": "VK_LAYER_T_t", "symbol": "t", "description": "d", "device_extensions": [{"name": "VK_EXT_debug_utils", "spec_version": 2}]}`,
		"ext version":     `{"name": "VK_LAYER_T_t", "symbol": "t", "description": "d", "device_extensions": [{"name": "VK_EXT_debug_marker"}]}`,
		"twice":           `{"name": "VK_LAYER_T_t", "symbol": "t", "description": "d", "commands": [{"name": "vkCreateBuffer"}, {"name": "vkCreateBuffer"}]}`,
		"not json":        `{`,
	} {
		if _, err := gen(t, r, spec); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// forget_hook: every destroyer calls the layer's forget hook per ended
// handle with the device (0 for instance-level commands), arrays per
// element, pools for the pool itself (clearing the name cache).
func TestForgetHook(t *testing.T) {
	r := testreg.Load(t, testenv.PinnedRegistry)
	out, err := gen(t, r, `{"name": "VK_LAYER_T_t", "symbol": "t", "description": "d", "forget_hook": true,
		"commands": [{"name": "vkDestroyBuffer", "go_pre": true}]}`)
	if err != nil {
		t.Fatal(err)
	}
	tr := out["vkgen_trampolines.h"]
	contains(t, "vkgen_trampolines.h", tr,
		"vkgen_forget(L, (uint64_t)(uintptr_t)device, 9, (uint64_t)buffer, 0);",
		"for (uint32_t i = 0; i < commandBufferCount; i++) vkgen_forget(L, (uint64_t)(uintptr_t)device, 6, (uint64_t)(uintptr_t)pCommandBuffers[i], 0);",
		"vkgen_forget(L, (uint64_t)(uintptr_t)device, 25, (uint64_t)commandPool, 1);",
		"vkgen_forget(L, 0, 1000000000, (uint64_t)surface, 0);",
		"\tX(vkDestroySurfaceKHR) \\\n",
	)
	i := strings.Index(tr, "VKGEN_TRAMPOLINE(DestroyDevice,")
	j := strings.Index(tr[i:], "\n")
	if i < 0 || j < 0 || strings.Contains(tr[i:i+j], "vkgen_forget(") {
		t.Error("vkDestroyDevice is the runtime's, not a forget call")
	}
	contains(t, "vkgen_t.c", out["vkgen_t.c"], "\nVKGEN_FORGETS\n", "VKGEN_FORGET_ENTRIES", ".forget = t_forget)")
	if strings.Contains(out["vkgen_t.c"], ".names") {
		t.Error("forget_hook without name_cache must not have a name cache")
	}
	contains(t, "vkgen_t.h", out["vkgen_t.h"], "vkgen_forget_hook t_forget;")
}
