/* memruns: the program the memory-across-runs tests (vkgen trace diff,
 * check, the VulkanMemoryEvent packets) record twice with one thing
 * changed. It creates buffers, each in its own allocation of its required
 * size, names the named ones and their memory ("<name>.memory"), binds
 * them, then destroys everything and prints per buffer:
 *   buffer NAME size=REQ              (NAME "-" when unnamed)
 * Options:
 *   --vertices N   create size of "mesh.vertices" (default 65536)
 *   --reverse      create the buffers in the opposite order (other handles)
 *   --leak         leave "leak.kept" (4 KiB) and its memory alive: leaks
 *   --fail-alloc   add one allocation the driver must refuse */
#include "vkcommon.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static VkDevice dev;
static PFN_vkSetDebugUtilsObjectNameEXT set_name;

static void name(VkObjectType type, uint64_t handle, const char *n) {
	VkDebugUtilsObjectNameInfoEXT info = {VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT, NULL, type, handle, n};
	CHECK(set_name(dev, &info));
}

struct buffer {
	const char *name; /* NULL: unnamed */
	VkBufferUsageFlags usage;
	VkDeviceSize size;
	VkBuffer handle;
	VkDeviceMemory mem;
};

static void create(struct buffer *b) {
	VkBufferCreateInfo bi = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, NULL, 0, b->size, b->usage, VK_SHARING_MODE_EXCLUSIVE};
	CHECK(vkCreateBuffer(dev, &bi, NULL, &b->handle));
	VkMemoryRequirements req;
	vkGetBufferMemoryRequirements(dev, b->handle, &req);
	VkMemoryAllocateInfo ai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, NULL, req.size,
	                           (uint32_t)__builtin_ctz(req.memoryTypeBits)};
	CHECK(vkAllocateMemory(dev, &ai, NULL, &b->mem));
	if (b->name) {
		char n[128];
		snprintf(n, sizeof n, "%s.memory", b->name);
		name(VK_OBJECT_TYPE_DEVICE_MEMORY, (uint64_t)b->mem, n);
		name(VK_OBJECT_TYPE_BUFFER, (uint64_t)b->handle, b->name);
	}
	CHECK(vkBindBufferMemory(dev, b->handle, b->mem, 0));
	printf("buffer %s size=%llu\n", b->name ? b->name : "-", (unsigned long long)req.size);
}

int main(int argc, char **argv) {
	vkc_prog = "memruns";
	VkDeviceSize vertices = 65536;
	int reverse = 0, leak = 0, fail = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--vertices") && i + 1 < argc) vertices = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--reverse")) reverse = 1;
		else if (!strcmp(argv[i], "--leak")) leak = 1;
		else if (!strcmp(argv[i], "--fail-alloc")) fail = 1;
		else {
			fprintf(stderr, "usage: memruns [--vertices N] [--reverse] [--leak] [--fail-alloc]\n");
			return 2;
		}
	}
	VkInstance inst = vkc_create_instance("memruns", NULL, 0, NULL);
	dev = vkc_create_device(vkc_physical_device(inst), 0, NULL);
	set_name = vkc_set_name_fn(dev);
	struct buffer bufs[] = {
		{"mesh.vertices", VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, vertices},
		{"frame.uniforms", VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, 256},
		{NULL, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, 16384},
	};
	int n = sizeof bufs / sizeof bufs[0];
	for (int i = 0; i < n; i++) create(&bufs[reverse ? n - 1 - i : i]);
	struct buffer kept = {"leak.kept", VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, 4096};
	if (leak) create(&kept);
	if (fail) {
		VkMemoryAllocateInfo ai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, NULL, (VkDeviceSize)1 << 62, 0};
		VkDeviceMemory m;
		printf("failed_allocation result=%d\n", vkAllocateMemory(dev, &ai, NULL, &m));
	}
	for (int i = 0; i < n; i++) {
		vkDestroyBuffer(dev, bufs[i].handle, NULL);
		vkFreeMemory(dev, bufs[i].mem, NULL);
	}
	vkDestroyDevice(dev, NULL);
	vkDestroyInstance(inst, NULL);
	return 0;
}
