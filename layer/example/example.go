// Package example is VK_LAYER_VKGEN_example, the minimal vkgen layer: it
// counts calls of a few commands in Go hooks and records object names, to
// show a layer author the whole path (vkgen-layer.json -> go generate ->
// hooks -> scripts/build-layers.sh -> enable). It owns only its hooks; the
// trampolines, glue and manifest are generated, and it must not import other
// layers.
//
// At every vkDestroyInstance the counts since the instance was created are
// appended as one JSON line to the file named by $VKGEN_EXAMPLE_OUT (if set),
// and the state is reset. $VKGEN_EXAMPLE_PANIC=<command> makes that
// command's Go hook panic on purpose, to demonstrate recovery.
package example

// #include <vulkan/vulkan.h>
import "C"

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"unsafe"

	"github.com/vkgen/vkgen/layer"
)

// Report is one line of $VKGEN_EXAMPLE_OUT.
type Report struct {
	Calls map[string]int64 `json:"calls"` // Go hook invocations per command
	// Names is the last name Go saw per "type:handle" (debug-utils names).
	Names  map[string]string `json:"names"`
	Panics int64             `json:"panics"` // recovered hook panics in this process so far
}

type nameKey struct {
	device uintptr
	typ    int32
	handle uint64
}

var (
	panicOn = os.Getenv("VKGEN_EXAMPLE_PANIC")

	mu    sync.Mutex
	calls = map[string]int64{}
	names = map[nameKey]string{}
)

func count(cmd string) {
	mu.Lock()
	calls[cmd]++
	mu.Unlock()
	if panicOn == cmd {
		panic("deliberate panic requested by VKGEN_EXAMPLE_PANIC=" + cmd)
	}
}

func postCreateInstance(_ *C.VkInstanceCreateInfo, _ *C.VkAllocationCallbacks, _ *uintptr, result C.VkResult) {
	if result == C.VK_SUCCESS {
		count("vkCreateInstance")
	}
}

func postCreateDevice(_ uintptr, _ *C.VkDeviceCreateInfo, _ *C.VkAllocationCallbacks, _ *uintptr, result C.VkResult) {
	if result == C.VK_SUCCESS {
		count("vkCreateDevice")
	}
}

func preCreateBuffer(_ uintptr, _ *C.VkBufferCreateInfo, _ *C.VkAllocationCallbacks, _ *uint64) {
	count("vkCreateBuffer")
}

func postCreateBuffer(_ uintptr, _ *C.VkBufferCreateInfo, _ *C.VkAllocationCallbacks, pBuffer *uint64, result C.VkResult) {
	if result == C.VK_SUCCESS && pBuffer != nil && *pBuffer != 0 {
		count("vkCreateBuffer:success")
	}
}

func preDestroyBuffer(_ uintptr, buffer uint64, _ *C.VkAllocationCallbacks) {
	if buffer != 0 {
		count("vkDestroyBuffer")
	}
}

func postCreateImage(_ uintptr, _ *C.VkImageCreateInfo, _ *C.VkAllocationCallbacks, _ *uint64, result C.VkResult) {
	if result == C.VK_SUCCESS {
		count("vkCreateImage")
	}
}

func preDestroyImage(_ uintptr, image uint64, _ *C.VkAllocationCallbacks) {
	if image != 0 {
		count("vkDestroyImage")
	}
}

func preQueueSubmit(_ uintptr, _ C.uint32_t, _ *C.VkSubmitInfo, _ uint64) {
	count("vkQueueSubmit")
}

// preSetDebugUtilsObjectNameEXT runs only when the name changed: the C name
// cache filters re-applied names (name_cache in vkgen-layer.json).
func preSetDebugUtilsObjectNameEXT(device uintptr, info *C.VkDebugUtilsObjectNameInfoEXT) {
	const cmd = "vkSetDebugUtilsObjectNameEXT"
	if info == nil {
		return // invalid usage: the call down reports it, if anything does
	}
	k := nameKey{device, int32(info.objectType), uint64(info.objectHandle)}
	name := layer.CStringView(unsafe.Pointer(info.pObjectName))
	mu.Lock()
	calls[cmd]++
	if info.pObjectName == nil {
		delete(names, k)
	} else if old, ok := names[k]; !ok || old != name {
		names[k] = strings.Clone(name) // the C string dies with the call
	}
	mu.Unlock()
	if panicOn == cmd {
		panic("deliberate panic requested by VKGEN_EXAMPLE_PANIC=" + cmd)
	}
}

// preDebugMarkerSetObjectNameEXT is never reached on drivers without
// VK_EXT_debug_marker: the layer does not claim the extension, so
// vkGetDeviceProcAddr returns NULL for it.
func preDebugMarkerSetObjectNameEXT(_ uintptr, _ *C.VkDebugMarkerObjectNameInfoEXT) {
	count("vkDebugMarkerSetObjectNameEXT")
}

// postDestroyInstance reports and resets: layer state lives per instance.
func postDestroyInstance(_ uintptr, _ *C.VkAllocationCallbacks) {
	count("vkDestroyInstance")
	mu.Lock()
	r := Report{Calls: calls, Names: map[string]string{}, Panics: layer.Panics()}
	for k, v := range names {
		r.Names[fmt.Sprintf("%d:%#x", k.typ, k.handle)] = v
	}
	calls = map[string]int64{}
	names = map[nameKey]string{}
	mu.Unlock()
	if path := os.Getenv("VKGEN_EXAMPLE_OUT"); path != "" {
		if err := appendReport(path, &r); err != nil {
			fmt.Fprintf(os.Stderr, "vkgen: VK_LAYER_VKGEN_example: %v\n", err)
		}
	}
}

func appendReport(path string, r *Report) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(append(b, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
