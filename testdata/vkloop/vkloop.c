/* vkloop: one thread looping over buffer and memory calls, timed, for the
 * side-by-side benchmark of layer sets (bench/layers/peer.sh).
 *
 *   vkloop [--mode loop|memory|rename|alloc] [--iterations N] [--reps R] [--warmup-ms MS] [--depth D] [--gate]
 *
 * Modes, per iteration:
 *   loop    vkCreateBuffer, name it, rename it, vkAllocateMemory,
 *           vkBindBufferMemory, name the memory, vkDestroyBuffer, vkFreeMemory
 *           (3 names per iteration, each a new string);
 *   memory  vkCreateBuffer, vkBindBufferMemory, vkDestroyBuffer, on one
 *           allocation made before the loop (a memory event);
 *   rename  one buffer renamed, a new string each time;
 *   alloc   vkAllocateMemory, vkFreeMemory.
 * With --depth D the loop calls from D nested frames (call stacks that deep:
 * bench/layers/callstacks.sh).
 * After setting up the device the program sleeps MS milliseconds (layers
 * that reach a tracing service asynchronously connect meanwhile, without
 * filling the trace with warm-up events); with --gate it then waits for a
 * line on stdin (a script seeing the layers join its session says go).
 * Then it runs R timed repetitions of N iterations and prints
 *   "vkloop MODE thread_ns=T process_ns=P wall_ns=W iterations=I"
 * where T, P and W are the best of the R repetitions per iteration of the
 * calling thread's CPU time, the process's CPU time (every thread: layers'
 * background threads too) and wall time, and I = R * N. With --gate it
 * then waits for a second line before tearing down (the script stops its
 * session while the layers can still flush). Any failing call exits with
 * status 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vkcommon.h"

static VkDevice dev;
static PFN_vkSetDebugUtilsObjectNameEXT set_name;
static VkBufferCreateInfo bci = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, NULL, 0, 4096, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT};
static VkMemoryAllocateInfo mai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
static VkDeviceMemory shared_mem; /* memory mode */
static VkBuffer renamed;          /* rename mode */
static long seq;                  /* makes every name distinct */

static double clock_ns(clockid_t id) {
	struct timespec ts;
	clock_gettime(id, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void name(VkObjectType type, uint64_t handle, const char *prefix) {
	char n[32];
	snprintf(n, sizeof n, "%s%ld", prefix, seq++);
	VkDebugUtilsObjectNameInfoEXT info = {VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT, NULL, type, handle, n};
	CHECK(set_name(dev, &info));
}

static void iterate(int mode) {
	VkBuffer buf;
	VkDeviceMemory mem;
	switch (mode) {
	case 0:
		CHECK(vkCreateBuffer(dev, &bci, NULL, &buf));
		name(VK_OBJECT_TYPE_BUFFER, (uint64_t)buf, "buf");
		name(VK_OBJECT_TYPE_BUFFER, (uint64_t)buf, "renamed");
		CHECK(vkAllocateMemory(dev, &mai, NULL, &mem));
		CHECK(vkBindBufferMemory(dev, buf, mem, 0));
		name(VK_OBJECT_TYPE_DEVICE_MEMORY, (uint64_t)mem, "mem");
		vkDestroyBuffer(dev, buf, NULL);
		vkFreeMemory(dev, mem, NULL);
		break;
	case 1:
		CHECK(vkCreateBuffer(dev, &bci, NULL, &buf));
		CHECK(vkBindBufferMemory(dev, buf, shared_mem, 0));
		vkDestroyBuffer(dev, buf, NULL);
		break;
	case 2: name(VK_OBJECT_TYPE_BUFFER, (uint64_t)renamed, "name"); break;
	case 3:
		CHECK(vkAllocateMemory(dev, &mai, NULL, &mem));
		vkFreeMemory(dev, mem, NULL);
		break;
	}
}

/* Runs n iterations from depth more frames (noinline, and not a tail call:
 * each frame stays on the stack). */
static __attribute__((noinline)) void run(int mode, long n, int depth) {
	if (depth > 0) {
		run(mode, n, depth - 1);
		__asm__ volatile("" ::: "memory");
		return;
	}
	for (long i = 0; i < n; i++) iterate(mode);
}

/* Reads stdin up to a newline; exits with status 1 at EOF. */
static void wait_line(const char *what) {
	for (int c = 0; c != '\n'; c = getchar())
		if (c == EOF) {
			fprintf(stderr, "vkloop: stdin closed before the %s line\n", what);
			exit(1);
		}
}

int main(int argc, char **argv) {
	vkc_prog = "vkloop";
	static const char *modes[] = {"loop", "memory", "rename", "alloc"};
	int mode = 0, reps = 5, gate = 0, depth = 0;
	long n = 20000, warmup_ms = 0;
	for (int i = 1; i < argc; i++) {
		int m = -1;
		if (!strcmp(argv[i], "--mode") && i + 1 < argc) {
			for (m = 3; m >= 0; m--)
				if (!strcmp(argv[i + 1], modes[m])) break;
			mode = m;
			i++;
		} else if (!strcmp(argv[i], "--iterations") && i + 1 < argc)
			n = atol(argv[++i]);
		else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--warmup-ms") && i + 1 < argc)
			warmup_ms = atol(argv[++i]);
		else if (!strcmp(argv[i], "--depth") && i + 1 < argc)
			depth = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--gate"))
			gate = 1;
		else
			mode = -1;
		if (mode < 0 || n < 1 || reps < 1 || warmup_ms < 0 || depth < 0 || depth > 1000) {
			fprintf(stderr, "usage: vkloop [--mode loop|memory|rename|alloc] [--iterations N>0] [--reps R>0] [--warmup-ms MS] [--depth D] [--gate]\n");
			return 2;
		}
	}

	VkInstance inst = vkc_create_instance("vkloop", NULL, 0, NULL);
	dev = vkc_create_device(vkc_physical_device(inst), 0, NULL);
	set_name = vkc_set_name_fn(dev);
	VkBuffer probe;
	CHECK(vkCreateBuffer(dev, &bci, NULL, &probe));
	VkMemoryRequirements req;
	vkGetBufferMemoryRequirements(dev, probe, &req);
	vkDestroyBuffer(dev, probe, NULL);
	if (!req.memoryTypeBits) {
		fprintf(stderr, "vkloop: no memory type for a buffer\n");
		return 1;
	}
	mai.allocationSize = req.size;
	mai.memoryTypeIndex = (uint32_t)__builtin_ctz(req.memoryTypeBits);
	if (mode == 1) CHECK(vkAllocateMemory(dev, &mai, NULL, &shared_mem));
	if (mode == 2) renamed = vkc_create_buffer(dev);

	struct timespec warmup = {warmup_ms / 1000, warmup_ms % 1000 * 1000000};
	while (nanosleep(&warmup, &warmup)) {
	}
	if (gate) wait_line("go");
	double best[3] = {1e30, 1e30, 1e30};
	static const clockid_t clocks[3] = {CLOCK_THREAD_CPUTIME_ID, CLOCK_PROCESS_CPUTIME_ID, CLOCK_MONOTONIC};
	for (int r = 0; r < reps; r++) {
		double t0[3];
		for (int c = 0; c < 3; c++) t0[c] = clock_ns(clocks[c]);
		run(mode, n, depth);
		for (int c = 0; c < 3; c++) {
			double per = (clock_ns(clocks[c]) - t0[c]) / n;
			if (per < best[c]) best[c] = per;
		}
	}
	printf("vkloop %s thread_ns=%.1f process_ns=%.1f wall_ns=%.1f iterations=%ld\n", modes[mode], best[0], best[1],
	       best[2], n * reps);

	fflush(stdout);
	if (gate) wait_line("end");
	if (renamed) vkDestroyBuffer(dev, renamed, NULL);
	if (shared_mem) vkFreeMemory(dev, shared_mem, NULL);
	vkDestroyDevice(dev, NULL);
	vkDestroyInstance(inst, NULL);
	return 0;
}
