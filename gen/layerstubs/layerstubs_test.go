package layerstubs

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/internal/testenv"
	"github.com/vkgen/vkgen/internal/testreg"
	"github.com/vkgen/vkgen/registry"
)

// TestCommittedUpToDate regenerates every layer package under layer/ and
// fails when a committed stub or manifest differs: run go generate there.
func TestCommittedUpToDate(t *testing.T) {
	r := testreg.Load(t, testenv.PinnedRegistry)
	specs, _ := filepath.Glob(filepath.Join(testenv.Root(), "layer", "*", SpecFile))
	if len(specs) == 0 {
		t.Fatal("no layer specs found under layer/")
	}
	for _, sp := range specs {
		dir := filepath.Dir(sp)
		spec, err := LoadSpec(sp)
		if err != nil {
			t.Fatal(err)
		}
		files, err := Generate(r, spec, PackageName(dir))
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		for _, f := range files {
			got, err := os.ReadFile(filepath.Join(dir, f.Name))
			if err != nil {
				t.Errorf("%s: %v (run go generate in %s)", f.Name, err, dir)
				continue
			}
			if !bytes.Equal(got, f.Data) {
				t.Errorf("%s/%s is stale; run go generate in %s", filepath.Base(dir), f.Name, dir)
			}
		}
	}
}

func gen(t *testing.T, r *registry.Registry, spec string) (map[string]string, error) {
	t.Helper()
	s, err := ParseSpec([]byte(spec))
	if err != nil {
		return nil, err
	}
	files, err := Generate(r, s, "x")
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	for _, f := range files {
		m[f.Name] = string(f.Data)
	}
	return m, nil
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
	c, h, g := out["vkgen_t.c"], out["vkgen_t.h"], out["vkgen_t_glue.go"]
	for _, want := range []string{
		// claimed extension command: handed out even when the driver lacks it
		"[VKGEN_N_vkCreateDebugUtilsMessengerEXT] = {(PFN_vkVoidFunction)tramp_CreateDebugUtilsMessengerEXT, 1}",
		"else result = t_fallback_CreateDebugUtilsMessengerEXT(&call, instance, pCreateInfo, pAllocator, pMessenger);",
		// unclaimed: guarded by the chain below
		"[VKGEN_N_vkGetPhysicalDeviceProperties2] = {(PFN_vkVoidFunction)tramp_GetPhysicalDeviceProperties2, 0}",
		// the alias gets its own trampoline calling down through its own slot
		"d->tab[VKGEN_I_vkGetPhysicalDeviceProperties2KHR]",
		// C pre hook may replace parameters before the runtime walks the chain
		"VkResult pre = t_pre_CreateDevice(&call, &physicalDevice, &pCreateInfo, &pAllocator, &pDevice);",
		"result = vkgen_create_device(LAYER, physicalDevice, pCreateInfo, pAllocator, pDevice);",
		// array parameter reaches Go as a pointer
		"vkgen_t_go_pre_CmdSetBlendConstants((GoUintptr)(uintptr_t)commandBuffer, (float*)blendConstants);",
	} {
		if !strings.Contains(c, want) {
			t.Errorf("vkgen_t.c lacks %q", want)
		}
	}
	for _, want := range []string{
		"VkResult t_pre_CreateDevice(struct vkgen_call *call, VkPhysicalDevice *physicalDevice, const VkDeviceCreateInfo* *pCreateInfo,",
		"void t_post_CreateDevice(struct vkgen_call *call, VkPhysicalDevice physicalDevice,",
		"#if !(defined(VK_EXT_debug_utils))",
	} {
		if !strings.Contains(h, want) {
			t.Errorf("vkgen_t.h lacks %q", want)
		}
	}
	for _, want := range []string{
		"func vkgen_t_go_post_MapMemory(device uintptr, memory uint64, offset C.VkDeviceSize, size C.VkDeviceSize, flags C.VkMemoryMapFlags, ppData *unsafe.Pointer, result C.VkResult)",
		"postMapMemory(device, memory, offset, size, flags, ppData, result)",
	} {
		if !strings.Contains(g, want) {
			t.Errorf("glue lacks %q", want)
		}
	}
	if !strings.Contains(out["VkLayer_vkgen_t.json"], `"vkGetInstanceProcAddr": "vkgen_t_GetInstanceProcAddr"`) {
		t.Errorf("manifest lacks the functions remap:\n%s", out["VkLayer_vkgen_t.json"])
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

// forget_hook: every destroyer calls <symbol>_forget per ended handle with
// the device (0 for instance-level commands), arrays per element, pools for
// the pool itself; without name_cache nothing touches the cache.
func TestForgetHook(t *testing.T) {
	r := testreg.Load(t, testenv.PinnedRegistry)
	out, err := gen(t, r, `{"name": "VK_LAYER_T_t", "symbol": "t", "description": "d", "forget_hook": true,
		"commands": [{"name": "vkDestroyBuffer", "go_pre": true}]}`)
	if err != nil {
		t.Fatal(err)
	}
	c, h := out["vkgen_t.c"], out["vkgen_t.h"]
	for _, want := range []string{
		"if ((uint64_t)buffer) t_forget(&call, (uint64_t)(uintptr_t)device, 9, (uint64_t)buffer);",
		"if (pCommandBuffers) for (uint32_t i = 0; i < commandBufferCount; i++) if ((uint64_t)(uintptr_t)pCommandBuffers[i]) t_forget(&call, (uint64_t)(uintptr_t)device, 6, (uint64_t)(uintptr_t)pCommandBuffers[i]);",
		"if ((uint64_t)commandPool) t_forget(&call, (uint64_t)(uintptr_t)device, 25, (uint64_t)commandPool);",
		"if ((uint64_t)surface) t_forget(&call, 0, 1000000000, (uint64_t)surface);",
	} {
		if !strings.Contains(c, want) {
			t.Errorf("vkgen_t.c lacks %q", want)
		}
	}
	if strings.Contains(c, "vkgen_namecache") || strings.Contains(c, "tramp_ResetDescriptorPool") {
		t.Error("forget_hook without name_cache must not use the name cache")
	}
	if strings.Contains(c, "t_forget(&call, (uint64_t)(uintptr_t)device, 3,") {
		t.Error("vkDestroyDevice is the layer's own hook, not a forget call")
	}
	if !strings.Contains(h, "void t_forget(struct vkgen_call *call, uint64_t device, int32_t object_type, uint64_t handle);") {
		t.Error("vkgen_t.h does not declare t_forget")
	}
}
