/* memdriver_check: exercises the opt-in emulations of the memdriver layer
 * (VKGEN_MEMDRIVER=all,heaps) through the loader, without other layers, and
 * prints what it observed one fact a line for internal/vktest's test. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../memdriver.h"
#include "vkcommon.h"

static int has_ext(VkPhysicalDevice phys, const char *name) {
	uint32_t n = 0;
	CHECK(vkEnumerateDeviceExtensionProperties(phys, NULL, &n, NULL));
	VkExtensionProperties *p = calloc(n, sizeof(*p));
	CHECK(vkEnumerateDeviceExtensionProperties(phys, NULL, &n, p));
	int found = 0;
	for (uint32_t i = 0; i < n; i++) found += strcmp(p[i].extensionName, name) == 0;
	free(p);
	return found;
}

static void budget(VkPhysicalDevice phys, const char *when) {
	VkPhysicalDeviceMemoryBudgetPropertiesEXT b = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT};
	VkPhysicalDeviceMemoryProperties2 mp = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2, &b};
	vkGetPhysicalDeviceMemoryProperties2(phys, &mp);
	const VkPhysicalDeviceMemoryProperties *m = &mp.memoryProperties;
	printf("budget %s heaps=%u heap0=%llu budget0=%llu usage0=%llu heap1=%llu/%#x budget1=%llu usage1=%llu", when,
	       m->memoryHeapCount, (unsigned long long)m->memoryHeaps[0].size, (unsigned long long)b.heapBudget[0],
	       (unsigned long long)b.heapUsage[0], (unsigned long long)m->memoryHeaps[1].size, m->memoryHeaps[1].flags,
	       (unsigned long long)b.heapBudget[1], (unsigned long long)b.heapUsage[1]);
	for (uint32_t i = 0; i < m->memoryTypeCount; i++)
		printf(" type%u=%#x/heap%u", i, m->memoryTypes[i].propertyFlags, m->memoryTypes[i].heapIndex);
	printf("\n");
}

static VkBuffer buffer(VkDevice dev, VkBufferCreateFlags flags) {
	VkBufferCreateInfo ci = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, NULL, flags, 4096, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT};
	VkBuffer b;
	CHECK(vkCreateBuffer(dev, &ci, NULL, &b));
	return b;
}

int main(void) {
	vkc_prog = "memdriver-check";
	VkInstance inst = vkc_create_instance("memdriver-check", NULL, 0, NULL);
	VkPhysicalDevice phys = vkc_physical_device(inst);
	const char *names[] = {VK_EXT_DEVICE_MEMORY_REPORT_EXTENSION_NAME, VK_EXT_MEMORY_BUDGET_EXTENSION_NAME,
	                       MD_KHR_MAINTENANCE_6_NAME, VK_KHR_VIDEO_QUEUE_EXTENSION_NAME, VK_KHR_MAINTENANCE_4_EXTENSION_NAME};
	for (int i = 0; i < 4; i++) printf("extension %s=%d\n", names[i], has_ext(phys, names[i]));

	md_maintenance6_features m6 = {MD_STYPE_MAINTENANCE_6_FEATURES};
	VkPhysicalDeviceDeviceMemoryReportFeaturesEXT report = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DEVICE_MEMORY_REPORT_FEATURES_EXT, &m6};
	VkPhysicalDeviceFeatures2 f2 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &report};
	vkGetPhysicalDeviceFeatures2(phys, &f2);
	uint32_t nq = 1;
	VkQueueFamilyProperties q;
	vkGetPhysicalDeviceQueueFamilyProperties(phys, &nq, &q);
	printf("features deviceMemoryReport=%d maintenance6=%d sparseBinding=%d queue0_sparse=%d\n", report.deviceMemoryReport,
	       m6.maintenance6, f2.features.sparseBinding, !!(q.queueFlags & VK_QUEUE_SPARSE_BINDING_BIT));

	/* A device enabling all of it: lavapipe must accept what reaches it. */
	m6.pNext = NULL;
	report.pNext = &m6;
	VkPhysicalDeviceFeatures2 enable = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &report};
	enable.features.sparseBinding = VK_TRUE;
	float prio = 1.0f;
	VkDeviceQueueCreateInfo qci = {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, NULL, 0, 0, 1, &prio};
	VkDeviceCreateInfo dci = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &enable, 0, 1, &qci, 0, NULL, 5, names, NULL};
	budget(phys, "before_device");
	VkDevice dev;
	CHECK(vkCreateDevice(phys, &dci, NULL, &dev));
	budget(phys, "device");
	VkMemoryAllocateInfo ai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, NULL, 65536, 0};
	VkDeviceMemory mem;
	CHECK(vkAllocateMemory(dev, &ai, NULL, &mem));
	budget(phys, "allocated");

	/* heaps: requirements allow the added type, and memory of it works. */
	VkBuffer hb = buffer(dev, 0);
	VkMemoryRequirements req;
	vkGetBufferMemoryRequirements(dev, hb, &req);
	VkBufferCreateInfo hbci = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, NULL, 0, 4096, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT};
	VkDeviceBufferMemoryRequirements dbr = {VK_STRUCTURE_TYPE_DEVICE_BUFFER_MEMORY_REQUIREMENTS, NULL, &hbci};
	VkMemoryRequirements2 req2 = {VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2};
	PFN_vkGetDeviceBufferMemoryRequirements dreq =
	    (PFN_vkGetDeviceBufferMemoryRequirements)vkGetDeviceProcAddr(dev, "vkGetDeviceBufferMemoryRequirementsKHR");
	dreq(dev, &dbr, &req2);
	VkMemoryAllocateInfo hai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, NULL, 4096, 1};
	VkDeviceMemory hmem;
	CHECK(vkAllocateMemory(dev, &hai, NULL, &hmem));
	printf("heaps types=%#x device_types=%#x bind=%d\n", req.memoryTypeBits, req2.memoryRequirements.memoryTypeBits,
	       vkBindBufferMemory(dev, hb, hmem, 0));
	budget(phys, "allocated_heap1");
	vkDestroyBuffer(dev, hb, NULL);
	vkFreeMemory(dev, hmem, NULL);

	/* maintenance6: per-bind results, the second bind refused. */
	VkBuffer b0 = buffer(dev, 0), b1 = buffer(dev, 0);
	VkResult r0 = VK_RESULT_MAX_ENUM, r1 = VK_RESULT_MAX_ENUM;
	md_bind_memory_status s0 = {MD_STYPE_BIND_MEMORY_STATUS, NULL, &r0}, s1 = {MD_STYPE_BIND_MEMORY_STATUS, NULL, &r1};
	VkBindBufferMemoryInfo binds[2] = {{VK_STRUCTURE_TYPE_BIND_BUFFER_MEMORY_INFO, &s0, b0, mem, 0},
	                                   {VK_STRUCTURE_TYPE_BIND_BUFFER_MEMORY_INFO, &s1, b1, mem, MD_FAILING_BIND_OFFSET}};
	VkResult r = vkBindBufferMemory2(dev, 2, binds);
	/* b1 was not bound below: binding it now succeeds */
	VkResult again = vkBindBufferMemory(dev, b1, mem, 4096);
	printf("bind2 result=%d status0=%d status1=%d rebind1=%d\n", r, r0, r1, again);

	/* sparse: a sparse buffer, its bind, and the fence signalled. */
	VkBuffer sb = buffer(dev, VK_BUFFER_CREATE_SPARSE_BINDING_BIT);
	VkQueue queue;
	vkGetDeviceQueue(dev, 0, 0, &queue);
	VkFenceCreateInfo fci = {VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
	VkFence fence;
	CHECK(vkCreateFence(dev, &fci, NULL, &fence));
	VkSparseMemoryBind smb = {0, 4096, mem, 8192, 0};
	VkSparseBufferMemoryBindInfo sbi = {sb, 1, &smb};
	VkBindSparseInfo bsi = {VK_STRUCTURE_TYPE_BIND_SPARSE_INFO};
	bsi.bufferBindCount = 1;
	bsi.pBufferBinds = &sbi;
	r = vkQueueBindSparse(queue, 1, &bsi, fence);
	VkResult waited = vkWaitForFences(dev, 1, &fence, VK_TRUE, UINT64_MAX);
	printf("sparse bind=%d fence=%d\n", r, waited);

	/* video: a session, its two bindings, a second bind refused. */
	PFN_vkCreateVideoSessionKHR create = (PFN_vkCreateVideoSessionKHR)vkGetDeviceProcAddr(dev, "vkCreateVideoSessionKHR");
	PFN_vkDestroyVideoSessionKHR destroy = (PFN_vkDestroyVideoSessionKHR)vkGetDeviceProcAddr(dev, "vkDestroyVideoSessionKHR");
	PFN_vkGetVideoSessionMemoryRequirementsKHR reqs =
	    (PFN_vkGetVideoSessionMemoryRequirementsKHR)vkGetDeviceProcAddr(dev, "vkGetVideoSessionMemoryRequirementsKHR");
	PFN_vkBindVideoSessionMemoryKHR bind =
	    (PFN_vkBindVideoSessionMemoryKHR)vkGetDeviceProcAddr(dev, "vkBindVideoSessionMemoryKHR");
	if (!create || !destroy || !reqs || !bind) {
		printf("video commands missing\n");
		return 1;
	}
	VkVideoSessionCreateInfoKHR vci = {VK_STRUCTURE_TYPE_VIDEO_SESSION_CREATE_INFO_KHR};
	VkVideoSessionKHR session;
	CHECK(create(dev, &vci, NULL, &session));
	uint32_t n = 0;
	CHECK(reqs(dev, session, &n, NULL));
	VkVideoSessionMemoryRequirementsKHR mr[2] = {{VK_STRUCTURE_TYPE_VIDEO_SESSION_MEMORY_REQUIREMENTS_KHR},
	                                             {VK_STRUCTURE_TYPE_VIDEO_SESSION_MEMORY_REQUIREMENTS_KHR}};
	CHECK(reqs(dev, session, &n, mr));
	printf("video session=%#llx bindings=%u", (unsigned long long)session, n);
	for (uint32_t i = 0; i < n; i++)
		printf(" [%u size=%llu align=%llu types=%#x]", mr[i].memoryBindIndex, (unsigned long long)mr[i].memoryRequirements.size,
		       (unsigned long long)mr[i].memoryRequirements.alignment, mr[i].memoryRequirements.memoryTypeBits);
	VkBindVideoSessionMemoryInfoKHR vb[2] = {{VK_STRUCTURE_TYPE_BIND_VIDEO_SESSION_MEMORY_INFO_KHR, NULL, 0, mem, 0, 16384},
	                                         {VK_STRUCTURE_TYPE_BIND_VIDEO_SESSION_MEMORY_INFO_KHR, NULL, 1, mem, 16384, 32768}};
	VkResult vr = bind(dev, session, 2, vb);
	VkResult vr2 = bind(dev, session, 1, vb);
	printf(" bind=%d rebind=%d\n", vr, vr2);
	destroy(dev, session, NULL);

	vkDestroyFence(dev, fence, NULL);
	vkDestroyBuffer(dev, sb, NULL);
	vkDestroyBuffer(dev, b0, NULL);
	vkDestroyBuffer(dev, b1, NULL);
	vkFreeMemory(dev, mem, NULL);
	vkDestroyDevice(dev, NULL);
	budget(phys, "destroyed");
	vkDestroyInstance(inst, NULL);
	return 0;
}
