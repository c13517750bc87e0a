/* A minimal VK_KHR_video_queue (video option): sessions with fake handles
 * and two memory bindings of fixed sizes, entirely in this driver, enough
 * for a layer above to see memory bound to a video session. */
#include <stdlib.h>
#include <string.h>

#include "memdriver.h"

static struct md_video_session *find(struct md_device *d, uint64_t handle) {
	struct md_video_session *s = d->sessions;
	while (s && s->handle != handle) s = s->next;
	return s;
}

static VKAPI_ATTR VkResult VKAPI_CALL md_CreateVideoSessionKHR(VkDevice device, const VkVideoSessionCreateInfoKHR *ci,
                                                               const VkAllocationCallbacks *alloc, VkVideoSessionKHR *out) {
	(void)ci;
	(void)alloc;
	struct md_device *d = md_device_of(device);
	struct md_video_session *s = calloc(1, sizeof(*s));
	if (!s) return VK_ERROR_OUT_OF_HOST_MEMORY;
	pthread_mutex_lock(&md_lock);
	s->handle = 0x71de0000ull + ++d->next_session * 0x10; /* fake, never 0 */
	s->next = d->sessions;
	d->sessions = s;
	pthread_mutex_unlock(&md_lock);
	*out = (VkVideoSessionKHR)s->handle;
	return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL md_DestroyVideoSessionKHR(VkDevice device, VkVideoSessionKHR session,
                                                            const VkAllocationCallbacks *alloc) {
	(void)alloc;
	struct md_device *d = md_device_of(device);
	pthread_mutex_lock(&md_lock);
	for (struct md_video_session **p = &d->sessions; *p; p = &(*p)->next)
		if ((*p)->handle == (uint64_t)session) {
			struct md_video_session *s = *p;
			*p = s->next;
			free(s);
			break;
		}
	pthread_mutex_unlock(&md_lock);
}

static VKAPI_ATTR VkResult VKAPI_CALL md_GetVideoSessionMemoryRequirementsKHR(VkDevice device, VkVideoSessionKHR session,
                                                                              uint32_t *count,
                                                                              VkVideoSessionMemoryRequirementsKHR *reqs) {
	struct md_device *d = md_device_of(device);
	pthread_mutex_lock(&md_lock);
	int known = find(d, (uint64_t)session) != NULL;
	pthread_mutex_unlock(&md_lock);
	if (!known) return VK_ERROR_INITIALIZATION_FAILED;
	static const VkDeviceSize sizes[2] = {MD_VIDEO_BIND0, MD_VIDEO_BIND1};
	if (!reqs) {
		*count = 2;
		return VK_SUCCESS;
	}
	uint32_t n = *count < 2 ? *count : 2;
	uint32_t all = d->mem.memoryTypeCount >= 32 ? ~0u : (1u << d->mem.memoryTypeCount) - 1;
	for (uint32_t i = 0; i < n; i++) {
		reqs[i].memoryBindIndex = i;
		reqs[i].memoryRequirements = (VkMemoryRequirements){sizes[i], MD_VIDEO_ALIGN, all};
	}
	*count = n;
	return n < 2 ? VK_INCOMPLETE : VK_SUCCESS;
}

static VKAPI_ATTR VkResult VKAPI_CALL md_BindVideoSessionMemoryKHR(VkDevice device, VkVideoSessionKHR session, uint32_t n,
                                                                   const VkBindVideoSessionMemoryInfoKHR *binds) {
	struct md_device *d = md_device_of(device);
	VkResult r = VK_SUCCESS;
	pthread_mutex_lock(&md_lock);
	struct md_video_session *s = find(d, (uint64_t)session);
	if (!s) r = VK_ERROR_INITIALIZATION_FAILED;
	for (uint32_t i = 0; s && i < n && r == VK_SUCCESS; i++)
		if (binds[i].memoryBindIndex >= 2 || (s->bound & (1u << binds[i].memoryBindIndex)) || !binds[i].memory)
			r = VK_ERROR_INITIALIZATION_FAILED; /* invalid usage: refused instead of undefined */
	for (uint32_t i = 0; s && i < n && r == VK_SUCCESS; i++) s->bound |= 1u << binds[i].memoryBindIndex;
	pthread_mutex_unlock(&md_lock);
	return r;
}

PFN_vkVoidFunction md_video_command(const char *name) {
	static const struct {
		const char *name;
		PFN_vkVoidFunction fn;
	} t[] = {
#define F(f) {"vk" #f, (PFN_vkVoidFunction)md_##f}
	    F(CreateVideoSessionKHR),
	    F(DestroyVideoSessionKHR),
	    F(GetVideoSessionMemoryRequirementsKHR),
	    F(BindVideoSessionMemoryKHR),
#undef F
	};
	for (size_t k = 0; k < sizeof(t) / sizeof(t[0]); k++)
		if (strcmp(name, t[k].name) == 0) return t[k].fn;
	return NULL;
}
