/* reportapp: a Vulkan application that registers its own
 * VK_EXT_device_memory_report callback, for the integration tests of the
 * DeviceMemoryReport layer over the test driver layer (testdata/memdriver).
 * It makes every kind of event the driver reports: a failed vkCreateDevice,
 * application memory (allocated, exported, imported from an fd and from a
 * host pointer, one failed allocation of --fail-size bytes), a bound buffer,
 * and internal allocations (command pool, descriptor pool, compute
 * pipeline). It prints
 * what it created ("object NAME handle=H size=S"), then every event its
 * callback received in order ("event ...") and their counts per type. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vkcommon.h"

#define MAX_EVENTS 256

static struct {
	VkDeviceMemoryReportCallbackDataEXT data;
	int other_thread;
} events[MAX_EVENTS];
static int nevents;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_t main_thread;

static void VKAPI_PTR on_report(const VkDeviceMemoryReportCallbackDataEXT *d, void *user) {
	if (user != &events) return; /* not the pUserData registered: counted nowhere, printed as such */
	pthread_mutex_lock(&mu);
	if (nevents < MAX_EVENTS) {
		events[nevents].data = *d;
		events[nevents].data.pNext = NULL;
		events[nevents++].other_thread = !pthread_equal(pthread_self(), main_thread);
	}
	pthread_mutex_unlock(&mu);
}

static void object(const char *name, uint64_t handle, uint64_t size) {
	printf("object %s handle=%llu size=%llu\n", name, (unsigned long long)handle, (unsigned long long)size);
}

static VkDeviceMemory allocate(VkDevice dev, const void *pnext, VkDeviceSize size, VkResult *result) {
	VkMemoryAllocateInfo ai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, pnext, size, 0};
	VkDeviceMemory m = VK_NULL_HANDLE;
	*result = vkAllocateMemory(dev, &ai, NULL, &m);
	return m;
}

/* An empty compute shader (SPIR-V 1.0): OpCapability Shader, GLSL450,
 * entry point "main" with LocalSize 1 1 1. */
static const uint32_t empty_compute[] = {
    0x07230203, 0x00010000, 0, 5, 0,                     /* header, bound 5 */
    0x00020011, 1,                                       /* OpCapability Shader */
    0x0003000e, 0, 1,                                    /* OpMemoryModel Logical GLSL450 */
    0x0005000f, 5, 1, 0x6e69616d, 0,                     /* OpEntryPoint GLCompute %1 "main" */
    0x00060010, 1, 17, 1, 1, 1,                          /* OpExecutionMode %1 LocalSize 1 1 1 */
    0x00020013, 2,                                       /* %2 = OpTypeVoid */
    0x00030021, 3, 2,                                    /* %3 = OpTypeFunction %2 */
    0x00050036, 2, 1, 0, 3,                              /* %1 = OpFunction %2 None %3 */
    0x000200f8, 4,                                       /* %4 = OpLabel */
    0x000100fd,                                          /* OpReturn */
    0x00010038,                                          /* OpFunctionEnd */
};

int main(int argc, char **argv) {
	vkc_prog = "reportapp";
	main_thread = pthread_self();
	VkDeviceSize fail_size = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--fail-size") == 0 && i + 1 < argc) {
			fail_size = strtoull(argv[++i], NULL, 0);
		} else {
			fprintf(stderr, "usage: reportapp [--fail-size N]\n");
			return 2;
		}
	}

	VkInstance inst = vkc_create_instance("reportapp", NULL, 0, NULL);
	VkPhysicalDevice phys = vkc_physical_device(inst);

	uint32_t n = 0;
	CHECK(vkEnumerateDeviceExtensionProperties(phys, NULL, &n, NULL));
	VkExtensionProperties *props = calloc(n, sizeof(*props));
	CHECK(vkEnumerateDeviceExtensionProperties(phys, NULL, &n, props));
	int offered = 0;
	for (uint32_t i = 0; i < n; i++) offered |= strcmp(props[i].extensionName, VK_EXT_DEVICE_MEMORY_REPORT_EXTENSION_NAME) == 0;
	free(props);
	VkPhysicalDeviceDeviceMemoryReportFeaturesEXT feature = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DEVICE_MEMORY_REPORT_FEATURES_EXT};
	VkPhysicalDeviceFeatures2 f2 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &feature};
	vkGetPhysicalDeviceFeatures2(phys, &f2);
	printf("offered extension=%d feature=%d\n", offered, feature.deviceMemoryReport);
	if (!offered || !feature.deviceMemoryReport) return 1;

	/* The application's own callback, after the feature it enables. */
	VkDeviceDeviceMemoryReportCreateInfoEXT report = {VK_STRUCTURE_TYPE_DEVICE_DEVICE_MEMORY_REPORT_CREATE_INFO_EXT, NULL, 0,
	                                                  on_report, &events};
	feature.pNext = &report;
	const char *exts[] = {VK_EXT_DEVICE_MEMORY_REPORT_EXTENSION_NAME, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME,
	                      VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME};
	float prio = 1.0f;
	VkDeviceQueueCreateInfo qci = {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, NULL, 0, 0, 1, &prio};
	VkDeviceCreateInfo dci = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &feature};
	dci.queueCreateInfoCount = 1;
	dci.pQueueCreateInfos = &qci;
	dci.enabledExtensionCount = 3;
	dci.ppEnabledExtensionNames = exts;
	/* First a device lavapipe refuses (sparseBinding): the driver reports
	 * and frees an internal allocation inside the failed vkCreateDevice. */
	VkPhysicalDeviceFeatures sparse = {0};
	sparse.sparseBinding = VK_TRUE;
	dci.pEnabledFeatures = &sparse;
	VkDevice dev;
	printf("failed_device result=%d\n", vkCreateDevice(phys, &dci, NULL, &dev));
	dci.pEnabledFeatures = NULL;
	CHECK(vkCreateDevice(phys, &dci, NULL, &dev));
	object("device", (uint64_t)(uintptr_t)dev, 0);

	/* Application memory: plain, exported, imported (fd, host pointer). */
	VkResult r;
	VkDeviceMemory plain = allocate(dev, NULL, 65536, &r);
	CHECK(r);
	object("plain", (uint64_t)plain, 65536);
	VkExportMemoryAllocateInfo export = {VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO, NULL,
	                                     VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT};
	VkDeviceMemory exported = allocate(dev, &export, 8192, &r);
	CHECK(r);
	object("exported", (uint64_t)exported, 8192);
	PFN_vkGetMemoryFdKHR get_fd = (PFN_vkGetMemoryFdKHR)vkGetDeviceProcAddr(dev, "vkGetMemoryFdKHR");
	VkMemoryGetFdInfoKHR gfi = {VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR, NULL, exported,
	                            VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT};
	int fd = -1;
	CHECK(get_fd(dev, &gfi, &fd));
	VkImportMemoryFdInfoKHR import_fd = {VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR, NULL,
	                                     VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT, fd};
	VkDeviceMemory imported_fd = allocate(dev, &import_fd, 8192, &r); /* owns fd on success */
	CHECK(r);
	object("imported_fd", (uint64_t)imported_fd, 8192);
	void *host = aligned_alloc(65536, 65536);
	VkImportMemoryHostPointerInfoEXT import_host = {VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT, NULL,
	                                                VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT, host};
	VkDeviceMemory imported_host = allocate(dev, &import_host, 65536, &r);
	CHECK(r);
	object("imported_host", (uint64_t)imported_host, 65536);
	if (fail_size) {
		VkDeviceMemory failed = allocate(dev, NULL, fail_size, &r);
		printf("failed_allocation result=%d handle=%llu size=%llu\n", r, (unsigned long long)failed,
		       (unsigned long long)fail_size);
	}

	/* A buffer bound in the plain allocation. */
	VkBuffer buf = vkc_create_buffer(dev);
	VkMemoryRequirements req;
	vkGetBufferMemoryRequirements(dev, buf, &req);
	CHECK(vkBindBufferMemory(dev, buf, plain, 4096));
	VkPhysicalDeviceMemoryProperties mp;
	vkGetPhysicalDeviceMemoryProperties(phys, &mp);
	printf("buffer handle=%llu size=%llu offset=4096 usage=%u memory_flags=%u\n", (unsigned long long)buf,
	       (unsigned long long)req.size, (unsigned)VK_BUFFER_USAGE_TRANSFER_SRC_BIT, mp.memoryTypes[0].propertyFlags);

	/* Driver-internal allocations, all alive at once. */
	VkCommandPoolCreateInfo cpci = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
	VkCommandPool cpool;
	CHECK(vkCreateCommandPool(dev, &cpci, NULL, &cpool));
	object("command_pool", (uint64_t)cpool, 0);
	VkDescriptorPoolSize ps = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 4};
	VkDescriptorPoolCreateInfo dpci = {VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, NULL, 0, 4, 1, &ps};
	VkDescriptorPool dpool;
	CHECK(vkCreateDescriptorPool(dev, &dpci, NULL, &dpool));
	object("descriptor_pool", (uint64_t)dpool, 0);
	VkShaderModuleCreateInfo smci = {VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, NULL, 0, sizeof(empty_compute),
	                                 empty_compute};
	VkShaderModule sm;
	CHECK(vkCreateShaderModule(dev, &smci, NULL, &sm));
	VkPipelineLayoutCreateInfo plci = {VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
	VkPipelineLayout layout;
	CHECK(vkCreatePipelineLayout(dev, &plci, NULL, &layout));
	VkComputePipelineCreateInfo cci = {VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
	cci.stage = (VkPipelineShaderStageCreateInfo){VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0,
	                                              VK_SHADER_STAGE_COMPUTE_BIT, sm, "main", NULL};
	cci.layout = layout;
	VkPipeline pipe;
	CHECK(vkCreateComputePipelines(dev, VK_NULL_HANDLE, 1, &cci, NULL, &pipe));
	object("pipeline", (uint64_t)pipe, 0);

	vkDestroyPipeline(dev, pipe, NULL);
	vkDestroyPipelineLayout(dev, layout, NULL);
	vkDestroyShaderModule(dev, sm, NULL);
	vkDestroyDescriptorPool(dev, dpool, NULL);
	vkDestroyCommandPool(dev, cpool, NULL);
	vkDestroyBuffer(dev, buf, NULL);
	vkFreeMemory(dev, imported_host, NULL);
	vkFreeMemory(dev, imported_fd, NULL);
	vkFreeMemory(dev, exported, NULL);
	vkFreeMemory(dev, plain, NULL);
	vkDestroyDevice(dev, NULL);
	vkDestroyInstance(inst, NULL);
	free(host);

	int counts[5] = {0};
	for (int i = 0; i < nevents; i++) {
		const VkDeviceMemoryReportCallbackDataEXT *d = &events[i].data;
		if (d->type < 5) counts[d->type]++;
		printf("event type=%d id=%llu size=%llu object_type=%d handle=%llu heap=%u flags=%u thread=%s\n", d->type,
		       (unsigned long long)d->memoryObjectId, (unsigned long long)d->size, d->objectType,
		       (unsigned long long)d->objectHandle, d->heapIndex, d->flags, events[i].other_thread ? "other" : "main");
	}
	printf("counts allocate=%d free=%d import=%d unimport=%d allocation_failed=%d\n", counts[0], counts[1], counts[2],
	       counts[3], counts[4]);
	return 0;
}
