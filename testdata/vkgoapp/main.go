// Command vkgoapp is a Go (cgo) Vulkan application used by the layer
// framework's tests: after creating a Vulkan instance (which loads any enabled
// vkgen layer, i.e. a second Go runtime) it checks that this program's own Go
// runtime still preempts asynchronously: a goroutine spins in a loop with no
// preemption points while the main goroutine runs a GC, which must stop it.
// Prints "gc_ms=N". Without working preemption the GC's stop-the-world never
// completes and the whole program hangs, so callers run it under a timeout.
package main

/*
#cgo LDFLAGS: -lvulkan
#include <vulkan/vulkan.h>
static VkResult create_destroy(void) {
	VkInstanceCreateInfo ci = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
	VkInstance inst;
	VkResult r = vkCreateInstance(&ci, NULL, &inst);
	if (r == VK_SUCCESS) vkDestroyInstance(inst, NULL);
	return r;
}
*/
import "C"

import (
	"fmt"
	"os"
	"runtime"
	"sync/atomic"
	"time"
)

//go:noinline
func spinner(stop *atomic.Bool) {
	n := 0
	for !stop.Load() {
		n++ // no calls: only asynchronous preemption can stop this loop
	}
	_ = n
}

func main() {
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
