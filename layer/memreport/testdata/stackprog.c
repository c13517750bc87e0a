/* stackprog: creates memory objects from known functions, for the call
 * stack tests (callstack_integration_test.go). Built with -g: the test
 * checks the trace's frames and the summary's call sites name them, with
 * their file and line. Nothing is named, so the summary groups by call site.
 * It prints "site FUNCTION LINE" for each creating call.
 *
 *   make_vertex_buffers -> vkCreateBuffer x3 (one call site), bound
 *   TextureLoader_load  -> vkCreateImage, bound
 *   upload_staging      -> vkAllocateMemory (the memory the others bind)
 * With "leak" the last buffer and the memory are never released (leaks at
 * vkDestroyDevice). */
#include <stdio.h>
#include <string.h>

#include "vkcommon.h"


static VkDevice dev;
static VkPhysicalDevice phys;

static uint32_t memory_type(uint32_t bits) {
	VkPhysicalDeviceMemoryProperties mp;
	vkGetPhysicalDeviceMemoryProperties(phys, &mp);
	for (uint32_t i = 0; i < mp.memoryTypeCount; i++)
		if (bits & (1u << i)) return i;
	return 0;
}

__attribute__((noinline)) VkDeviceMemory upload_staging(VkDeviceSize size) {
	VkMemoryAllocateInfo ai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, NULL, size, memory_type(~0u)};
	VkDeviceMemory m = VK_NULL_HANDLE;
	printf("site upload_staging %d\n", __LINE__ + 1);
	CHECK(vkAllocateMemory(dev, &ai, NULL, &m));
	return m;
}

__attribute__((noinline)) void make_vertex_buffers(VkBuffer *out, int n, VkDeviceMemory mem) {
	for (int i = 0; i < n; i++) {
		VkBufferCreateInfo bi = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
		bi.size = 4096;
		bi.usage = VK_BUFFER_USAGE_VERTEX_BUFFER_BIT;
		if (i == 0) printf("site make_vertex_buffers %d\n", __LINE__ + 1);
		CHECK(vkCreateBuffer(dev, &bi, NULL, &out[i]));
		CHECK(vkBindBufferMemory(dev, out[i], mem, 4096 * (VkDeviceSize)i));
	}
}

__attribute__((noinline)) VkImage TextureLoader_load(VkDeviceMemory mem) {
	VkImageCreateInfo ii = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D,
	                        .format = VK_FORMAT_R8G8B8A8_UNORM, .extent = {64, 64, 1}, .mipLevels = 1, .arrayLayers = 1,
	                        .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = VK_IMAGE_TILING_OPTIMAL,
	                        .usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT};
	VkImage img = VK_NULL_HANDLE;
	printf("site TextureLoader_load %d\n", __LINE__ + 1);
	CHECK(vkCreateImage(dev, &ii, NULL, &img));
	VkMemoryRequirements mr;
	vkGetImageMemoryRequirements(dev, img, &mr);
	CHECK(vkBindImageMemory(dev, img, mem, 65536));
	return img;
}

int main(int argc, char **argv) {
	int leak = argc > 1 && !strcmp(argv[1], "leak");
	VkInstance inst = vkc_create_instance("stackprog", NULL, 0, NULL);
	phys = vkc_physical_device(inst);
	dev = vkc_create_device(phys, 0, NULL);
	VkDeviceMemory mem = upload_staging(1 << 20);
	VkBuffer bufs[3];
	make_vertex_buffers(bufs, 3, mem);
	VkImage img = TextureLoader_load(mem);
	fflush(stdout);
	vkDestroyImage(dev, img, NULL);
	for (int i = 0; i < 3 - leak; i++) vkDestroyBuffer(dev, bufs[i], NULL);
	if (!leak) vkFreeMemory(dev, mem, NULL);
	vkDestroyDevice(dev, NULL);
	vkDestroyInstance(inst, NULL);
	return 0;
}
