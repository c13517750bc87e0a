/* Layer-owned C code of VK_LAYER_VKGEN_DeviceMemoryReport: enabling
 * VK_EXT_device_memory_report at vkCreateDevice, the report callback (a C
 * static function handing each event to Go), and bind-time requirement
 * queries the Go hooks need (cgo cannot call function pointers). */
#include "vkgen_memreport.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "_cgo_export.h"
#include "createinfo.h"

#define LAYER (&vkgen_memreport_layer)

/* inst->user bits: what the instance allows for the feature query. */
enum { INST_API_1_1 = 1, INST_PROPS2_KHR = 2 };

void memreport_post_CreateInstance(struct vkgen_call *call, const VkInstanceCreateInfo *ci,
                                   const VkAllocationCallbacks *alloc, VkInstance *out, VkResult result) {
	(void)call;
	(void)alloc;
	if (result != VK_SUCCESS || !out || !*out || !ci) return;
	struct vkgen_instance *inst = vkgen_instance_of(LAYER, *out);
	if (!inst) return;
	uintptr_t bits = 0;
	if (ci->pApplicationInfo && ci->pApplicationInfo->apiVersion >= VK_API_VERSION_1_1) bits |= INST_API_1_1;
	for (uint32_t i = 0; ci->ppEnabledExtensionNames && i < ci->enabledExtensionCount; i++)
		if (ci->ppEnabledExtensionNames[i] &&
		    strcmp(ci->ppEnabledExtensionNames[i], VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME) == 0)
			bits |= INST_PROPS2_KHR;
	inst->user = (void *)bits;
}

/* Whether the chain below offers the device extension. Accepts VK_INCOMPLETE
 * (the list grew between the two calls) by retrying with the new count. */
static int downstream_has_extension(struct vkgen_instance *inst, VkPhysicalDevice phys, const char *name) {
	PFN_vkEnumerateDeviceExtensionProperties enumerate = VKGEN_NEXT_INSTANCE(inst, vkEnumerateDeviceExtensionProperties);
	if (!enumerate) return 0;
	for (int attempt = 0; attempt < 4; attempt++) {
		uint32_t n = 0;
		if (enumerate(phys, NULL, &n, NULL) != VK_SUCCESS || n == 0) return 0;
		VkExtensionProperties *props = calloc(n, sizeof(*props));
		if (!props) return 0;
		VkResult r = enumerate(phys, NULL, &n, props);
		int found = 0;
		if (r == VK_SUCCESS || r == VK_INCOMPLETE)
			for (uint32_t i = 0; i < n && !found; i++) found = strncmp(props[i].extensionName, name, VK_MAX_EXTENSION_NAME_SIZE) == 0;
		free(props);
		if (found) return 1;
		if (r != VK_INCOMPLETE) return 0;
	}
	return 0;
}

/* Whether the instance allows *2 physical-device queries for phys (core 1.1
 * on a 1.1 device, or the KHR extension enabled). */
static int props2_allowed(struct vkgen_instance *inst, VkPhysicalDevice phys, int *core) {
	uintptr_t bits = (uintptr_t)inst->user;
	*core = 0;
	if (bits & INST_API_1_1) {
		PFN_vkGetPhysicalDeviceProperties props = VKGEN_NEXT_INSTANCE(inst, vkGetPhysicalDeviceProperties);
		VkPhysicalDeviceProperties p;
		memset(&p, 0, sizeof(p));
		if (props) props(phys, &p);
		*core = p.apiVersion >= VK_API_VERSION_1_1;
	}
	return *core || (bits & INST_PROPS2_KHR);
}

/* Whether the physical device supports the deviceMemoryReport feature, asked
 * only the ways the instance allows (core 1.1 or the KHR extension). */
static int feature_supported(struct vkgen_instance *inst, VkPhysicalDevice phys) {
	int core;
	PFN_vkGetPhysicalDeviceFeatures2 get = NULL;
	if (!props2_allowed(inst, phys, &core)) return 0;
	if (core) get = VKGEN_NEXT_INSTANCE(inst, vkGetPhysicalDeviceFeatures2);
	if (!get) get = (PFN_vkGetPhysicalDeviceFeatures2)VKGEN_NEXT_INSTANCE(inst, vkGetPhysicalDeviceFeatures2KHR);
	if (!get) return 0;
	VkPhysicalDeviceDeviceMemoryReportFeaturesEXT report = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DEVICE_MEMORY_REPORT_FEATURES_EXT};
	VkPhysicalDeviceFeatures2 f2 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &report};
	get(phys, &f2);
	return report.deviceMemoryReport == VK_TRUE;
}

/* Runs on whatever thread the driver reports from, possibly inside
 * vkCreateDevice before the VkDevice exists: pUserData is the device's
 * accounting token. */
static void VKAPI_PTR report_callback(const VkDeviceMemoryReportCallbackDataEXT *d, void *user) {
	if (!d || !vkgen_go_ok()) return;
	memreportCallback((GoUint64)(uintptr_t)user, (GoUint32)d->type, (GoUint64)d->memoryObjectId, (GoUint64)d->size,
	                  (GoInt32)d->objectType, (GoUint64)d->objectHandle, (GoUint32)d->heapIndex, (GoUint32)d->flags);
}

static atomic_uint_fast64_t next_token = 1;

VkResult memreport_pre_CreateDevice(struct vkgen_call *call, VkPhysicalDevice *phys, const VkDeviceCreateInfo **ci,
                                    const VkAllocationCallbacks **alloc, VkDevice **out) {
	(void)alloc;
	(void)out;
	struct vkgen_instance *inst = vkgen_instance_of(LAYER, *phys);
	int use = inst && *ci && downstream_has_extension(inst, *phys, VK_EXT_DEVICE_MEMORY_REPORT_EXTENSION_NAME) &&
	          feature_supported(inst, *phys);
	struct memreport_create *mc = memreport_build_create_info(*ci, use, atomic_fetch_add(&next_token, 1), report_callback);
	call->user = mc;
	if (mc && *ci) *ci = &mc->ci; /* out of memory: the application's info goes down unchanged */
	return VK_SUCCESS;
}

void memreport_post_CreateDevice(struct vkgen_call *call, VkPhysicalDevice phys, const VkDeviceCreateInfo *ci,
                                 const VkAllocationCallbacks *alloc, VkDevice *out, VkResult result) {
	(void)ci;
	(void)alloc;
	struct memreport_create *mc = call->user;
	uint64_t token = mc ? mc->token : 0;
	if (!vkgen_go_ok()) {
		/* a forked child: pass-through, no accounting */
	} else if (result == VK_SUCCESS && out && *out) {
		VkPhysicalDeviceMemoryProperties mp;
		memset(&mp, 0, sizeof(mp));
		struct vkgen_instance *inst = vkgen_instance_of(LAYER, phys);
		PFN_vkGetPhysicalDeviceMemoryProperties get = inst ? VKGEN_NEXT_INSTANCE(inst, vkGetPhysicalDeviceMemoryProperties) : NULL;
		if (get) get(phys, &mp);
		uint32_t flags[VK_MAX_MEMORY_TYPES], heaps[VK_MAX_MEMORY_TYPES];
		uint32_t n = mp.memoryTypeCount < VK_MAX_MEMORY_TYPES ? mp.memoryTypeCount : VK_MAX_MEMORY_TYPES;
		for (uint32_t i = 0; i < n; i++) {
			flags[i] = mp.memoryTypes[i].propertyFlags;
			heaps[i] = mp.memoryTypes[i].heapIndex;
		}
		/* VK_EXT_memory_budget: sampled through the *2 query the instance
		 * allows; the device's user field keeps that query for
		 * memreport_budget. */
		struct vkgen_device *d = vkgen_device_of(LAYER, *out);
		int core, budget = 0;
		if (d && inst && props2_allowed(inst, phys, &core) &&
		    downstream_has_extension(inst, phys, VK_EXT_MEMORY_BUDGET_EXTENSION_NAME)) {
			PFN_vkGetPhysicalDeviceMemoryProperties2 get2 =
			    core ? VKGEN_NEXT_INSTANCE(inst, vkGetPhysicalDeviceMemoryProperties2) : NULL;
			if (!get2)
				get2 = (PFN_vkGetPhysicalDeviceMemoryProperties2)VKGEN_NEXT_INSTANCE(inst, vkGetPhysicalDeviceMemoryProperties2KHR);
			d->user = (void *)get2;
			budget = get2 != NULL;
		}
		memreportDeviceCreated((GoUintptr)(uintptr_t)*out, (GoUintptr)(uintptr_t)(inst ? inst->handle : NULL), token,
		                       mc && mc->callback, flags, heaps, n, budget);
	} else if (token) {
		memreportDeviceFailed(token); /* drop what callbacks reported during the failed creation */
	}
	free(mc);
}

/* VK_EXT_memory_budget's heapBudget and heapUsage of the device's physical
 * device, for up to max heaps; returns the heap count (0 when the device has
 * no budget query). */
uint32_t memreport_budget(uintptr_t device_handle, uint64_t *budget, uint64_t *usage, uint32_t max) {
	struct vkgen_device *d = vkgen_device_of(LAYER, (VkDevice)device_handle);
	PFN_vkGetPhysicalDeviceMemoryProperties2 get = d ? (PFN_vkGetPhysicalDeviceMemoryProperties2)d->user : NULL;
	if (!get || !budget || !usage) return 0;
	VkPhysicalDeviceMemoryBudgetPropertiesEXT b;
	memset(&b, 0, sizeof(b));
	b.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT;
	VkPhysicalDeviceMemoryProperties2 p = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2, &b};
	get(d->physical, &p);
	uint32_t n = p.memoryProperties.memoryHeapCount;
	if (n > max) n = max;
	if (n > VK_MAX_MEMORY_HEAPS) n = VK_MAX_MEMORY_HEAPS;
	for (uint32_t i = 0; i < n; i++) {
		budget[i] = b.heapBudget[i];
		usage[i] = b.heapUsage[i];
	}
	return n;
}

uint64_t memreport_buffer_size(uintptr_t device_handle, uint64_t buffer) {
	VkDevice device = (VkDevice)device_handle;
	struct vkgen_device *d = vkgen_device_of(LAYER, device);
	PFN_vkGetBufferMemoryRequirements get = d ? VKGEN_NEXT_DEVICE(d, vkGetBufferMemoryRequirements) : NULL;
	if (!get || !buffer) return 0;
	VkMemoryRequirements r;
	memset(&r, 0, sizeof(r));
	get(device, (VkBuffer)buffer, &r);
	return r.size;
}

uint64_t memreport_image_size(uintptr_t device_handle, uint64_t image) {
	VkDevice device = (VkDevice)device_handle;
	struct vkgen_device *d = vkgen_device_of(LAYER, device);
	PFN_vkGetImageMemoryRequirements get = d ? VKGEN_NEXT_DEVICE(d, vkGetImageMemoryRequirements) : NULL;
	if (!get || !image) return 0;
	VkMemoryRequirements r;
	memset(&r, 0, sizeof(r));
	get(device, (VkImage)image, &r);
	return r.size;
}

uint64_t memreport_image_plane_size(uintptr_t device_handle, uint64_t image, uint32_t aspect) {
	VkDevice device = (VkDevice)device_handle;
	struct vkgen_device *d = vkgen_device_of(LAYER, device);
	if (!d || !image) return 0;
	PFN_vkGetImageMemoryRequirements2 get = VKGEN_NEXT_DEVICE(d, vkGetImageMemoryRequirements2);
	if (!get) get = (PFN_vkGetImageMemoryRequirements2)VKGEN_NEXT_DEVICE(d, vkGetImageMemoryRequirements2KHR);
	if (!get) return 0;
	VkImagePlaneMemoryRequirementsInfo plane = {VK_STRUCTURE_TYPE_IMAGE_PLANE_MEMORY_REQUIREMENTS_INFO, NULL,
	                                            (VkImageAspectFlagBits)aspect};
	VkImageMemoryRequirementsInfo2 info = {VK_STRUCTURE_TYPE_IMAGE_MEMORY_REQUIREMENTS_INFO_2, &plane, (VkImage)image};
	VkMemoryRequirements2 r = {VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2};
	get(device, &info, &r);
	return r.memoryRequirements.size;
}

/* The VkDevice a queue belongs to (queues share their device's dispatch
 * key); 0 for a queue of a device the layer does not know. */
uintptr_t memreport_queue_device(uintptr_t queue) {
	struct vkgen_device *d = queue ? vkgen_device_of(LAYER, (const void *)queue) : NULL;
	return d ? (uintptr_t)d->handle : 0;
}

/* Bytes a VkSparseImageMemoryBind of extent binds in the aspect: its sparse
 * blocks (the aspect's imageGranularity, partial blocks at the edge counted
 * whole) times the block size (the image's memory alignment). 0 when the
 * driver reports no sparse requirements for the aspect. */
uint64_t memreport_sparse_image_bind_size(uintptr_t device_handle, uint64_t image, uint32_t aspect, VkExtent3D extent) {
	VkDevice device = (VkDevice)device_handle;
	struct vkgen_device *d = vkgen_device_of(LAYER, device);
	if (!d || !image) return 0;
	PFN_vkGetImageSparseMemoryRequirements sparse = VKGEN_NEXT_DEVICE(d, vkGetImageSparseMemoryRequirements);
	PFN_vkGetImageMemoryRequirements reqs = VKGEN_NEXT_DEVICE(d, vkGetImageMemoryRequirements);
	if (!sparse || !reqs) return 0;
	VkSparseImageMemoryRequirements props[8];
	uint32_t n = 8;
	sparse(device, (VkImage)image, &n, props);
	VkExtent3D g = {0, 0, 0};
	for (uint32_t i = 0; i < n && i < 8; i++)
		if (props[i].formatProperties.aspectMask & aspect) g = props[i].formatProperties.imageGranularity;
	if (!g.width || !g.height || !g.depth) return 0;
	VkMemoryRequirements r;
	memset(&r, 0, sizeof(r));
	reqs(device, (VkImage)image, &r);
	uint64_t blocks = (((uint64_t)extent.width + g.width - 1) / g.width) * (((uint64_t)extent.height + g.height - 1) / g.height) *
	                  (((uint64_t)extent.depth + g.depth - 1) / g.depth);
	return blocks * r.alignment;
}
