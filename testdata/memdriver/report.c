/* VK_EXT_device_memory_report events: application allocations (ALLOCATE,
 * IMPORT, FREE, UNIMPORT, ALLOCATION_FAILED) and driver-internal ones per
 * command pool, descriptor pool and pipeline. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "memdriver.h"

static _Atomic uint64_t next_id = 1;
_Atomic uint64_t md_heap_usage[VK_MAX_MEMORY_HEAPS];

uint64_t md_next_id(void) { return atomic_fetch_add(&next_id, 1); }

/* Driver-internal allocations carry flags 0x1, the INTERNAL_OBJECT bit the
 * reference layer reads (the registry defines no bits; option flags0 sends
 * 0 as the specification says). */
void md_report(struct md_device *d, VkDeviceMemoryReportEventTypeEXT type, uint64_t id, uint64_t size, VkObjectType ot,
               uint64_t handle, uint32_t heap) {
	int internal = ot != VK_OBJECT_TYPE_DEVICE_MEMORY;
	if (heap < VK_MAX_MEMORY_HEAPS) {
		if (type == VK_DEVICE_MEMORY_REPORT_EVENT_TYPE_ALLOCATE_EXT) md_heap_usage[heap] += size;
		if (type == VK_DEVICE_MEMORY_REPORT_EVENT_TYPE_FREE_EXT) md_heap_usage[heap] -= size;
	}
	VkDeviceMemoryReportCallbackDataEXT data = {VK_STRUCTURE_TYPE_DEVICE_MEMORY_REPORT_CALLBACK_DATA_EXT};
	data.flags = internal && !(md_opts & MD_OPT_FLAGS0) ? 1 : 0;
	data.type = type;
	data.memoryObjectId = id;
	data.size = size;
	data.objectType = ot;
	data.objectHandle = handle;
	data.heapIndex = heap;
	for (uint32_t i = 0; i < d->ncallbacks; i++) d->callbacks[i].fn(&data, d->callbacks[i].user);
}

/* Reports the ALLOCATE (or IMPORT) of a new object and remembers it for its
 * FREE. */
void md_track(struct md_device *d, uint64_t handle, VkObjectType ot, uint64_t size, uint32_t heap, int imported) {
	struct md_object *o = calloc(1, sizeof(*o));
	uint64_t id = md_next_id();
	md_report(d, imported ? VK_DEVICE_MEMORY_REPORT_EVENT_TYPE_IMPORT_EXT : VK_DEVICE_MEMORY_REPORT_EVENT_TYPE_ALLOCATE_EXT,
	          id, size, ot, handle, heap);
	if (!o) return;
	*o = (struct md_object){handle, id, size, ot, heap, imported, NULL};
	pthread_mutex_lock(&md_lock);
	o->next = d->objects;
	d->objects = o;
	pthread_mutex_unlock(&md_lock);
}

struct md_object *md_untrack(struct md_device *d, VkObjectType ot, uint64_t handle) {
	pthread_mutex_lock(&md_lock);
	struct md_object *o = NULL;
	for (struct md_object **p = &d->objects; *p; p = &(*p)->next)
		if ((*p)->type == ot && (*p)->handle == handle) {
			o = *p;
			*p = o->next;
			break;
		}
	pthread_mutex_unlock(&md_lock);
	return o;
}

static void report_free(struct md_device *d, struct md_object *o) {
	md_report(d, o->imported ? VK_DEVICE_MEMORY_REPORT_EVENT_TYPE_UNIMPORT_EXT : VK_DEVICE_MEMORY_REPORT_EVENT_TYPE_FREE_EXT,
	          o->id, o->size, o->type, o->handle, o->heap);
}

static void untrack_and_free(struct md_device *d, VkObjectType ot, uint64_t handle) {
	struct md_object *o = handle ? md_untrack(d, ot, handle) : NULL;
	if (!o) return;
	report_free(d, o);
	free(o);
}

void md_release_all(struct md_device *d) {
	pthread_mutex_lock(&md_lock);
	struct md_object *o = d->objects;
	d->objects = NULL;
	pthread_mutex_unlock(&md_lock);
	/* oldest first, as a driver tearing down in creation order */
	struct md_object *rev = NULL;
	while (o) {
		struct md_object *next = o->next;
		o->next = rev;
		rev = o;
		o = next;
	}
	while (rev) {
		struct md_object *next = rev->next;
		report_free(d, rev);
		free(rev);
		rev = next;
	}
}

static int imports(const VkMemoryAllocateInfo *ai) {
	for (const VkBaseInStructure *s = ai->pNext; s; s = s->pNext) {
		if (s->sType == VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR && ((const VkImportMemoryFdInfoKHR *)s)->handleType)
			return 1;
		if (s->sType == VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT &&
		    ((const VkImportMemoryHostPointerInfoEXT *)s)->handleType)
			return 1;
	}
	return 0;
}

static VKAPI_ATTR VkResult VKAPI_CALL md_AllocateMemory(VkDevice device, const VkMemoryAllocateInfo *ai,
                                                        const VkAllocationCallbacks *alloc, VkDeviceMemory *out) {
	struct md_device *d = md_device_of(device);
	uint32_t heap = ai->memoryTypeIndex < d->mem.memoryTypeCount ? d->mem.memoryTypes[ai->memoryTypeIndex].heapIndex : 0;
	VkMemoryAllocateInfo lower = *ai;
	if (lower.memoryTypeIndex >= d->lower_types) lower.memoryTypeIndex = 0; /* the heaps option's type */
	VkResult r = md_fail_size && ai->allocationSize == md_fail_size ? VK_ERROR_OUT_OF_DEVICE_MEMORY
	                                                                 : d->AllocateMemory(device, &lower, alloc, out);
	if (r != VK_SUCCESS) {
		md_report(d, VK_DEVICE_MEMORY_REPORT_EVENT_TYPE_ALLOCATION_FAILED_EXT, md_next_id(), ai->allocationSize,
		          VK_OBJECT_TYPE_DEVICE_MEMORY, 0, heap);
		return r;
	}
	md_track(d, (uint64_t)*out, VK_OBJECT_TYPE_DEVICE_MEMORY, ai->allocationSize, heap, imports(ai));
	return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL md_FreeMemory(VkDevice device, VkDeviceMemory memory, const VkAllocationCallbacks *alloc) {
	struct md_device *d = md_device_of(device);
	untrack_and_free(d, VK_OBJECT_TYPE_DEVICE_MEMORY, (uint64_t)memory);
	d->FreeMemory(device, memory, alloc);
}

static VKAPI_ATTR VkResult VKAPI_CALL md_CreateCommandPool(VkDevice device, const VkCommandPoolCreateInfo *ci,
                                                           const VkAllocationCallbacks *alloc, VkCommandPool *out) {
	struct md_device *d = md_device_of(device);
	VkResult r = d->CreateCommandPool(device, ci, alloc, out);
	if (r == VK_SUCCESS)
		md_track(d, (uint64_t)*out, VK_OBJECT_TYPE_COMMAND_POOL, MD_SIZE_COMMAND_POOL, md_internal_heap(d), 0);
	return r;
}

struct free_job {
	struct md_device *d;
	struct md_object *o;
};

static void *free_worker(void *arg) {
	struct free_job *j = arg;
	report_free(j->d, j->o);
	return NULL;
}

/* A command pool's memory is released by a driver worker thread; the destroy
 * waits for it, so the FREE arrives before vkDestroyCommandPool returns. */
static VKAPI_ATTR void VKAPI_CALL md_DestroyCommandPool(VkDevice device, VkCommandPool pool, const VkAllocationCallbacks *alloc) {
	struct md_device *d = md_device_of(device);
	d->DestroyCommandPool(device, pool, alloc);
	struct md_object *o = pool ? md_untrack(d, VK_OBJECT_TYPE_COMMAND_POOL, (uint64_t)pool) : NULL;
	if (!o) return;
	struct free_job j = {d, o};
	pthread_t t;
	if (pthread_create(&t, NULL, free_worker, &j) == 0)
		pthread_join(t, NULL);
	else
		report_free(d, o);
	free(o);
}

static VKAPI_ATTR VkResult VKAPI_CALL md_CreateDescriptorPool(VkDevice device, const VkDescriptorPoolCreateInfo *ci,
                                                              const VkAllocationCallbacks *alloc, VkDescriptorPool *out) {
	struct md_device *d = md_device_of(device);
	VkResult r = d->CreateDescriptorPool(device, ci, alloc, out);
	if (r == VK_SUCCESS)
		md_track(d, (uint64_t)*out, VK_OBJECT_TYPE_DESCRIPTOR_POOL, MD_SIZE_DESCRIPTOR_POOL, md_internal_heap(d), 0);
	return r;
}

static VKAPI_ATTR void VKAPI_CALL md_DestroyDescriptorPool(VkDevice device, VkDescriptorPool pool,
                                                           const VkAllocationCallbacks *alloc) {
	struct md_device *d = md_device_of(device);
	untrack_and_free(d, VK_OBJECT_TYPE_DESCRIPTOR_POOL, (uint64_t)pool);
	d->DestroyDescriptorPool(device, pool, alloc);
}

static void track_pipelines(struct md_device *d, VkResult r, uint32_t n, const VkPipeline *p) {
	if (r != VK_SUCCESS && r != VK_PIPELINE_COMPILE_REQUIRED) return;
	for (uint32_t i = 0; i < n; i++)
		if (p[i]) md_track(d, (uint64_t)p[i], VK_OBJECT_TYPE_PIPELINE, MD_SIZE_PIPELINE, md_internal_heap(d), 0);
}

static VKAPI_ATTR VkResult VKAPI_CALL md_CreateGraphicsPipelines(VkDevice device, VkPipelineCache cache, uint32_t n,
                                                                 const VkGraphicsPipelineCreateInfo *ci,
                                                                 const VkAllocationCallbacks *alloc, VkPipeline *out) {
	struct md_device *d = md_device_of(device);
	VkResult r = d->CreateGraphicsPipelines(device, cache, n, ci, alloc, out);
	track_pipelines(d, r, n, out);
	return r;
}

static VKAPI_ATTR VkResult VKAPI_CALL md_CreateComputePipelines(VkDevice device, VkPipelineCache cache, uint32_t n,
                                                                const VkComputePipelineCreateInfo *ci,
                                                                const VkAllocationCallbacks *alloc, VkPipeline *out) {
	struct md_device *d = md_device_of(device);
	VkResult r = d->CreateComputePipelines(device, cache, n, ci, alloc, out);
	track_pipelines(d, r, n, out);
	return r;
}

static VKAPI_ATTR void VKAPI_CALL md_DestroyPipeline(VkDevice device, VkPipeline p, const VkAllocationCallbacks *alloc) {
	struct md_device *d = md_device_of(device);
	untrack_and_free(d, VK_OBJECT_TYPE_PIPELINE, (uint64_t)p);
	d->DestroyPipeline(device, p, alloc);
}

PFN_vkVoidFunction md_report_command(const char *name) {
	static const struct {
		const char *name;
		PFN_vkVoidFunction fn;
	} t[] = {
#define F(f) {"vk" #f, (PFN_vkVoidFunction)md_##f}
	    F(AllocateMemory),       F(FreeMemory),           F(CreateCommandPool),         F(DestroyCommandPool),
	    F(CreateDescriptorPool), F(DestroyDescriptorPool), F(CreateGraphicsPipelines), F(CreateComputePipelines),
	    F(DestroyPipeline),
#undef F
	};
	for (size_t k = 0; k < sizeof(t) / sizeof(t[0]); k++)
		if (strcmp(name, t[k].name) == 0) return t[k].fn;
	return NULL;
}
