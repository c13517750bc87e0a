/* vkCreateDevice/vkDestroyDevice: the report callbacks of the create info,
 * the chain lavapipe gets (without what only this driver implements), the
 * internal allocation made during creation; and sparse create flags. */
#include <stdlib.h>
#include <string.h>

#include "memdriver.h"

/* Structs a device create chain may hold before one that must be removed,
 * with their sizes, so the chain can be copied up to it. */
static size_t struct_size(VkStructureType t) {
	switch ((int)t) {
	case VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO: return sizeof(VkLayerDeviceCreateInfo);
	case VK_STRUCTURE_TYPE_DEVICE_DEVICE_MEMORY_REPORT_CREATE_INFO_EXT: return sizeof(VkDeviceDeviceMemoryReportCreateInfoEXT);
	case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DEVICE_MEMORY_REPORT_FEATURES_EXT:
		return sizeof(VkPhysicalDeviceDeviceMemoryReportFeaturesEXT);
	case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2: return sizeof(VkPhysicalDeviceFeatures2);
	case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES: return sizeof(VkPhysicalDeviceVulkan11Features);
	case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES: return sizeof(VkPhysicalDeviceVulkan12Features);
	case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES: return sizeof(VkPhysicalDeviceVulkan13Features);
	case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES: return sizeof(VkPhysicalDeviceTimelineSemaphoreFeatures);
	case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_4_FEATURES: return sizeof(VkPhysicalDeviceMaintenance4Features);
	case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SYNCHRONIZATION_2_FEATURES: return sizeof(VkPhysicalDeviceSynchronization2Features);
	case VK_STRUCTURE_TYPE_DEVICE_PRIVATE_DATA_CREATE_INFO: return sizeof(VkDevicePrivateDataCreateInfo);
	case MD_STYPE_MAINTENANCE_6_FEATURES: return sizeof(md_maintenance6_features);
	}
	return 0;
}

static int removed(VkStructureType t) {
	return t == VK_STRUCTURE_TYPE_DEVICE_DEVICE_MEMORY_REPORT_CREATE_INFO_EXT ||
	       t == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DEVICE_MEMORY_REPORT_FEATURES_EXT || t == MD_STYPE_MAINTENANCE_6_FEATURES;
}

/* The create info lavapipe gets: a copy without this driver's extensions and
 * structs and, with the sparse option, without sparse features. Nodes are copied up to the last one
 * removed; an unknown struct before it ends the copying there (lavapipe
 * ignores structs it does not know). One allocation, freed by the caller. */
struct lower_create {
	VkDeviceCreateInfo ci;
	VkPhysicalDeviceFeatures features;
	const char **exts;
	unsigned char *nodes;
};

static void clear_sparse(VkPhysicalDeviceFeatures *f) {
	if (!(md_opts & MD_OPT_SPARSE)) return; /* lavapipe refuses them, as it should */
	f->sparseBinding = f->sparseResidencyBuffer = f->sparseResidencyImage2D = f->sparseResidencyImage3D = VK_FALSE;
	f->sparseResidency2Samples = f->sparseResidency4Samples = f->sparseResidency8Samples = VK_FALSE;
	f->sparseResidency16Samples = f->sparseResidencyAliased = VK_FALSE;
}

static int lower_create_info(const VkDeviceCreateInfo *app, struct lower_create *lc) {
	memset(lc, 0, sizeof(*lc));
	lc->ci = *app;
	lc->exts = calloc(app->enabledExtensionCount + 1, sizeof(*lc->exts));
	if (!lc->exts) return 0;
	uint32_t n = 0;
	for (uint32_t i = 0; i < app->enabledExtensionCount; i++)
		if (!md_offers_extension(app->ppEnabledExtensionNames[i])) lc->exts[n++] = app->ppEnabledExtensionNames[i];
	lc->ci.enabledExtensionCount = n;
	lc->ci.ppEnabledExtensionNames = lc->exts;
	if (app->pEnabledFeatures) {
		lc->features = *app->pEnabledFeatures;
		clear_sparse(&lc->features);
		lc->ci.pEnabledFeatures = &lc->features;
	}
	size_t total = 0;
	for (const VkBaseInStructure *s = app->pNext; s; s = s->pNext) total += struct_size(s->sType) + 16;
	lc->nodes = calloc(1, total + 16);
	if (!lc->nodes) return 0;
	unsigned char *arena = lc->nodes;
	const void **link = &lc->ci.pNext;
	for (const VkBaseInStructure *s = app->pNext; s; s = s->pNext) {
		if (removed(s->sType)) continue;
		size_t size = struct_size(s->sType);
		if (!size) {
			*link = s; /* the rest as it is */
			return 1;
		}
		VkBaseOutStructure *copy = (VkBaseOutStructure *)arena;
		memcpy(copy, s, size);
		arena += (size + 15) & ~(size_t)15;
		if (copy->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2)
			clear_sparse(&((VkPhysicalDeviceFeatures2 *)copy)->features);
		*link = copy;
		link = (const void **)&copy->pNext;
	}
	*link = NULL;
	return 1;
}

VKAPI_ATTR VkResult VKAPI_CALL md_CreateDevice(VkPhysicalDevice phys, const VkDeviceCreateInfo *ci,
                                               const VkAllocationCallbacks *alloc, VkDevice *out) {
	VkLayerDeviceCreateInfo *link = (VkLayerDeviceCreateInfo *)ci->pNext;
	while (link && !(link->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO && link->function == VK_LAYER_LINK_INFO))
		link = (VkLayerDeviceCreateInfo *)link->pNext;
	struct md_instance *inst = md_instance_of(phys);
	if (!link || !link->u.pLayerInfo || !inst) return VK_ERROR_INITIALIZATION_FAILED;
	PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
	PFN_vkGetDeviceProcAddr gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
	link->u.pLayerInfo = link->u.pLayerInfo->pNext;
	PFN_vkCreateDevice create = (PFN_vkCreateDevice)gipa(inst->instance, "vkCreateDevice");

	struct md_device *d = calloc(1, sizeof(*d));
	if (!d) return VK_ERROR_OUT_OF_HOST_MEMORY;
	uint32_t n = 0;
	for (const VkBaseInStructure *s = ci->pNext; s; s = s->pNext)
		n += s->sType == VK_STRUCTURE_TYPE_DEVICE_DEVICE_MEMORY_REPORT_CREATE_INFO_EXT;
	d->callbacks = calloc(n + 1, sizeof(*d->callbacks));
	struct lower_create lc = {0};
	if (!d->callbacks || !lower_create_info(ci, &lc)) {
		free(lc.exts);
		free(d->callbacks);
		free(d);
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	}
	/* Every report create info in the chain, in chain order (the layers'
	 * in front of the application's). */
	for (const VkBaseInStructure *s = ci->pNext; s; s = s->pNext)
		if (s->sType == VK_STRUCTURE_TYPE_DEVICE_DEVICE_MEMORY_REPORT_CREATE_INFO_EXT) {
			const VkDeviceDeviceMemoryReportCreateInfoEXT *r = (const void *)s;
			if (r->pfnUserCallback) d->callbacks[d->ncallbacks++] = (struct md_callback){r->pfnUserCallback, r->pUserData};
		}
	inst->GetPhysicalDeviceMemoryProperties(phys, &d->mem);
	d->lower_types = d->mem.memoryTypeCount;
	md_add_heap(&d->mem);

	/* The device's own bookkeeping, reported before the device exists. */
	d->device_id = md_next_id();
	md_report(d, VK_DEVICE_MEMORY_REPORT_EVENT_TYPE_ALLOCATE_EXT, d->device_id, MD_SIZE_DEVICE, VK_OBJECT_TYPE_DEVICE, 0,
	          md_internal_heap(d));
	VkResult r = create(phys, &lc.ci, alloc, out);
	free(lc.exts);
	free(lc.nodes);
	if (r != VK_SUCCESS) {
		md_report(d, VK_DEVICE_MEMORY_REPORT_EVENT_TYPE_FREE_EXT, d->device_id, MD_SIZE_DEVICE, VK_OBJECT_TYPE_DEVICE, 0,
		          md_internal_heap(d));
		free(d->callbacks);
		free(d);
		return r;
	}
	d->key = md_key(*out);
	d->device = *out;
	d->gdpa = gdpa;
#define GET(f) d->f = (PFN_vk##f)gdpa(*out, "vk" #f)
	GET(DestroyDevice);
	GET(AllocateMemory);
	GET(FreeMemory);
	GET(CreateCommandPool);
	GET(DestroyCommandPool);
	GET(CreateDescriptorPool);
	GET(DestroyDescriptorPool);
	GET(CreateGraphicsPipelines);
	GET(CreateComputePipelines);
	GET(DestroyPipeline);
	GET(BindBufferMemory2);
	GET(BindImageMemory2);
	GET(CreateBuffer);
	GET(CreateImage);
	GET(QueueSubmit);
	GET(GetBufferMemoryRequirements);
	GET(GetImageMemoryRequirements);
	GET(GetBufferMemoryRequirements2);
	GET(GetImageMemoryRequirements2);
	GET(GetDeviceBufferMemoryRequirements);
	GET(GetDeviceImageMemoryRequirements);
#undef GET
	if (!d->GetBufferMemoryRequirements2) d->GetBufferMemoryRequirements2 = (PFN_vkGetBufferMemoryRequirements2)gdpa(*out, "vkGetBufferMemoryRequirements2KHR");
	if (!d->GetImageMemoryRequirements2) d->GetImageMemoryRequirements2 = (PFN_vkGetImageMemoryRequirements2)gdpa(*out, "vkGetImageMemoryRequirements2KHR");
	if (!d->GetDeviceBufferMemoryRequirements)
		d->GetDeviceBufferMemoryRequirements = (PFN_vkGetDeviceBufferMemoryRequirements)gdpa(*out, "vkGetDeviceBufferMemoryRequirementsKHR");
	if (!d->GetDeviceImageMemoryRequirements)
		d->GetDeviceImageMemoryRequirements = (PFN_vkGetDeviceImageMemoryRequirements)gdpa(*out, "vkGetDeviceImageMemoryRequirementsKHR");
	md_device_add(d);
	return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL md_DestroyDevice(VkDevice device, const VkAllocationCallbacks *alloc) {
	if (!device) return;
	struct md_device *d = md_device_of(device);
	if (!d) return;
	md_device_remove(d);
	d->DestroyDevice(device, alloc);
	md_release_all(d); /* what the application left, then the device's own */
	md_report(d, VK_DEVICE_MEMORY_REPORT_EVENT_TYPE_FREE_EXT, d->device_id, MD_SIZE_DEVICE, VK_OBJECT_TYPE_DEVICE,
	          (uint64_t)(uintptr_t)device, md_internal_heap(d));
	for (struct md_video_session *s = d->sessions, *next; s; s = next) {
		next = s->next;
		free(s);
	}
	free(d->callbacks);
	free(d);
}

enum {
	SPARSE_BUFFER_FLAGS = VK_BUFFER_CREATE_SPARSE_BINDING_BIT | VK_BUFFER_CREATE_SPARSE_RESIDENCY_BIT |
	                      VK_BUFFER_CREATE_SPARSE_ALIASED_BIT,
	SPARSE_IMAGE_FLAGS = VK_IMAGE_CREATE_SPARSE_BINDING_BIT | VK_IMAGE_CREATE_SPARSE_RESIDENCY_BIT |
	                     VK_IMAGE_CREATE_SPARSE_ALIASED_BIT,
};

/* Sparse resources are plain ones to lavapipe; vkQueueBindSparse records
 * their binds (bind.c). */
static VKAPI_ATTR VkResult VKAPI_CALL md_CreateBuffer(VkDevice device, const VkBufferCreateInfo *ci,
                                                      const VkAllocationCallbacks *alloc, VkBuffer *out) {
	struct md_device *d = md_device_of(device);
	VkBufferCreateInfo c = *ci;
	if (md_opts & MD_OPT_SPARSE) c.flags &= ~(VkBufferCreateFlags)SPARSE_BUFFER_FLAGS;
	return d->CreateBuffer(device, &c, alloc, out);
}

static VKAPI_ATTR VkResult VKAPI_CALL md_CreateImage(VkDevice device, const VkImageCreateInfo *ci,
                                                     const VkAllocationCallbacks *alloc, VkImage *out) {
	struct md_device *d = md_device_of(device);
	VkImageCreateInfo c = *ci;
	if (md_opts & MD_OPT_SPARSE) c.flags &= ~(VkImageCreateFlags)SPARSE_IMAGE_FLAGS;
	return d->CreateImage(device, &c, alloc, out);
}

PFN_vkVoidFunction md_device_command(const char *name) {
	if (strcmp(name, "vkDestroyDevice") == 0) return (PFN_vkVoidFunction)md_DestroyDevice;
	if (strcmp(name, "vkCreateBuffer") == 0) return (PFN_vkVoidFunction)md_CreateBuffer;
	if (strcmp(name, "vkCreateImage") == 0) return (PFN_vkVoidFunction)md_CreateImage;
	return NULL;
}
