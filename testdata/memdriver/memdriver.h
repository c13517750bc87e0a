/* memdriver: a test Vulkan layer that sits nearest the driver (lavapipe) and
 * behaves like a driver that implements VK_EXT_device_memory_report, plus
 * opt-in emulations (VK_EXT_memory_budget, VK_KHR_maintenance6 bind results,
 * sparse binding, a minimal VK_KHR_video_queue). A test fixture, not a
 * product: README.md says what it advertises and reports. */
#ifndef MEMDRIVER_H
#define MEMDRIVER_H

#include <pthread.h>
#include <stdint.h>
#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

/* VK_KHR_maintenance6 postdates the 1.3.239 headers: the registry's values. */
#define MD_KHR_MAINTENANCE_6_NAME "VK_KHR_maintenance6"
#define MD_STYPE_MAINTENANCE_6_FEATURES ((VkStructureType)1000545000)
#define MD_STYPE_MAINTENANCE_6_PROPERTIES ((VkStructureType)1000545001)
#define MD_STYPE_BIND_MEMORY_STATUS ((VkStructureType)1000545002)
typedef struct {
	VkStructureType sType;
	void *pNext;
	VkBool32 maintenance6;
} md_maintenance6_features;
typedef struct {
	VkStructureType sType;
	void *pNext;
	VkBool32 blockTexelViewCompatibleMultipleLayers;
	uint32_t maxCombinedImageSamplerDescriptorCount;
	VkBool32 fragmentShadingRateClampCombinerInputs;
} md_maintenance6_properties;
typedef struct {
	VkStructureType sType;
	const void *pNext;
	VkResult *pResult;
} md_bind_memory_status;

/* A bind at this memory offset fails with VK_ERROR_OUT_OF_DEVICE_MEMORY and
 * is not bound below (maintenance6 option). */
#define MD_FAILING_BIND_OFFSET 0xdead0000ull

/* Sizes of driver-internal allocations, bytes. */
enum {
	MD_SIZE_DEVICE = 1048576,
	MD_SIZE_COMMAND_POOL = 65536,
	MD_SIZE_DESCRIPTOR_POOL = 32768,
	MD_SIZE_PIPELINE = 8192,
};
/* Video session memory requirements: binding 0 and 1. */
enum { MD_VIDEO_BIND0 = 65536, MD_VIDEO_BIND1 = 262144, MD_VIDEO_ALIGN = 4096 };

/* VKGEN_MEMDRIVER options. */
enum {
	MD_OPT_BUDGET = 1,
	MD_OPT_MAINTENANCE6 = 2,
	MD_OPT_SPARSE = 4,
	MD_OPT_VIDEO = 8,
	MD_OPT_FLAGS0 = 16,
	MD_OPT_HEAPS = 32,
	MD_OPT_PRESENT = 64,
};

/* The heaps option's device-local heap (after lavapipe's) and its one
 * memory type (after lavapipe's), whose memory is lavapipe's type 0. */
#define MD_EXTRA_HEAP_SIZE 268435456ull
extern unsigned md_opts;
extern uint64_t md_fail_size; /* VKGEN_MEMDRIVER_FAIL_SIZE, 0: none */
extern uint64_t md_budget;    /* VKGEN_MEMDRIVER_BUDGET, 0: half each heap */
void md_read_options(void);
/* Whether name is a device extension this driver offers with the current
 * options (then it is never passed to lavapipe; one it does not offer is, so
 * lavapipe refuses it as a driver would). */
int md_offers_extension(const char *name);

struct md_instance {
	void *key;
	VkInstance instance;
	PFN_vkGetInstanceProcAddr gipa;
	PFN_vkDestroyInstance DestroyInstance;
	PFN_vkEnumerateDeviceExtensionProperties EnumerateDeviceExtensionProperties;
	PFN_vkGetPhysicalDeviceFeatures GetPhysicalDeviceFeatures;
	PFN_vkGetPhysicalDeviceFeatures2 GetPhysicalDeviceFeatures2, GetPhysicalDeviceFeatures2KHR;
	PFN_vkGetPhysicalDeviceProperties2 GetPhysicalDeviceProperties2, GetPhysicalDeviceProperties2KHR;
	PFN_vkGetPhysicalDeviceMemoryProperties GetPhysicalDeviceMemoryProperties;
	PFN_vkGetPhysicalDeviceMemoryProperties2 GetPhysicalDeviceMemoryProperties2, GetPhysicalDeviceMemoryProperties2KHR;
	PFN_vkGetPhysicalDeviceQueueFamilyProperties GetPhysicalDeviceQueueFamilyProperties;
	PFN_vkGetPhysicalDeviceQueueFamilyProperties2 GetPhysicalDeviceQueueFamilyProperties2,
	    GetPhysicalDeviceQueueFamilyProperties2KHR;
	struct md_instance *next;
};

/* What the driver reported allocated and has not freed yet. */
struct md_object {
	uint64_t handle, id, size;
	VkObjectType type;
	uint32_t heap;
	int imported;
	struct md_object *next;
};

struct md_callback {
	PFN_vkDeviceMemoryReportCallbackEXT fn;
	void *user;
};

struct md_video_session {
	uint64_t handle;
	uint32_t bound; /* bit per memoryBindIndex */
	struct md_video_session *next;
};

struct md_device {
	void *key;
	VkDevice device;
	PFN_vkGetDeviceProcAddr gdpa;
	PFN_vkDestroyDevice DestroyDevice;
	PFN_vkAllocateMemory AllocateMemory;
	PFN_vkFreeMemory FreeMemory;
	PFN_vkCreateCommandPool CreateCommandPool;
	PFN_vkDestroyCommandPool DestroyCommandPool;
	PFN_vkCreateDescriptorPool CreateDescriptorPool;
	PFN_vkDestroyDescriptorPool DestroyDescriptorPool;
	PFN_vkCreateGraphicsPipelines CreateGraphicsPipelines;
	PFN_vkCreateComputePipelines CreateComputePipelines;
	PFN_vkDestroyPipeline DestroyPipeline;
	PFN_vkBindBufferMemory2 BindBufferMemory2;
	PFN_vkBindImageMemory2 BindImageMemory2;
	PFN_vkCreateBuffer CreateBuffer;
	PFN_vkCreateImage CreateImage;
	PFN_vkQueueSubmit QueueSubmit;
	PFN_vkGetBufferMemoryRequirements GetBufferMemoryRequirements;
	PFN_vkGetImageMemoryRequirements GetImageMemoryRequirements;
	PFN_vkGetBufferMemoryRequirements2 GetBufferMemoryRequirements2;
	PFN_vkGetImageMemoryRequirements2 GetImageMemoryRequirements2;
	PFN_vkGetDeviceBufferMemoryRequirements GetDeviceBufferMemoryRequirements;
	PFN_vkGetDeviceImageMemoryRequirements GetDeviceImageMemoryRequirements;
	VkPhysicalDeviceMemoryProperties mem; /* as the application sees it */
	uint32_t lower_types;                 /* lavapipe's memory type count */
	uint32_t ncallbacks;
	struct md_callback *callbacks; /* fixed at creation: read without the lock */
	uint64_t device_id;            /* the internal allocation made during vkCreateDevice */
	struct md_object *objects;     /* under md_lock */
	struct md_video_session *sessions;
	uint64_t next_session;
	uint64_t sparse_binds; /* binds vkQueueBindSparse recorded */
	struct md_device *next;
};

extern pthread_mutex_t md_lock;

static inline void *md_key(const void *dispatchable) { return *(void *const *)dispatchable; }
struct md_instance *md_instance_of(const void *dispatchable);
struct md_device *md_device_of(const void *dispatchable);
void md_device_add(struct md_device *d);
void md_device_remove(struct md_device *d);

/* Heaps option (heaps.c). */
void md_add_heap(VkPhysicalDeviceMemoryProperties *p);
/* The heap driver-internal allocations are reported in. */
uint32_t md_internal_heap(const struct md_device *d);
PFN_vkVoidFunction md_heap_command(const char *name);

/* Reporting (report.c). */
uint64_t md_next_id(void);
void md_report(struct md_device *d, VkDeviceMemoryReportEventTypeEXT type, uint64_t id, uint64_t size, VkObjectType ot,
               uint64_t handle, uint32_t heap);
void md_track(struct md_device *d, uint64_t handle, VkObjectType ot, uint64_t size, uint32_t heap, int imported);
/* Removes and returns the tracked object, NULL if unknown; the caller frees it. */
struct md_object *md_untrack(struct md_device *d, VkObjectType ot, uint64_t handle);
void md_release_all(struct md_device *d);
extern _Atomic uint64_t md_heap_usage[VK_MAX_MEMORY_HEAPS];

/* Commands. */
VKAPI_ATTR VkResult VKAPI_CALL md_CreateDevice(VkPhysicalDevice, const VkDeviceCreateInfo *,
                                               const VkAllocationCallbacks *, VkDevice *);
VKAPI_ATTR void VKAPI_CALL md_DestroyDevice(VkDevice, const VkAllocationCallbacks *);
PFN_vkVoidFunction md_device_command(const char *name);
PFN_vkVoidFunction md_bind_command(const char *name);
PFN_vkVoidFunction md_video_command(const char *name);
PFN_vkVoidFunction md_report_command(const char *name);

#endif
