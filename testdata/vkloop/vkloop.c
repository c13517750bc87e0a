/* vkloop: threads looping over buffer and memory calls, timed, for the
 * side-by-side benchmarks of layer sets (bench/layers/peer.sh, sustained.sh).
 *
 *   vkloop [--mode loop|memory|rename|alloc|pool] [--iterations N] [--reps R] [--warmup-ms MS] [--depth D]
 *          [--gate] [--seconds S] [--threads T] [--live N]
 *
 * Modes, per iteration:
 *   loop    vkCreateBuffer, name it, rename it, vkAllocateMemory,
 *           vkBindBufferMemory, name the memory, vkDestroyBuffer, vkFreeMemory
 *           (3 names per iteration, each a new string);
 *   memory  vkCreateBuffer, vkBindBufferMemory, vkDestroyBuffer, on one
 *           allocation made before the loop (a memory event);
 *   rename  one buffer renamed, a new string each time;
 *   alloc   vkAllocateMemory, vkFreeMemory;
 *   pool    vkCreateBuffer, name it, rename it, vkBindBufferMemory into one
 *           allocation made before the loop, vkDestroyBuffer (the loop
 *           without an allocation per iteration: on a GPU driver
 *           vkAllocateMemory costs milliseconds and hides the layers).
 * With --live N (memory and pool modes) the one allocation also holds N
 * buffers bound side by side before the loop, as a sub-allocator's block
 * does, and each thread binds its buffer beside them.
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
 * status 1.
 *
 * With --seconds S the program instead runs T threads (--threads, default
 * 1) that each iterate until S seconds have passed (sustained load: far more
 * calls than a layer's deferred ring holds) and prints the same line, where
 * T and P are the threads' and the process's CPU time and W the wall time,
 * each divided by the iterations of all threads together (I). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vkcommon.h"

static VkDevice dev;
static PFN_vkSetDebugUtilsObjectNameEXT set_name;
static VkBufferCreateInfo bci = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, NULL, 0, 4096, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT};
static VkMemoryAllocateInfo mai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
static VkDeviceMemory shared_mem; /* memory and pool modes */
static VkDeviceSize shared_stride; /* a buffer's place in it */
static long live;                 /* buffers bound there before the loop (--live) */
static VkBuffer renamed;          /* rename mode */
static _Thread_local long seq;   /* with the thread's number, makes every name distinct */
static _Thread_local int thread_no;

static double clock_ns(clockid_t id) {
	struct timespec ts;
	clock_gettime(id, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void name(VkObjectType type, uint64_t handle, const char *prefix) {
	char n[32];
	snprintf(n, sizeof n, "%s%d.%ld", prefix, thread_no, seq++);
	VkDebugUtilsObjectNameInfoEXT info = {VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT, NULL, type, handle, n};
	CHECK(set_name(dev, &info));
}

/* Binds buf at this thread's place in the shared allocation, after the
 * --live buffers. */
static void bind_own(VkBuffer buf) {
	CHECK(vkBindBufferMemory(dev, buf, shared_mem, shared_stride * (VkDeviceSize)(live + thread_no)));
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
		bind_own(buf);
		vkDestroyBuffer(dev, buf, NULL);
		break;
	case 2: name(VK_OBJECT_TYPE_BUFFER, (uint64_t)renamed, "name"); break;
	case 3:
		CHECK(vkAllocateMemory(dev, &mai, NULL, &mem));
		vkFreeMemory(dev, mem, NULL);
		break;
	case 4:
		CHECK(vkCreateBuffer(dev, &bci, NULL, &buf));
		name(VK_OBJECT_TYPE_BUFFER, (uint64_t)buf, "buf");
		name(VK_OBJECT_TYPE_BUFFER, (uint64_t)buf, "renamed");
		bind_own(buf);
		vkDestroyBuffer(dev, buf, NULL);
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

/* --seconds: each thread iterates (from --depth frames) until the
 * deadline, read every 16 iterations, once every thread is ready. */
static int nthreads = 1, run_mode, run_depth;
static double seconds, deadline;
static pthread_barrier_t ready;
struct worker {
	pthread_t t;
	int no;
	long iterations;
	double cpu_ns;
};

static void *work(void *arg) {
	struct worker *w = arg;
	thread_no = w->no;
	pthread_barrier_wait(&ready);
	double t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	do {
		run(run_mode, 16, run_depth);
		w->iterations += 16;
	} while (clock_ns(CLOCK_MONOTONIC) < deadline);
	w->cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
	return NULL;
}

/* Runs the --seconds load and prints its line. */
static void sustained(const char *mode) {
	struct worker w[nthreads];
	pthread_barrier_init(&ready, NULL, (unsigned)nthreads + 1);
	for (int i = 0; i < nthreads; i++) {
		w[i] = (struct worker){.no = i + 1};
		if (pthread_create(&w[i].t, NULL, work, &w[i])) {
			fprintf(stderr, "vkloop: pthread_create failed\n");
			exit(1);
		}
	}
	double p0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID), t0 = clock_ns(CLOCK_MONOTONIC);
	deadline = t0 + seconds * 1e9;
	pthread_barrier_wait(&ready);
	double cpu = 0;
	long n = 0;
	for (int i = 0; i < nthreads; i++) {
		pthread_join(w[i].t, NULL);
		cpu += w[i].cpu_ns;
		n += w[i].iterations;
	}
	double wall = clock_ns(CLOCK_MONOTONIC) - t0, proc = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - p0;
	printf("vkloop %s thread_ns=%.1f process_ns=%.1f wall_ns=%.1f iterations=%ld threads=%d\n", mode, cpu / n,
	       proc / n, wall / n, n, nthreads);
}

/* R repetitions of N iterations on this thread; prints the best of each clock. */
static void timed(int mode, const char *name, long n, int reps, int depth) {
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
	printf("vkloop %s thread_ns=%.1f process_ns=%.1f wall_ns=%.1f iterations=%ld\n", name, best[0], best[1], best[2],
	       n * reps);
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
	static const char *modes[] = {"loop", "memory", "rename", "alloc", "pool"};
	int mode = 0, reps = 5, gate = 0, depth = 0;
	long n = 20000, warmup_ms = 0;
	for (int i = 1; i < argc; i++) {
		int m = -1;
		if (!strcmp(argv[i], "--mode") && i + 1 < argc) {
			for (m = 4; m >= 0; m--)
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
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			nthreads = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--live") && i + 1 < argc)
			live = atol(argv[++i]);
		else if (!strcmp(argv[i], "--gate"))
			gate = 1;
		else
			mode = -1;
		if (mode < 0 || n < 1 || reps < 1 || warmup_ms < 0 || depth < 0 || depth > 1000 || seconds < 0 ||
		    nthreads < 1 || nthreads > 256 || live < 0 || live > 10000000) {
			fprintf(stderr, "usage: vkloop [--mode loop|memory|rename|alloc|pool] [--iterations N>0] [--reps R>0] "
			                "[--warmup-ms MS] [--depth D] [--gate] [--seconds S] [--threads 1..256] [--live 0..10000000]\n");
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
	VkBuffer *held = NULL;
	if (mode == 1 || mode == 4) {
		shared_stride = (req.size + req.alignment - 1) / req.alignment * req.alignment;
		VkMemoryAllocateInfo block = mai;
		block.allocationSize = shared_stride * (VkDeviceSize)(live + nthreads);
		CHECK(vkAllocateMemory(dev, &block, NULL, &shared_mem));
		held = calloc((size_t)live + 1, sizeof *held);
		if (!held) {
			fprintf(stderr, "vkloop: no memory for %ld buffers\n", live);
			return 1;
		}
		for (long i = 0; i < live; i++) {
			CHECK(vkCreateBuffer(dev, &bci, NULL, &held[i]));
			CHECK(vkBindBufferMemory(dev, held[i], shared_mem, shared_stride * (VkDeviceSize)i));
		}
	}
	if (mode == 2) renamed = vkc_create_buffer(dev);

	struct timespec warmup = {warmup_ms / 1000, warmup_ms % 1000 * 1000000};
	while (nanosleep(&warmup, &warmup)) {
	}
	if (gate) wait_line("go");
	run_mode = mode;
	run_depth = depth;
	if (seconds > 0) sustained(modes[mode]);
	else
		timed(mode, modes[mode], n, reps, depth);

	fflush(stdout);
	if (gate) wait_line("end");
	if (renamed) vkDestroyBuffer(dev, renamed, NULL);
	for (long i = 0; held && i < live; i++) vkDestroyBuffer(dev, held[i], NULL);
	free(held);
	if (shared_mem) vkFreeMemory(dev, shared_mem, NULL);
	vkDestroyDevice(dev, NULL);
	vkDestroyInstance(inst, NULL);
	return 0;
}
