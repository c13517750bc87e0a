/* The heaps option: a second, device-local heap with one memory type of its
 * own (lavapipe has one heap), so heap indices mean something. Its memory is
 * lavapipe's memory type 0; every requirement that allows type 0 allows it
 * too, and driver-internal allocations are reported in it. */
#include <string.h>

#include "memdriver.h"

void md_add_heap(VkPhysicalDeviceMemoryProperties *p) {
	if (!(md_opts & MD_OPT_HEAPS) || p->memoryHeapCount >= VK_MAX_MEMORY_HEAPS || p->memoryTypeCount >= VK_MAX_MEMORY_TYPES)
		return;
	p->memoryHeaps[p->memoryHeapCount] = (VkMemoryHeap){MD_EXTRA_HEAP_SIZE, VK_MEMORY_HEAP_DEVICE_LOCAL_BIT};
	p->memoryTypes[p->memoryTypeCount++] = (VkMemoryType){VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, p->memoryHeapCount++};
}

uint32_t md_internal_heap(const struct md_device *d) {
	if (d->mem.memoryTypeCount > d->lower_types) return d->mem.memoryTypes[d->lower_types].heapIndex;
	return d->mem.memoryTypes[0].heapIndex;
}

static void widen(const struct md_device *d, uint32_t *bits) {
	if (d->mem.memoryTypeCount > d->lower_types && (*bits & 1)) *bits |= 1u << d->lower_types;
}

static VKAPI_ATTR void VKAPI_CALL md_GetBufferMemoryRequirements(VkDevice device, VkBuffer b, VkMemoryRequirements *r) {
	struct md_device *d = md_device_of(device);
	d->GetBufferMemoryRequirements(device, b, r);
	widen(d, &r->memoryTypeBits);
}

static VKAPI_ATTR void VKAPI_CALL md_GetImageMemoryRequirements(VkDevice device, VkImage i, VkMemoryRequirements *r) {
	struct md_device *d = md_device_of(device);
	d->GetImageMemoryRequirements(device, i, r);
	widen(d, &r->memoryTypeBits);
}

static VKAPI_ATTR void VKAPI_CALL md_GetBufferMemoryRequirements2(VkDevice device, const VkBufferMemoryRequirementsInfo2 *info,
                                                                  VkMemoryRequirements2 *r) {
	struct md_device *d = md_device_of(device);
	d->GetBufferMemoryRequirements2(device, info, r);
	widen(d, &r->memoryRequirements.memoryTypeBits);
}

static VKAPI_ATTR void VKAPI_CALL md_GetImageMemoryRequirements2(VkDevice device, const VkImageMemoryRequirementsInfo2 *info,
                                                                 VkMemoryRequirements2 *r) {
	struct md_device *d = md_device_of(device);
	d->GetImageMemoryRequirements2(device, info, r);
	widen(d, &r->memoryRequirements.memoryTypeBits);
}

static VKAPI_ATTR void VKAPI_CALL md_GetDeviceBufferMemoryRequirements(VkDevice device,
                                                                       const VkDeviceBufferMemoryRequirements *info,
                                                                       VkMemoryRequirements2 *r) {
	struct md_device *d = md_device_of(device);
	if (!d->GetDeviceBufferMemoryRequirements) return; /* not offered below, not called by a valid application */
	d->GetDeviceBufferMemoryRequirements(device, info, r);
	widen(d, &r->memoryRequirements.memoryTypeBits);
}

static VKAPI_ATTR void VKAPI_CALL md_GetDeviceImageMemoryRequirements(VkDevice device,
                                                                      const VkDeviceImageMemoryRequirements *info,
                                                                      VkMemoryRequirements2 *r) {
	struct md_device *d = md_device_of(device);
	if (!d->GetDeviceImageMemoryRequirements) return;
	d->GetDeviceImageMemoryRequirements(device, info, r);
	widen(d, &r->memoryRequirements.memoryTypeBits);
}

PFN_vkVoidFunction md_heap_command(const char *name) {
	static const struct {
		const char *name;
		PFN_vkVoidFunction fn;
	} t[] = {
#define F(n, f) {n, (PFN_vkVoidFunction)md_##f}
	    F("vkGetBufferMemoryRequirements", GetBufferMemoryRequirements),
	    F("vkGetImageMemoryRequirements", GetImageMemoryRequirements),
	    F("vkGetBufferMemoryRequirements2", GetBufferMemoryRequirements2),
	    F("vkGetBufferMemoryRequirements2KHR", GetBufferMemoryRequirements2),
	    F("vkGetImageMemoryRequirements2", GetImageMemoryRequirements2),
	    F("vkGetImageMemoryRequirements2KHR", GetImageMemoryRequirements2),
	    F("vkGetDeviceBufferMemoryRequirements", GetDeviceBufferMemoryRequirements),
	    F("vkGetDeviceBufferMemoryRequirementsKHR", GetDeviceBufferMemoryRequirements),
	    F("vkGetDeviceImageMemoryRequirements", GetDeviceImageMemoryRequirements),
	    F("vkGetDeviceImageMemoryRequirementsKHR", GetDeviceImageMemoryRequirements),
#undef F
	};
	for (size_t k = 0; k < sizeof(t) / sizeof(t[0]); k++)
		if (strcmp(name, t[k].name) == 0) return t[k].fn;
	return NULL;
}
