/* vksys: the Vulkan program of the system-tracing tests (C, real loader).
 * It is driven line by line on stdin, so a test can start and stop tracing
 * sessions between its steps without sleeping:
 *
 *   make N   allocate a memory block, create N buffers bound into it and name
 *            them "sys.PID.K" with K counting every buffer the process made
 *            (the block "sysmem.PID.GEN"); prints "made GEN"
 *   free     destroy the newest generation's buffers, free its block;
 *            prints "freed GEN"
 *   devices N  create N more devices one after another, each with a buffer
 *            bound to an allocation of its own, all destroyed with the
 *            device (a test suite's device per case); prints "devices N"
 *   exit     exit(0) at once, destroying nothing (the exit(3) path)
 *   quit/EOF destroy everything and return from main
 *
 * It prints "ready pid=PID" once its instance and device exist. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vkcommon.h"

#define MAX_GEN 64

struct gen {
	VkDeviceMemory mem;
	VkBuffer *bufs;
	int n;
};

static VkDevice dev;
static PFN_vkSetDebugUtilsObjectNameEXT set_name;
static struct gen gens[MAX_GEN];
static int ngen, nbufs;

static void name(VkObjectType type, uint64_t handle, const char *n) {
	VkDebugUtilsObjectNameInfoEXT info = {VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT, NULL, type, handle, n};
	CHECK(set_name(dev, &info));
}

static void make(int n) {
	if (ngen == MAX_GEN || n <= 0) {
		fprintf(stderr, "vksys: bad make\n");
		exit(2);
	}
	struct gen *g = &gens[ngen];
	g->n = n;
	g->bufs = calloc(n, sizeof(VkBuffer));
	VkMemoryRequirements req = {0};
	for (int i = 0; i < n; i++) {
		g->bufs[i] = vkc_create_buffer(dev);
		vkGetBufferMemoryRequirements(dev, g->bufs[i], &req);
	}
	VkDeviceSize stride = (req.size + req.alignment - 1) / req.alignment * req.alignment;
	uint32_t type = 0;
	while (!(req.memoryTypeBits & (1u << type))) type++;
	VkMemoryAllocateInfo ai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, NULL, stride * n, type};
	CHECK(vkAllocateMemory(dev, &ai, NULL, &g->mem));
	char s[64];
	snprintf(s, sizeof s, "sysmem.%d.%d", (int)getpid(), ngen);
	name(VK_OBJECT_TYPE_DEVICE_MEMORY, (uint64_t)g->mem, s);
	for (int i = 0; i < n; i++) {
		CHECK(vkBindBufferMemory(dev, g->bufs[i], g->mem, stride * i));
		snprintf(s, sizeof s, "sys.%d.%d", (int)getpid(), nbufs++);
		name(VK_OBJECT_TYPE_BUFFER, (uint64_t)g->bufs[i], s);
	}
	printf("made %d\n", ngen++);
}

static void free_gen(void) {
	if (ngen == 0) return;
	struct gen *g = &gens[--ngen];
	for (int i = 0; i < g->n; i++) vkDestroyBuffer(dev, g->bufs[i], NULL);
	vkFreeMemory(dev, g->mem, NULL);
	free(g->bufs);
	printf("freed %d\n", ngen);
}

static void devices(VkPhysicalDevice phys, int n) {
	for (int i = 0; i < n; i++) {
		VkDevice d = vkc_create_device(phys, 0, NULL);
		VkBuffer b = vkc_create_buffer(d);
		VkMemoryRequirements req;
		vkGetBufferMemoryRequirements(d, b, &req);
		uint32_t type = 0;
		while (!(req.memoryTypeBits & (1u << type))) type++;
		VkMemoryAllocateInfo ai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, NULL, req.size, type};
		VkDeviceMemory m;
		CHECK(vkAllocateMemory(d, &ai, NULL, &m));
		CHECK(vkBindBufferMemory(d, b, m, 0));
		vkDestroyBuffer(d, b, NULL);
		vkFreeMemory(d, m, NULL);
		vkDestroyDevice(d, NULL);
	}
	printf("devices %d\n", n);
}

int main(void) {
	vkc_prog = "vksys";
	setvbuf(stdout, NULL, _IOLBF, 0);
	const char *ext = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
	VkApplicationInfo app = {VK_STRUCTURE_TYPE_APPLICATION_INFO, NULL, "vksys", 1, "vkgen", 1, VK_API_VERSION_1_1};
	VkInstanceCreateInfo ici = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, NULL, 0, &app, 0, NULL, 1, &ext};
	VkInstance inst;
	CHECK(vkCreateInstance(&ici, NULL, &inst));
	VkPhysicalDevice phys = vkc_physical_device(inst);
	dev = vkc_create_device(phys, 0, NULL);
	set_name = (PFN_vkSetDebugUtilsObjectNameEXT)vkGetDeviceProcAddr(dev, "vkSetDebugUtilsObjectNameEXT");
	if (!set_name) {
		fprintf(stderr, "vksys: no vkSetDebugUtilsObjectNameEXT\n");
		return 1;
	}
	printf("ready pid=%d\n", (int)getpid());
	char line[64];
	while (fgets(line, sizeof line, stdin)) {
		int n;
		if (sscanf(line, "make %d", &n) == 1) make(n);
		else if (sscanf(line, "devices %d", &n) == 1) devices(phys, n);
		else if (!strncmp(line, "free", 4)) free_gen();
		else if (!strncmp(line, "exit", 4)) exit(0);
		else if (!strncmp(line, "quit", 4)) break;
	}
	while (ngen > 0) free_gen();
	vkDestroyDevice(dev, NULL);
	vkDestroyInstance(inst, NULL);
	return 0;
}
