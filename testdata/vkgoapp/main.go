// Command vkgoapp is a Go (cgo) Vulkan application used by the layer
// framework's tests. Creating a Vulkan instance loads any enabled vkgen
// layer, i.e. a second Go runtime, in this process.
//
//	vkgoapp            checks that this program's own Go runtime still
//	                   preempts asynchronously: a goroutine spins in a loop
//	                   with no preemption points while the main goroutine
//	                   runs a GC, which must stop it. Prints "gc_ms=N".
//	                   Without working preemption the GC's stop-the-world
//	                   never completes and the whole program hangs, so
//	                   callers run it under a timeout.
//	vkgoapp -names N   names N buffers "go-0".."go-(N-1)", prints "named N"
//	                   and returns from main without destroying anything: Go
//	                   ends the process with exit_group, so no exit(3)
//	                   handler runs.
package main

/*
#cgo CFLAGS: -I${SRCDIR}/../vkcommon
#cgo LDFLAGS: -lvulkan
#include "vkcommon.c"

static VkResult create_destroy(void) {
	VkInstanceCreateInfo ci = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
	VkInstance inst;
	VkResult r = vkCreateInstance(&ci, NULL, &inst);
	if (r == VK_SUCCESS) vkDestroyInstance(inst, NULL);
	return r;
}

static VkDevice dev;
static PFN_vkSetDebugUtilsObjectNameEXT set_name;

static void setup(void) {
	vkc_prog = "vkgoapp";
	dev = vkc_create_device(vkc_physical_device(vkc_create_instance("vkgoapp", NULL, 0, NULL)), 0, NULL);
	set_name = vkc_set_name_fn(dev);
}

static void name_new_buffer(const char *n) {
	VkDebugUtilsObjectNameInfoEXT info = {VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT, NULL,
	                                      VK_OBJECT_TYPE_BUFFER, (uint64_t)vkc_create_buffer(dev), n};
	CHECK(set_name(dev, &info));
}
*/
import "C"

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"
)

//go:noinline
func spinner(stop *atomic.Bool) {
	n := 0
	for !stop.Load() {
		n++ // no calls: only asynchronous preemption can stop this loop
	}
	_ = n
}

func preemption() {
	if r := C.create_destroy(); r != C.VK_SUCCESS {
		fmt.Fprintln(os.Stderr, "vkgoapp: vkCreateInstance:", r)
		os.Exit(1)
	}
	runtime.GOMAXPROCS(2)
	var stop atomic.Bool
	go spinner(&stop)
	time.Sleep(50 * time.Millisecond)
	t0 := time.Now()
	runtime.GC()
	stop.Store(true)
	fmt.Printf("gc_ms=%d\n", time.Since(t0).Milliseconds())
}

func name(n string) {
	cs := C.CString(n)
	defer C.free(unsafe.Pointer(cs))
	C.name_new_buffer(cs)
}

func main() {
	names := flag.Int("names", 0, "name this many buffers, then return from main")
	flag.Parse()
	if *names == 0 {
		preemption()
		return
	}
	C.setup()
	for i := range *names {
		name(fmt.Sprintf("go-%d", i))
	}
	fmt.Printf("named %d\n", *names)
}
