/* Binds: per-bind results (VK_KHR_maintenance6's VkBindMemoryStatusKHR)
 * and vkQueueBindSparse for a lavapipe that has no sparse binding. */
#include <stdlib.h>
#include <string.h>

#include "memdriver.h"

static VkResult *status_of(const void *chain) {
	for (const VkBaseInStructure *s = chain; s; s = s->pNext)
		if (s->sType == MD_STYPE_BIND_MEMORY_STATUS) return ((const md_bind_memory_status *)s)->pResult;
	return NULL;
}

/* Binds one at a time so each gets its own result; a bind at
 * MD_FAILING_BIND_OFFSET fails without reaching lavapipe (maintenance6
 * option). The command returns the first failure. */
#define BIND2(Kind, Info)                                                                                                  \
	static VKAPI_ATTR VkResult VKAPI_CALL md_Bind##Kind##Memory2(VkDevice device, uint32_t n, const Info *infos) {       \
		struct md_device *d = md_device_of(device);                                                                    \
		if (!(md_opts & MD_OPT_MAINTENANCE6)) return d->Bind##Kind##Memory2(device, n, infos);                        \
		VkResult first = VK_SUCCESS;                                                                                   \
		for (uint32_t i = 0; i < n; i++) {                                                                             \
			VkResult r = infos[i].memoryOffset == MD_FAILING_BIND_OFFSET ? VK_ERROR_OUT_OF_DEVICE_MEMORY               \
			                                                             : d->Bind##Kind##Memory2(device, 1, &infos[i]); \
			VkResult *status = status_of(infos[i].pNext);                                                          \
			if (status) *status = r;                                                                               \
			if (r != VK_SUCCESS && first == VK_SUCCESS) first = r;                                                 \
		}                                                                                                              \
		return first;                                                                                                  \
	}
BIND2(Buffer, VkBindBufferMemoryInfo)
BIND2(Image, VkBindImageMemoryInfo)
#undef BIND2

/* Records the binds (lavapipe resources created from sparse ones need no
 * memory until used) and signals what the batch signals with an empty
 * submit that waits for what it waits for. */
static VKAPI_ATTR VkResult VKAPI_CALL md_QueueBindSparse(VkQueue queue, uint32_t n, const VkBindSparseInfo *infos,
                                                         VkFence fence) {
	struct md_device *d = md_device_of(queue);
	if (!d) return VK_ERROR_DEVICE_LOST;
	uint32_t waits = 0;
	for (uint32_t i = 0; i < n; i++) {
		const VkBindSparseInfo *b = &infos[i];
		uint64_t binds = 0;
		for (uint32_t k = 0; k < b->bufferBindCount; k++) binds += b->pBufferBinds[k].bindCount;
		for (uint32_t k = 0; k < b->imageOpaqueBindCount; k++) binds += b->pImageOpaqueBinds[k].bindCount;
		for (uint32_t k = 0; k < b->imageBindCount; k++) binds += b->pImageBinds[k].bindCount;
		pthread_mutex_lock(&md_lock);
		d->sparse_binds += binds;
		pthread_mutex_unlock(&md_lock);
		if (b->waitSemaphoreCount > waits) waits = b->waitSemaphoreCount;
	}
	VkSubmitInfo *submits = calloc(n + 1, sizeof(*submits));
	VkTimelineSemaphoreSubmitInfo *timeline = calloc(n + 1, sizeof(*timeline));
	VkPipelineStageFlags *stages = calloc(waits + 1, sizeof(*stages));
	VkResult r = VK_ERROR_OUT_OF_HOST_MEMORY;
	if (submits && timeline && stages) {
		for (uint32_t k = 0; k < waits; k++) stages[k] = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
		for (uint32_t i = 0; i < n; i++) {
			const VkBindSparseInfo *b = &infos[i];
			submits[i] = (VkSubmitInfo){VK_STRUCTURE_TYPE_SUBMIT_INFO};
			submits[i].waitSemaphoreCount = b->waitSemaphoreCount;
			submits[i].pWaitSemaphores = b->pWaitSemaphores;
			submits[i].pWaitDstStageMask = stages;
			submits[i].signalSemaphoreCount = b->signalSemaphoreCount;
			submits[i].pSignalSemaphores = b->pSignalSemaphores;
			for (const VkBaseInStructure *s = b->pNext; s; s = s->pNext)
				if (s->sType == VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO) {
					timeline[i] = *(const VkTimelineSemaphoreSubmitInfo *)s;
					timeline[i].pNext = NULL;
					submits[i].pNext = &timeline[i];
				}
		}
		r = d->QueueSubmit(queue, n, submits, fence);
	}
	free(submits);
	free(timeline);
	free(stages);
	return r;
}

PFN_vkVoidFunction md_bind_command(const char *name) {
	if (strcmp(name, "vkBindBufferMemory2") == 0 || strcmp(name, "vkBindBufferMemory2KHR") == 0)
		return (PFN_vkVoidFunction)md_BindBufferMemory2;
	if (strcmp(name, "vkBindImageMemory2") == 0 || strcmp(name, "vkBindImageMemory2KHR") == 0)
		return (PFN_vkVoidFunction)md_BindImageMemory2;
	if (strcmp(name, "vkQueueBindSparse") == 0 && (md_opts & MD_OPT_SPARSE)) return (PFN_vkVoidFunction)md_QueueBindSparse;
	return NULL;
}
