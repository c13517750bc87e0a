// Package example is VK_LAYER_VKGEN_example, the smallest vkgen layer: it hooks what it
// implements (pre<Cmd>/post<Cmd>), counts calls and keeps names (re-applied ones never reach Go),
// written to $VKGEN_EXAMPLE_OUT at vkDestroyInstance; $VKGEN_EXAMPLE_PANIC=<cmd> panics there.
package example

import (
	"encoding/json"
	"github.com/vkgen/vkgen/layer"
	"github.com/vkgen/vkgen/layer/vk"
	"os"
	"strings"
	"sync"
	"unsafe"
)

// Report is one line of $VKGEN_EXAMPLE_OUT.
type Report struct {
	Calls  map[string]int64  `json:"calls"` // Go hook calls per command
	Names  map[uint64]string `json:"names"` // the last name per handle
	Panics int64             `json:"panics"`
}

var mu, r = sync.Mutex{}, Report{Calls: map[string]int64{}, Names: map[uint64]string{}}

func count(cmd string, ok bool) {
	if mu.Lock(); ok {
		r.Calls[cmd]++
	}
	if mu.Unlock(); os.Getenv("VKGEN_EXAMPLE_PANIC") == cmd {
		panic("deliberate panic: VKGEN_EXAMPLE_PANIC=" + cmd)
	}
}
func postCreateInstance(_ *vk.InstanceCreateInfo, _ *vk.AllocationCallbacks, _ *vk.Instance, res vk.Result) {
	count("vkCreateInstance", res == vk.Success)
}
func postCreateDevice(_ vk.PhysicalDevice, _ *vk.DeviceCreateInfo, _ *vk.AllocationCallbacks, _ *vk.Device, res vk.Result) {
	count("vkCreateDevice", res == vk.Success)
}
func preCreateBuffer(vk.Device, *vk.BufferCreateInfo, *vk.AllocationCallbacks, *vk.Buffer) {
	count("vkCreateBuffer", true)
}
func preSetDebugUtilsObjectNameEXT(_ vk.Device, info *vk.DebugUtilsObjectNameInfoEXT) {
	if mu.Lock(); info != nil { // a copy: the C string dies with the call
		r.Names[info.ObjectHandle] = strings.Clone(layer.CStringView(unsafe.Pointer(info.PObjectName)))
	}
	mu.Unlock()
	count("vkSetDebugUtilsObjectNameEXT", true)
}
func postDestroyInstance(vk.Instance, *vk.AllocationCallbacks) {
	count("vkDestroyInstance", true)
	mu.Lock()
	defer mu.Unlock()
	r.Panics = layer.Panics()
	if f, err := os.OpenFile(os.Getenv("VKGEN_EXAMPLE_OUT"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600); err == nil {
		json.NewEncoder(f).Encode(r) // one line
		f.Close()
	}
	r = Report{Calls: map[string]int64{}, Names: map[uint64]string{}}
}
