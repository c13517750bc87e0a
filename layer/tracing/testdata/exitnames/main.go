// Command exitnames records naming calls into the deferred-hook ring as the
// DebugMarker layer's trampolines do, with no drain to run them, then kills
// itself: the exit watcher must write the durable ones into the trace file.
// Used by TestExitWritesPendingNames.
package main

/*
#cgo CFLAGS: -I${SRCDIR}/../../..
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan_core.h>

#include "vkgen_defer.h"
#include "vkgen_ring.h"

extern const struct vkgen_cap_type vkgen_cap_VkDebugUtilsObjectNameInfoEXT, vkgen_cap_VkDebugMarkerObjectNameInfoEXT;
static const struct vkgen_cap_ptr utils_params[] = {
	{0, VKGEN_CAP_VALUE, 0, 0, 0, 0, 0},
	{0, VKGEN_CAP_STRUCT, 0, 0, 0, 0, &vkgen_cap_VkDebugUtilsObjectNameInfoEXT},
};
static const struct vkgen_cap_ptr marker_params[] = {
	{0, VKGEN_CAP_VALUE, 0, 0, 0, 0, 0},
	{0, VKGEN_CAP_STRUCT, 0, 0, 0, 0, &vkgen_cap_VkDebugMarkerObjectNameInfoEXT},
};
static const struct vkgen_cap_cmd utils = {1, 2, utils_params, .names = VKGEN_NAMES_UTILS};
static const struct vkgen_cap_cmd marker = {2, 2, marker_params, .names = VKGEN_NAMES_MARKER};
static const struct vkgen_cap_cmd plain = {3, 2, utils_params}; // a hook that is not durable

static void name(int kind, uint64_t device, int32_t type, uint64_t handle, const char *s) {
	VkDebugUtilsObjectNameInfoEXT u = {VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT, NULL, (VkObjectType)type, handle, s};
	VkDebugMarkerObjectNameInfoEXT m = {VK_STRUCTURE_TYPE_DEBUG_MARKER_OBJECT_NAME_INFO_EXT, NULL, (VkDebugReportObjectTypeEXT)type, handle, s};
	uint64_t args[2] = {device, kind == 2 ? (uint64_t)(uintptr_t)&m : (uint64_t)(uintptr_t)&u};
	vkgen_defer(kind == 1 ? &utils : kind == 2 ? &marker : &plain, args, 0);
}

static char *repeat(char c, size_t n) {
	char *s = malloc(n + 1);
	memset(s, c, n);
	s[n] = 0;
	return s;
}
*/
import "C"

import (
	"fmt"
	"os"

	"github.com/vkgen/vkgen/layer/tracing"
)

func name(kind int, device uint64, typ int32, handle uint64, s *C.char) {
	C.name(C.int(kind), C.uint64_t(device), C.int32_t(typ), C.uint64_t(handle), s)
}

func main() {
	if C.vkgen_ring_init() != 0 {
		fmt.Fprintln(os.Stderr, "exitnames: no ring")
		os.Exit(2)
	}
	early := C.CString("named before tracing")
	name(1, 0xd1, 9, 0x100, early) // no timestamp: written at the time of the end
	if err := tracing.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "exitnames:", err)
		os.Exit(2)
	}
	for _, n := range []struct {
		kind   int
		typ    int32
		handle uint64
		s      *C.char
	}{
		{1, 9, 0x1000, C.CString("buffer a")},
		{2, 9, 0x1001, C.CString("buffer b (debug marker)")},
		{2, 28, 0x1002, C.CString("callback (debug marker type 28)")},
		{1, 8, 0x1003, C.CString("bad \xff utf-8")},
		{1, 9, 0x1004, C.repeat('x', 5000)},       // cut to MaxStringLen
		{1, 10, 0x1005, C.repeat('y', 2<<20)},     // past the ring's inline limit: a heap copy
		{1, 9, 0x1006, C.CString("")},             // a removal
		{1, 0, 0x1007, C.CString("unknown type")}, // refused, as the name store does
		{1, 9, 0, C.CString("null handle")},
		{2, 1000, 0x1008, C.CString("unmapped marker type")},
		{3, 9, 0x1009, C.CString("not durable")},
	} {
		name(n.kind, 0xd1, n.typ, n.handle, n.s)
	}
	C.raise(C.SIGKILL)
}
