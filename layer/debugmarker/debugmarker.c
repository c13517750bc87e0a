/* VK_LAYER_VKGEN_DebugMarker: the C half of the layer's own code. Everything
 * here runs on every call and never enters Go except through
 * debugmarkerForget, and then only for handles that may have a name (and
 * never in a forked child, see vkgen_fork.h). */
#include <stdlib.h>

#include "vkgen_debugmarker.h"
#include "_cgo_export.h"

/* Handles that were ever given a name: a 65536-bit filter with no false
 * negatives, so a destroy of an object that was never named (the common
 * case) does not cross into Go. Bits are never cleared; a false positive only
 * costs one Go call that finds nothing to forget. */
#define NAMED_BITS 65536
static uint64_t named[NAMED_BITS / 64];

static inline uint32_t named_bit(uint64_t handle) {
	return (uint32_t)((handle * 0x9E3779B97F4A7C15ull) >> 48);
}

static void mark_named(uint64_t handle) {
	uint32_t b = named_bit(handle);
	uint64_t m = 1ull << (b & 63);
	/* Plain load first: re-naming must not pay for an atomic read-modify-write. */
	if (!(__atomic_load_n(&named[b >> 6], __ATOMIC_RELAXED) & m)) __atomic_fetch_or(&named[b >> 6], m, __ATOMIC_RELAXED);
}

static int maybe_named(uint64_t handle) {
	uint32_t b = named_bit(handle);
	return (__atomic_load_n(&named[b >> 6], __ATOMIC_RELAXED) >> (b & 63)) & 1;
}

/* The mark precedes the Go hook that stores the name; naming and destroying
 * one object are externally synchronized by the Vulkan rules. */
VkResult debugmarker_pre_SetDebugUtilsObjectNameEXT(struct vkgen_call *call, VkDevice *device,
                                                    const VkDebugUtilsObjectNameInfoEXT **pNameInfo) {
	(void)call, (void)device;
	if (*pNameInfo) mark_named((*pNameInfo)->objectHandle);
	return VK_SUCCESS;
}

VkResult debugmarker_pre_DebugMarkerSetObjectNameEXT(struct vkgen_call *call, VkDevice *device,
                                                     const VkDebugMarkerObjectNameInfoEXT **pNameInfo) {
	(void)call, (void)device;
	if (*pNameInfo) mark_named((*pNameInfo)->object);
	return VK_SUCCESS;
}

void debugmarker_forget(struct vkgen_call *call, uint64_t device, int32_t object_type, uint64_t handle) {
	(void)call;
	if (maybe_named(handle) && vkgen_go_ok()) debugmarkerForget(device, object_type, handle);
}

/* Messengers the layer created itself because nothing below implements
 * VK_EXT_debug_utils: the handle is the address of a small allocation, so it
 * is non-null and unique while alive, and vkDestroyDebugUtilsMessengerEXT
 * recognises it (the set is looked up by handle value). */
static struct vkgen_map own_messengers = VKGEN_MAP_INIT;

struct own_messenger {
	VkInstance instance;
};

VkResult debugmarker_fallback_CreateDebugUtilsMessengerEXT(struct vkgen_call *call, VkInstance instance,
                                                           const VkDebugUtilsMessengerCreateInfoEXT *pCreateInfo,
                                                           const VkAllocationCallbacks *pAllocator,
                                                           VkDebugUtilsMessengerEXT *pMessenger) {
	(void)call, (void)pCreateInfo, (void)pAllocator;
	if (!pMessenger) return VK_ERROR_INITIALIZATION_FAILED;
	struct own_messenger *m = calloc(1, sizeof(*m));
	if (!m) return VK_ERROR_OUT_OF_HOST_MEMORY;
	m->instance = instance;
	if (vkgen_map_put(&own_messengers, (uintptr_t)m, m) != 0) {
		free(m);
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	}
	*pMessenger = (VkDebugUtilsMessengerEXT)(uintptr_t)m;
	return VK_SUCCESS;
}

/* Our own messenger never reaches the chain below (which did not create it);
 * it is freed in the post hook, after the generated forget ran, so its
 * address cannot be handed out again while its name is still stored. */
VkResult debugmarker_pre_DestroyDebugUtilsMessengerEXT(struct vkgen_call *call, VkInstance *instance,
                                                       VkDebugUtilsMessengerEXT *messenger,
                                                       const VkAllocationCallbacks **pAllocator) {
	(void)instance, (void)pAllocator;
	if (!*messenger) return VK_SUCCESS;
	call->user = vkgen_map_del(&own_messengers, (uintptr_t)*messenger);
	return call->user ? VK_INCOMPLETE /* any result but VK_SUCCESS skips the call down */ : VK_SUCCESS;
}

void debugmarker_post_DestroyDebugUtilsMessengerEXT(struct vkgen_call *call, VkInstance instance,
                                                    VkDebugUtilsMessengerEXT messenger,
                                                    const VkAllocationCallbacks *pAllocator) {
	(void)instance, (void)messenger, (void)pAllocator;
	free(call->user);
}
