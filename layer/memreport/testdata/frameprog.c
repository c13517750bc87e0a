/* frameprog: frames of device memory work, for memreport's memory-over-time
 * tests and benchmarks. Each frame ends with a vkQueuePresentKHR of no
 * swapchain (the memdriver test layer's `present` option answers it).
 *
 *   frameprog steady FRAMES [PER]   per frame PER buffers (default 20) with
 *                                   their memory, named frame.scratch and
 *                                   freed in the frame, and 2 ring buffers
 *                                   that live 3 frames
 *   frameprog leak FRAMES [PER]     the same, and every 10th frame a 64 KiB
 *                                   buffer leak.buffer in its memory
 *                                   leak.memory, kept until vkDestroyDevice
 *   frameprog suballoc FRAMES [PER] per frame PER 4 KiB buffers named
 *                                   frame.scratch bound in blocks of 64
 *                                   made first, destroyed in the frame (the
 *                                   layer's cost per object, not the driver's
 *                                   allocations: bench/layers/frames.sh)
 *   frameprog budget FRAMES         one 1 MiB allocation budget.block per
 *                                   frame, kept, then one of
 *                                   VKGEN_MEMDRIVER_FAIL_SIZE bytes that fails
 *
 * It prints "leak buffer=H memory=H frame=N", "block memory=H frame=N",
 * "failed size=N" and, last, "frames=N ns=T" (T: wall time of the frames). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vkcommon.h"

static VkDevice dev;
static uint32_t mem_type;
static PFN_vkSetDebugUtilsObjectNameEXT set_name;

static void name(VkObjectType type, uint64_t handle, const char *n) {
	VkDebugUtilsObjectNameInfoEXT info = {VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT, NULL, type, handle, n};
	CHECK(set_name(dev, &info));
}

struct pair {
	VkBuffer buf;
	VkDeviceMemory mem;
};

/* A buffer of size bytes bound at 0 in its own memory, both named. */
static struct pair make(VkDeviceSize size, const char *buf_name, const char *mem_name) {
	struct pair p;
	VkBufferCreateInfo bi = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, NULL, 0, size, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT,
	                         VK_SHARING_MODE_EXCLUSIVE, 0, NULL};
	CHECK(vkCreateBuffer(dev, &bi, NULL, &p.buf));
	name(VK_OBJECT_TYPE_BUFFER, (uint64_t)p.buf, buf_name);
	VkMemoryRequirements r;
	vkGetBufferMemoryRequirements(dev, p.buf, &r);
	VkMemoryAllocateInfo ai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, NULL, r.size, mem_type};
	CHECK(vkAllocateMemory(dev, &ai, NULL, &p.mem));
	name(VK_OBJECT_TYPE_DEVICE_MEMORY, (uint64_t)p.mem, mem_name);
	CHECK(vkBindBufferMemory(dev, p.buf, p.mem, 0));
	return p;
}

static void drop(struct pair p) {
	vkDestroyBuffer(dev, p.buf, NULL);
	vkFreeMemory(dev, p.mem, NULL);
}

static double now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv) {
	if (argc < 3) {
		fprintf(stderr, "usage: frameprog steady|leak|suballoc|budget FRAMES [PER]\n");
		return 2;
	}
	vkc_prog = "frameprog";
	const char *mode = argv[1];
	int frames = atoi(argv[2]), per = argc > 3 ? atoi(argv[3]) : 20;
	int leak = strcmp(mode, "leak") == 0, budget = strcmp(mode, "budget") == 0, suballoc = strcmp(mode, "suballoc") == 0;
	VkInstance inst = vkc_create_instance("frameprog", NULL, 0, NULL);
	VkPhysicalDevice phys = vkc_physical_device(inst);
	const char *exts[] = {VK_KHR_SWAPCHAIN_EXTENSION_NAME};
	dev = vkc_create_device(phys, 1, exts);
	set_name = vkc_set_name_fn(dev);
	PFN_vkQueuePresentKHR present = (PFN_vkQueuePresentKHR)vkGetDeviceProcAddr(dev, "vkQueuePresentKHR");
	if (!present) {
		fprintf(stderr, "frameprog: no vkQueuePresentKHR\n");
		return 1;
	}
	VkQueue queue;
	vkGetDeviceQueue(dev, 0, 0, &queue);
	VkPhysicalDeviceMemoryProperties mp;
	vkGetPhysicalDeviceMemoryProperties(phys, &mp);
	for (mem_type = 0; mem_type < mp.memoryTypeCount; mem_type++)
		if (mp.memoryTypes[mem_type].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) break;

	struct pair *scratch = calloc(per > 0 ? per : 1, sizeof *scratch);
	struct pair ring[3][2] = {{{0}}};
	struct pair kept[4096];
	int nkept = 0;
	VkPresentInfoKHR pi = {VK_STRUCTURE_TYPE_PRESENT_INFO_KHR};
	/* Blocks of 64 buffers, as an allocator's: the layer's cost per bind
	 * grows with the bindings of one allocation. */
	int nblocks = suballoc ? (per + 63) / 64 : 0;
	VkDeviceMemory *blocks = calloc(nblocks ? nblocks : 1, sizeof *blocks);
	for (int b = 0; b < nblocks; b++) {
		VkMemoryAllocateInfo ai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, NULL, 64 * 4096, mem_type};
		CHECK(vkAllocateMemory(dev, &ai, NULL, &blocks[b]));
	}
	double t0 = now_ns();
	for (int f = 0; f < frames; f++) {
		if (suballoc) {
			for (int i = 0; i < per; i++) {
				VkBufferCreateInfo bi = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, NULL, 0, 4096, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT,
				                         VK_SHARING_MODE_EXCLUSIVE, 0, NULL};
				CHECK(vkCreateBuffer(dev, &bi, NULL, &scratch[i].buf));
				name(VK_OBJECT_TYPE_BUFFER, (uint64_t)scratch[i].buf, "frame.scratch");
				CHECK(vkBindBufferMemory(dev, scratch[i].buf, blocks[i / 64], (VkDeviceSize)(i % 64) * 4096));
			}
			for (int i = 0; i < per; i++) vkDestroyBuffer(dev, scratch[i].buf, NULL);
		} else if (budget) {
			VkMemoryAllocateInfo ai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, NULL, 1 << 20, mem_type};
			CHECK(vkAllocateMemory(dev, &ai, NULL, &kept[nkept].mem));
			kept[nkept].buf = VK_NULL_HANDLE;
			name(VK_OBJECT_TYPE_DEVICE_MEMORY, (uint64_t)kept[nkept].mem, "budget.block");
			printf("block memory=0x%llx frame=%d\n", (unsigned long long)kept[nkept].mem, f);
			nkept++;
		} else {
			for (int i = 0; i < per; i++) scratch[i] = make(4096, "frame.scratch", "frame.scratch.memory");
			for (int i = 0; i < 2; i++) {
				if (ring[f % 3][i].buf) drop(ring[f % 3][i]);
				ring[f % 3][i] = make(16384, "ring", "ring.memory");
			}
			if (leak && f % 10 == 0 && nkept < 4096) {
				kept[nkept] = make(65536, "leak.buffer", "leak.memory");
				printf("leak buffer=0x%llx memory=0x%llx frame=%d\n", (unsigned long long)kept[nkept].buf,
				       (unsigned long long)kept[nkept].mem, f);
				nkept++;
			}
			for (int i = 0; i < per; i++) drop(scratch[i]);
		}
		CHECK(present(queue, &pi));
	}
	double t1 = now_ns();
	if (budget) {
		const char *s = getenv("VKGEN_MEMDRIVER_FAIL_SIZE");
		VkMemoryAllocateInfo ai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, NULL, s ? strtoull(s, NULL, 0) : 1ull << 62, mem_type};
		VkDeviceMemory m;
		if (vkAllocateMemory(dev, &ai, NULL, &m) == VK_SUCCESS) return 1;
		printf("failed size=%llu\n", (unsigned long long)ai.allocationSize);
		for (int i = 0; i < nkept; i++) vkFreeMemory(dev, kept[i].mem, NULL);
	}
	for (int f = 0; f < 3; f++)
		for (int i = 0; i < 2; i++)
			if (ring[f][i].buf) drop(ring[f][i]);
	for (int b = 0; b < nblocks; b++) vkFreeMemory(dev, blocks[b], NULL);
	free(blocks);
	printf("frames=%d ns=%.0f\n", frames, t1 - t0);
	vkDestroyDevice(dev, NULL); /* the leaks are reported here */
	vkDestroyInstance(inst, NULL);
	free(scratch);
	return 0;
}
