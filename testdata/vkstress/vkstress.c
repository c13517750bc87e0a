/* vkstress: threads creating, naming, binding and destroying buffers and
 * their memory as fast as the driver allows, to load the layers' trace
 * writing (docs/performance.md) and to produce recycled handles
 * (docs/memreport.md). One device is shared by every thread.
 *
 * Usage: vkstress [--threads N] [--seconds S | --iterations N] [--list]
 * Each iteration creates a buffer (sizes cycle 64 MiB, 256 B, 64 KiB),
 * allocates memory of its required size, names both
 * ("t<thread>.buf<i>", "t<thread>.mem<i>"), binds, then destroys the
 * buffer and frees the memory. --list prints
 * "buffer NAME HANDLE BYTES" per buffer (BYTES: the memory requirement).
 * At the end: "iterations=N seconds=S rate=R" (iterations per second, all
 * threads). */
#include "vkcommon.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static VkDevice dev;
static PFN_vkSetDebugUtilsObjectNameEXT set_name;
static double seconds = 1;
static long iterations; /* per thread; 0: run for seconds */
static int list;
static pthread_mutex_t out_mu = PTHREAD_MUTEX_INITIALIZER;

static double wall_s(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void name(VkObjectType type, uint64_t handle, const char *n) {
	if (!set_name) return;
	VkDebugUtilsObjectNameInfoEXT info = {VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT, NULL, type, handle, n};
	CHECK(set_name(dev, &info));
}

static void *worker(void *arg) {
	static const VkDeviceSize sizes[] = {64u << 20, 256, 64u << 10};
	long t = (long)(intptr_t)arg, i = 0;
	double end = wall_s() + seconds;
	for (; iterations ? i < iterations : (i & 63) || wall_s() < end; i++) {
		VkBufferCreateInfo bci = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
		bci.size = sizes[i % 3];
		bci.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
		VkBuffer buf;
		CHECK(vkCreateBuffer(dev, &bci, NULL, &buf));
		VkMemoryRequirements req;
		vkGetBufferMemoryRequirements(dev, buf, &req);
		VkMemoryAllocateInfo mai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, NULL, req.size,
		                            (uint32_t)__builtin_ctz(req.memoryTypeBits)};
		VkDeviceMemory mem;
		CHECK(vkAllocateMemory(dev, &mai, NULL, &mem));
		char n[64];
		snprintf(n, sizeof n, "t%ld.buf%ld", t, i);
		name(VK_OBJECT_TYPE_BUFFER, (uint64_t)buf, n);
		if (list) {
			pthread_mutex_lock(&out_mu);
			printf("buffer %s %#llx %llu\n", n, (unsigned long long)buf, (unsigned long long)req.size);
			pthread_mutex_unlock(&out_mu);
		}
		snprintf(n, sizeof n, "t%ld.mem%ld", t, i);
		name(VK_OBJECT_TYPE_DEVICE_MEMORY, (uint64_t)mem, n);
		CHECK(vkBindBufferMemory(dev, buf, mem, 0));
		vkDestroyBuffer(dev, buf, NULL);
		vkFreeMemory(dev, mem, NULL);
	}
	return (void *)(intptr_t)i;
}

int main(int argc, char **argv) {
	vkc_prog = "vkstress";
	int threads = 8;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--threads") && i + 1 < argc) threads = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc) seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--iterations") && i + 1 < argc) iterations = atol(argv[++i]);
		else if (!strcmp(argv[i], "--list")) list = 1;
		else {
			fprintf(stderr, "usage: vkstress [--threads N] [--seconds S | --iterations N] [--list]\n");
			return 2;
		}
	}
	if (threads < 1 || threads > 256) threads = 8;

	const char *ext = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
	VkApplicationInfo app = {VK_STRUCTURE_TYPE_APPLICATION_INFO, NULL, "vkstress", 1, NULL, 0, VK_API_VERSION_1_1};
	VkInstanceCreateInfo ici = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, NULL, 0, &app, 0, NULL, 1, &ext};
	VkInstance inst;
	CHECK(vkCreateInstance(&ici, NULL, &inst));
	dev = vkc_create_device(vkc_physical_device(inst), 0, NULL);
	set_name = (PFN_vkSetDebugUtilsObjectNameEXT)vkGetDeviceProcAddr(dev, "vkSetDebugUtilsObjectNameEXT");

	pthread_t tids[256];
	double start = wall_s();
	for (long t = 0; t < threads; t++)
		if (pthread_create(&tids[t], NULL, worker, (void *)(intptr_t)t)) {
			fprintf(stderr, "vkstress: pthread_create failed\n");
			return 1;
		}
	long total = 0;
	for (int t = 0; t < threads; t++) {
		void *n;
		pthread_join(tids[t], &n);
		total += (long)(intptr_t)n;
	}
	double el = wall_s() - start;
	printf("iterations=%ld seconds=%.3f rate=%.0f named=%d\n", total, el, total / el, set_name != NULL);
	vkDestroyDevice(dev, NULL);
	vkDestroyInstance(inst, NULL);
	return 0;
}
