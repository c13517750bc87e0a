/* countlayer: the independent counter of the real-programs tests
 * (layer/realprograms). A plain C layer, enabled directly below the vkgen
 * layers, that sums the bytes of every successful vkAllocateMemory it sees.
 * After each one it rewrites "allocated BYTES COUNT" at the start of
 * $VKGEN_COUNT_DIR/count-PID, so the totals survive a process killed by a
 * signal, and a reload of the layer (the loader unloads it at every
 * vkDestroyInstance) goes on from them. It implements nothing else: every
 * other command goes straight to the next layer. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#define EXPORT __attribute__((visibility("default")))

static PFN_vkGetInstanceProcAddr next_gipa;
static PFN_vkGetDeviceProcAddr next_gdpa;
static PFN_vkAllocateMemory next_alloc;
static unsigned long long bytes, count;
static int fd = -1;

/* Opens this process's count file and takes up its totals. */
__attribute__((constructor)) static void open_counts(void) {
	const char *dir = getenv("VKGEN_COUNT_DIR");
	if (!dir) return;
	char path[4096], line[64] = "";
	snprintf(path, sizeof path, "%s/count-%d", dir, (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0 && pread(fd, line, sizeof line - 1, 0) > 0) sscanf(line, "allocated %llu %llu", &bytes, &count);
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static VKAPI_ATTR VkResult VKAPI_CALL count_AllocateMemory(VkDevice device, const VkMemoryAllocateInfo *info,
                                                           const VkAllocationCallbacks *alloc, VkDeviceMemory *mem) {
	VkResult r = next_alloc(device, info, alloc, mem);
	if (r == VK_SUCCESS) {
		pthread_mutex_lock(&mu);
		bytes += info->allocationSize;
		count++;
		char line[64];
		int n = snprintf(line, sizeof line, "allocated %20llu %20llu\n", bytes, count);
		if (fd >= 0 && pwrite(fd, line, n, 0) != n) perror("countlayer");
		pthread_mutex_unlock(&mu);
	}
	return r;
}

static VKAPI_ATTR VkResult VKAPI_CALL count_CreateInstance(const VkInstanceCreateInfo *ci,
                                                           const VkAllocationCallbacks *alloc, VkInstance *out) {
	VkLayerInstanceCreateInfo *link = (VkLayerInstanceCreateInfo *)ci->pNext;
	while (link && !(link->sType == VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO && link->function == VK_LAYER_LINK_INFO))
		link = (VkLayerInstanceCreateInfo *)link->pNext;
	if (!link) return VK_ERROR_INITIALIZATION_FAILED;
	next_gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
	link->u.pLayerInfo = link->u.pLayerInfo->pNext;
	PFN_vkCreateInstance create = (PFN_vkCreateInstance)next_gipa(NULL, "vkCreateInstance");
	return create ? create(ci, alloc, out) : VK_ERROR_INITIALIZATION_FAILED;
}

static VKAPI_ATTR VkResult VKAPI_CALL count_CreateDevice(VkPhysicalDevice phys, const VkDeviceCreateInfo *ci,
                                                         const VkAllocationCallbacks *alloc, VkDevice *out) {
	VkLayerDeviceCreateInfo *link = (VkLayerDeviceCreateInfo *)ci->pNext;
	while (link && !(link->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO && link->function == VK_LAYER_LINK_INFO))
		link = (VkLayerDeviceCreateInfo *)link->pNext;
	if (!link) return VK_ERROR_INITIALIZATION_FAILED;
	PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
	next_gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
	link->u.pLayerInfo = link->u.pLayerInfo->pNext;
	PFN_vkCreateDevice create = (PFN_vkCreateDevice)gipa(NULL, "vkCreateDevice");
	if (!create) return VK_ERROR_INITIALIZATION_FAILED;
	VkResult r = create(phys, ci, alloc, out);
	if (r == VK_SUCCESS) next_alloc = (PFN_vkAllocateMemory)next_gdpa(*out, "vkAllocateMemory");
	return r;
}

EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL count_GetDeviceProcAddr(VkDevice device, const char *name) {
	if (!strcmp(name, "vkAllocateMemory")) return (PFN_vkVoidFunction)count_AllocateMemory;
	if (!strcmp(name, "vkGetDeviceProcAddr")) return (PFN_vkVoidFunction)count_GetDeviceProcAddr;
	return next_gdpa ? next_gdpa(device, name) : NULL;
}

EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL count_GetInstanceProcAddr(VkInstance instance, const char *name) {
	if (!strcmp(name, "vkCreateInstance")) return (PFN_vkVoidFunction)count_CreateInstance;
	if (!strcmp(name, "vkCreateDevice")) return (PFN_vkVoidFunction)count_CreateDevice;
	if (!strcmp(name, "vkGetInstanceProcAddr")) return (PFN_vkVoidFunction)count_GetInstanceProcAddr;
	PFN_vkVoidFunction dev = count_GetDeviceProcAddr(NULL, name);
	if (dev == (PFN_vkVoidFunction)count_AllocateMemory || dev == (PFN_vkVoidFunction)count_GetDeviceProcAddr) return dev;
	return next_gipa ? next_gipa(instance, name) : NULL;
}

EXPORT VKAPI_ATTR VkResult VKAPI_CALL count_NegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface *v) {
	if (v->loaderLayerInterfaceVersion < 2) return VK_ERROR_INITIALIZATION_FAILED;
	v->loaderLayerInterfaceVersion = 2;
	v->pfnGetInstanceProcAddr = count_GetInstanceProcAddr;
	v->pfnGetDeviceProcAddr = count_GetDeviceProcAddr;
	v->pfnGetPhysicalDeviceProcAddr = NULL;
	return VK_SUCCESS;
}
