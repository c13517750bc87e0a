/* Loader interface, instance chain and the physical-device queries the
 * driver answers differently from lavapipe. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memdriver.h"

#define LAYER_NAME "VK_LAYER_VKGEN_TEST_memdriver"
#define EXPORT __attribute__((visibility("default")))

unsigned md_opts;
uint64_t md_fail_size;
uint64_t md_budget;
pthread_mutex_t md_lock = PTHREAD_MUTEX_INITIALIZER;
static struct md_instance *instances;
static struct md_device *devices;

void md_read_options(void) {
	unsigned opts = 0;
	const char *s = getenv("VKGEN_MEMDRIVER");
	static const struct {
		const char *name;
		unsigned bit;
	} names[] = {{"budget", MD_OPT_BUDGET}, {"maintenance6", MD_OPT_MAINTENANCE6}, {"sparse", MD_OPT_SPARSE},
	             {"video", MD_OPT_VIDEO},   {"flags0", MD_OPT_FLAGS0},           {"heaps", MD_OPT_HEAPS},
	             {"present", MD_OPT_PRESENT}};
	while (s && *s) {
		size_t n = strcspn(s, ",");
		int known = 0;
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strlen(names[i].name) == n && strncmp(s, names[i].name, n) == 0) opts |= names[i].bit, known = 1;
		if (n == 3 && strncmp(s, "all", 3) == 0) opts |= MD_OPT_BUDGET | MD_OPT_MAINTENANCE6 | MD_OPT_SPARSE | MD_OPT_VIDEO, known = 1;
		if (!known && n) fprintf(stderr, "memdriver: unknown VKGEN_MEMDRIVER option %.*s ignored\n", (int)n, s);
		s += n + (s[n] == ',');
	}
	const char *f = getenv("VKGEN_MEMDRIVER_FAIL_SIZE");
	md_fail_size = f ? strtoull(f, NULL, 0) : 0;
	const char *b = getenv("VKGEN_MEMDRIVER_BUDGET");
	md_budget = b ? strtoull(b, NULL, 0) : 0;
	md_opts = opts;
}

struct md_instance *md_instance_of(const void *h) {
	void *key = md_key(h);
	pthread_mutex_lock(&md_lock);
	struct md_instance *i = instances;
	while (i && i->key != key) i = i->next;
	pthread_mutex_unlock(&md_lock);
	return i;
}

struct md_device *md_device_of(const void *h) {
	void *key = md_key(h);
	pthread_mutex_lock(&md_lock);
	struct md_device *d = devices;
	while (d && d->key != key) d = d->next;
	pthread_mutex_unlock(&md_lock);
	return d;
}

void md_device_add(struct md_device *d) {
	pthread_mutex_lock(&md_lock);
	d->next = devices;
	devices = d;
	pthread_mutex_unlock(&md_lock);
}

void md_device_remove(struct md_device *d) {
	pthread_mutex_lock(&md_lock);
	for (struct md_device **p = &devices; *p; p = &(*p)->next)
		if (*p == d) {
			*p = d->next;
			break;
		}
	pthread_mutex_unlock(&md_lock);
}

static VKAPI_ATTR VkResult VKAPI_CALL md_CreateInstance(const VkInstanceCreateInfo *ci, const VkAllocationCallbacks *alloc,
                                                        VkInstance *out) {
	VkLayerInstanceCreateInfo *link = (VkLayerInstanceCreateInfo *)ci->pNext;
	while (link && !(link->sType == VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO && link->function == VK_LAYER_LINK_INFO))
		link = (VkLayerInstanceCreateInfo *)link->pNext;
	if (!link || !link->u.pLayerInfo) return VK_ERROR_INITIALIZATION_FAILED;
	PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
	link->u.pLayerInfo = link->u.pLayerInfo->pNext; /* the loader expects the link advanced in place */
	PFN_vkCreateInstance create = (PFN_vkCreateInstance)gipa(VK_NULL_HANDLE, "vkCreateInstance");
	VkResult r = create(ci, alloc, out);
	if (r != VK_SUCCESS) return r;
	md_read_options();
	struct md_instance *i = calloc(1, sizeof(*i));
	if (!i) return VK_SUCCESS; /* out of memory: the driver below serves unchanged */
	i->key = md_key(*out);
	i->instance = *out;
	i->gipa = gipa;
#define GET(f) i->f = (PFN_vk##f)gipa(*out, "vk" #f)
	GET(DestroyInstance);
	GET(EnumerateDeviceExtensionProperties);
	GET(GetPhysicalDeviceFeatures);
	GET(GetPhysicalDeviceFeatures2);
	GET(GetPhysicalDeviceProperties2);
	GET(GetPhysicalDeviceMemoryProperties);
	GET(GetPhysicalDeviceMemoryProperties2);
	GET(GetPhysicalDeviceQueueFamilyProperties);
	GET(GetPhysicalDeviceQueueFamilyProperties2);
#undef GET
	i->GetPhysicalDeviceFeatures2KHR = (PFN_vkGetPhysicalDeviceFeatures2)gipa(*out, "vkGetPhysicalDeviceFeatures2KHR");
	i->GetPhysicalDeviceProperties2KHR = (PFN_vkGetPhysicalDeviceProperties2)gipa(*out, "vkGetPhysicalDeviceProperties2KHR");
	i->GetPhysicalDeviceMemoryProperties2KHR =
	    (PFN_vkGetPhysicalDeviceMemoryProperties2)gipa(*out, "vkGetPhysicalDeviceMemoryProperties2KHR");
	i->GetPhysicalDeviceQueueFamilyProperties2KHR =
	    (PFN_vkGetPhysicalDeviceQueueFamilyProperties2)gipa(*out, "vkGetPhysicalDeviceQueueFamilyProperties2KHR");
	pthread_mutex_lock(&md_lock);
	i->next = instances;
	instances = i;
	pthread_mutex_unlock(&md_lock);
	return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL md_DestroyInstance(VkInstance instance, const VkAllocationCallbacks *alloc) {
	if (!instance) return;
	struct md_instance *i = md_instance_of(instance);
	if (!i) return;
	pthread_mutex_lock(&md_lock);
	for (struct md_instance **p = &instances; *p; p = &(*p)->next)
		if (*p == i) {
			*p = i->next;
			break;
		}
	pthread_mutex_unlock(&md_lock);
	i->DestroyInstance(instance, alloc);
	free(i);
}

/* The device extensions this driver adds to lavapipe's, by option. */
static const struct {
	const char *name;
	uint32_t spec;
	unsigned opt; /* 0: always */
} added[] = {
    {VK_EXT_DEVICE_MEMORY_REPORT_EXTENSION_NAME, 2, 0},
    {VK_EXT_MEMORY_BUDGET_EXTENSION_NAME, 1, MD_OPT_BUDGET},
    {MD_KHR_MAINTENANCE_6_NAME, 1, MD_OPT_MAINTENANCE6},
    {VK_KHR_VIDEO_QUEUE_EXTENSION_NAME, 8, MD_OPT_VIDEO},
};
#define NADDED (sizeof(added) / sizeof(added[0]))

int md_offers_extension(const char *name) {
	for (size_t k = 0; k < NADDED; k++)
		if (strcmp(name, added[k].name) == 0) return !added[k].opt || (md_opts & added[k].opt);
	return 0;
}

static VKAPI_ATTR VkResult VKAPI_CALL md_EnumerateDeviceExtensionProperties(VkPhysicalDevice phys, const char *layer,
                                                                            uint32_t *count, VkExtensionProperties *props) {
	int mine = layer && strcmp(layer, LAYER_NAME) == 0;
	struct md_instance *i = md_instance_of(phys);
	if (layer && !mine) return i ? i->EnumerateDeviceExtensionProperties(phys, layer, count, props) : VK_ERROR_LAYER_NOT_PRESENT;
	VkExtensionProperties own[NADDED];
	uint32_t nown = 0;
	for (size_t k = 0; k < NADDED; k++)
		if (mine || !added[k].opt || (md_opts & added[k].opt)) {
			memset(&own[nown], 0, sizeof(own[nown]));
			strcpy(own[nown].extensionName, added[k].name);
			own[nown++].specVersion = added[k].spec;
		}
	uint32_t nbelow = 0;
	VkExtensionProperties *below = NULL;
	if (!mine) {
		if (!i) return VK_ERROR_INITIALIZATION_FAILED;
		VkResult r = i->EnumerateDeviceExtensionProperties(phys, NULL, &nbelow, NULL);
		if (r != VK_SUCCESS) return r;
		below = calloc(nbelow + 1, sizeof(*below));
		if (!below) return VK_ERROR_OUT_OF_HOST_MEMORY;
		r = i->EnumerateDeviceExtensionProperties(phys, NULL, &nbelow, below);
		if (r != VK_SUCCESS && r != VK_INCOMPLETE) {
			free(below);
			return r;
		}
		/* lavapipe already offering one (a newer Mesa) is not listed twice */
		uint32_t keep = 0;
		for (uint32_t k = 0; k < nown; k++) {
			int dup = 0;
			for (uint32_t j = 0; j < nbelow && !dup; j++) dup = strcmp(below[j].extensionName, own[k].extensionName) == 0;
			if (!dup) own[keep++] = own[k];
		}
		nown = keep;
	}
	uint32_t total = nbelow + nown;
	if (!props) {
		*count = total;
		free(below);
		return VK_SUCCESS;
	}
	uint32_t n = 0;
	for (uint32_t k = 0; k < nbelow && n < *count; k++) props[n++] = below[k];
	for (uint32_t k = 0; k < nown && n < *count; k++) props[n++] = own[k];
	free(below);
	*count = n;
	return n < total ? VK_INCOMPLETE : VK_SUCCESS;
}

/* Sets what the driver adds to a features chain. */
static void fill_features(VkPhysicalDeviceFeatures *f, void *chain) {
	if (f && (md_opts & MD_OPT_SPARSE)) f->sparseBinding = VK_TRUE;
	for (VkBaseOutStructure *s = chain; s; s = s->pNext) {
		if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DEVICE_MEMORY_REPORT_FEATURES_EXT)
			((VkPhysicalDeviceDeviceMemoryReportFeaturesEXT *)s)->deviceMemoryReport = VK_TRUE;
		if (s->sType == MD_STYPE_MAINTENANCE_6_FEATURES && (md_opts & MD_OPT_MAINTENANCE6))
			((md_maintenance6_features *)s)->maintenance6 = VK_TRUE;
	}
}

static VKAPI_ATTR void VKAPI_CALL md_GetPhysicalDeviceFeatures(VkPhysicalDevice phys, VkPhysicalDeviceFeatures *f) {
	md_instance_of(phys)->GetPhysicalDeviceFeatures(phys, f);
	fill_features(f, NULL);
}

static VKAPI_ATTR void VKAPI_CALL md_GetPhysicalDeviceFeatures2(VkPhysicalDevice phys, VkPhysicalDeviceFeatures2 *f) {
	struct md_instance *i = md_instance_of(phys);
	(i->GetPhysicalDeviceFeatures2 ? i->GetPhysicalDeviceFeatures2 : i->GetPhysicalDeviceFeatures2KHR)(phys, f);
	fill_features(&f->features, f->pNext);
}

static VKAPI_ATTR void VKAPI_CALL md_GetPhysicalDeviceProperties2(VkPhysicalDevice phys, VkPhysicalDeviceProperties2 *p) {
	struct md_instance *i = md_instance_of(phys);
	(i->GetPhysicalDeviceProperties2 ? i->GetPhysicalDeviceProperties2 : i->GetPhysicalDeviceProperties2KHR)(phys, p);
	if (!(md_opts & MD_OPT_MAINTENANCE6)) return;
	for (VkBaseOutStructure *s = p->pNext; s; s = s->pNext)
		if (s->sType == MD_STYPE_MAINTENANCE_6_PROPERTIES) {
			md_maintenance6_properties *m = (md_maintenance6_properties *)s;
			m->blockTexelViewCompatibleMultipleLayers = VK_FALSE;
			m->maxCombinedImageSamplerDescriptorCount = 1;
			m->fragmentShadingRateClampCombinerInputs = VK_FALSE;
		}
}

static VKAPI_ATTR void VKAPI_CALL md_GetPhysicalDeviceMemoryProperties2(VkPhysicalDevice phys,
                                                                        VkPhysicalDeviceMemoryProperties2 *p) {
	struct md_instance *i = md_instance_of(phys);
	(i->GetPhysicalDeviceMemoryProperties2 ? i->GetPhysicalDeviceMemoryProperties2 : i->GetPhysicalDeviceMemoryProperties2KHR)(phys, p);
	md_add_heap(&p->memoryProperties);
	if (!(md_opts & MD_OPT_BUDGET)) return;
	for (VkBaseOutStructure *s = p->pNext; s; s = s->pNext)
		if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT) {
			VkPhysicalDeviceMemoryBudgetPropertiesEXT *b = (VkPhysicalDeviceMemoryBudgetPropertiesEXT *)s;
			for (uint32_t h = 0; h < VK_MAX_MEMORY_HEAPS; h++) {
				int in = h < p->memoryProperties.memoryHeapCount;
				b->heapBudget[h] = in ? (md_budget ? md_budget : p->memoryProperties.memoryHeaps[h].size / 2) : 0;
				b->heapUsage[h] = in ? md_heap_usage[h] : 0;
			}
		}
}

static VKAPI_ATTR void VKAPI_CALL md_GetPhysicalDeviceMemoryProperties(VkPhysicalDevice phys,
                                                                       VkPhysicalDeviceMemoryProperties *p) {
	md_instance_of(phys)->GetPhysicalDeviceMemoryProperties(phys, p);
	md_add_heap(p);
}

static VKAPI_ATTR void VKAPI_CALL md_GetPhysicalDeviceQueueFamilyProperties(VkPhysicalDevice phys, uint32_t *n,
                                                                            VkQueueFamilyProperties *p) {
	md_instance_of(phys)->GetPhysicalDeviceQueueFamilyProperties(phys, n, p);
	if (p && *n && (md_opts & MD_OPT_SPARSE)) p[0].queueFlags |= VK_QUEUE_SPARSE_BINDING_BIT;
}

static VKAPI_ATTR void VKAPI_CALL md_GetPhysicalDeviceQueueFamilyProperties2(VkPhysicalDevice phys, uint32_t *n,
                                                                             VkQueueFamilyProperties2 *p) {
	struct md_instance *i = md_instance_of(phys);
	(i->GetPhysicalDeviceQueueFamilyProperties2 ? i->GetPhysicalDeviceQueueFamilyProperties2
	                                             : i->GetPhysicalDeviceQueueFamilyProperties2KHR)(phys, n, p);
	if (p && *n && (md_opts & MD_OPT_SPARSE)) p[0].queueFamilyProperties.queueFlags |= VK_QUEUE_SPARSE_BINDING_BIT;
}

static PFN_vkVoidFunction instance_command(const char *name) {
	static const struct {
		const char *name;
		PFN_vkVoidFunction fn;
	} t[] = {
#define F(n, f) {n, (PFN_vkVoidFunction)f}
	    F("vkCreateInstance", md_CreateInstance),
	    F("vkDestroyInstance", md_DestroyInstance),
	    F("vkEnumerateDeviceExtensionProperties", md_EnumerateDeviceExtensionProperties),
	    F("vkGetPhysicalDeviceFeatures", md_GetPhysicalDeviceFeatures),
	    F("vkGetPhysicalDeviceFeatures2", md_GetPhysicalDeviceFeatures2),
	    F("vkGetPhysicalDeviceFeatures2KHR", md_GetPhysicalDeviceFeatures2),
	    F("vkGetPhysicalDeviceProperties2", md_GetPhysicalDeviceProperties2),
	    F("vkGetPhysicalDeviceProperties2KHR", md_GetPhysicalDeviceProperties2),
	    F("vkGetPhysicalDeviceMemoryProperties", md_GetPhysicalDeviceMemoryProperties),
	    F("vkGetPhysicalDeviceMemoryProperties2", md_GetPhysicalDeviceMemoryProperties2),
	    F("vkGetPhysicalDeviceMemoryProperties2KHR", md_GetPhysicalDeviceMemoryProperties2),
	    F("vkGetPhysicalDeviceQueueFamilyProperties", md_GetPhysicalDeviceQueueFamilyProperties),
	    F("vkGetPhysicalDeviceQueueFamilyProperties2", md_GetPhysicalDeviceQueueFamilyProperties2),
	    F("vkGetPhysicalDeviceQueueFamilyProperties2KHR", md_GetPhysicalDeviceQueueFamilyProperties2),
	    F("vkCreateDevice", md_CreateDevice),
#undef F
	};
	for (size_t k = 0; k < sizeof(t) / sizeof(t[0]); k++)
		if (strcmp(name, t[k].name) == 0) return t[k].fn;
	return NULL;
}

/* The present option: a present of no swapchain is a frame boundary for
 * programs without a display (lavapipe has no headless surface); it never
 * reaches lavapipe. Others go down. */
static VKAPI_ATTR VkResult VKAPI_CALL md_QueuePresentKHR(VkQueue queue, const VkPresentInfoKHR *info) {
	if (info && info->swapchainCount == 0) return VK_SUCCESS;
	struct md_device *d = md_device_of(queue);
	PFN_vkQueuePresentKHR down = d ? (PFN_vkQueuePresentKHR)d->gdpa(d->device, "vkQueuePresentKHR") : NULL;
	return down ? down(queue, info) : VK_ERROR_DEVICE_LOST;
}

static PFN_vkVoidFunction device_command(const char *name) {
	if ((md_opts & MD_OPT_PRESENT) && strcmp(name, "vkQueuePresentKHR") == 0) return (PFN_vkVoidFunction)md_QueuePresentKHR;
	PFN_vkVoidFunction f = md_device_command(name);
	if (!f) f = md_report_command(name);
	if (!f) f = md_bind_command(name);
	if (!f && (md_opts & MD_OPT_HEAPS)) f = md_heap_command(name);
	if (!f && (md_opts & MD_OPT_VIDEO)) f = md_video_command(name);
	return f;
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL md_GetDeviceProcAddr(VkDevice device, const char *name) {
	if (!name) return NULL;
	if (strcmp(name, "vkGetDeviceProcAddr") == 0) return (PFN_vkVoidFunction)md_GetDeviceProcAddr;
	struct md_device *d = device ? md_device_of(device) : NULL;
	if (!d) return NULL;
	PFN_vkVoidFunction f = device_command(name);
	return f ? f : d->gdpa(device, name);
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL md_GetInstanceProcAddr(VkInstance instance, const char *name) {
	if (!name) return NULL;
	if (strcmp(name, "vkGetInstanceProcAddr") == 0) return (PFN_vkVoidFunction)md_GetInstanceProcAddr;
	if (strcmp(name, "vkGetDeviceProcAddr") == 0) return (PFN_vkVoidFunction)md_GetDeviceProcAddr;
	PFN_vkVoidFunction f = instance_command(name);
	if (f) return f;
	if (!instance) return NULL;
	struct md_instance *i = md_instance_of(instance);
	if (!i) return NULL;
	if ((f = device_command(name))) return f;
	return i->gipa(instance, name);
}

EXPORT VKAPI_ATTR VkResult VKAPI_CALL memdriver_NegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface *v) {
	if (!v || v->sType != LAYER_NEGOTIATE_INTERFACE_STRUCT || v->loaderLayerInterfaceVersion < 2)
		return VK_ERROR_INITIALIZATION_FAILED;
	v->loaderLayerInterfaceVersion = 2;
	v->pfnGetInstanceProcAddr = md_GetInstanceProcAddr;
	v->pfnGetDeviceProcAddr = md_GetDeviceProcAddr;
	v->pfnGetPhysicalDeviceProcAddr = NULL;
	return VK_SUCCESS;
}

EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL memdriver_GetInstanceProcAddr(VkInstance i, const char *n) {
	return md_GetInstanceProcAddr(i, n);
}

EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL memdriver_GetDeviceProcAddr(VkDevice d, const char *n) {
	return md_GetDeviceProcAddr(d, n);
}
