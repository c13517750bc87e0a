/* lifecycle: how a process with the vkgen layers loaded ends, and what its
 * trace holds then (layer/tracing lifecycle tests; real loader, lavapipe).
 *
 *   lifecycle fork N   names 100 "pre-*" buffers, then 4 threads name buffers
 *                      while the main thread forks N children, each ending
 *                      one way in turn: exit(3), _exit(2), return from main
 *                      or exec. The first child exits while the "pre-*"
 *                      names are most likely still buffered. Then, with the
 *                      threads joined, the parent names 100 "late-*" buffers
 *                      and forks a child that names a buffer, creates and
 *                      destroys an instance (which would flush the copied
 *                      buffers if it reached Go) and exits, then one child
 *                      ending each of the other ways.
 *                      A child that has not ended within 20 s is killed and
 *                      the program fails. Prints "named N" (names the parent
 *                      set), then destroys everything.
 *   lifecycle end HOW N
 *                      names N buffers "end-*" and ends without
 *                      vkDestroyInstance: HOW is exit (exit(3)), return
 *                      (return from main), abort (SIGABRT) or kill (waits to
 *                      be killed). abort and kill start the 4 naming threads,
 *                      print "named N" and wait for a line on stdin (abort
 *                      then aborts).
 *
 * Every name is distinct, so a trace holding one twice shows a duplicate. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vkcommon.h"

enum { THREADS = 4, PRE_NAMES = 100 };

static VkDevice dev;
static PFN_vkSetDebugUtilsObjectNameEXT set_name;
static atomic_int stop;
static atomic_long named;

static void name(VkBuffer buf, const char *n) {
	VkDebugUtilsObjectNameInfoEXT info = {VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT, NULL,
	                                      VK_OBJECT_TYPE_BUFFER, (uint64_t)buf, n};
	CHECK(set_name(dev, &info));
	atomic_fetch_add(&named, 1);
}

/* Renames its own buffer (handles are externally synchronised) until stop,
 * pausing 50 us between names so that the trace stays small. */
static void *namer(void *arg) {
	long t = (long)arg;
	VkBuffer buf = vkc_create_buffer(dev);
	char n[64];
	struct timespec pace = {0, 50000};
	for (long i = 0; !atomic_load(&stop); i++) {
		snprintf(n, sizeof(n), "t%ld-%ld", t, i);
		name(buf, n);
		nanosleep(&pace, NULL);
	}
	vkDestroyBuffer(dev, buf, NULL);
	return NULL;
}

/* Waits up to 20 s for the child; a child that hangs is killed, and fails the run. */
static void reap(pid_t pid, int k, int way) {
	struct timespec ms = {0, 1000000};
	for (int i = 0; i < 20000; i++) {
		int st;
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid) {
			if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
				fprintf(stderr, "lifecycle: child %d (way %d) ended with status %#x\n", k, way, st);
				exit(1);
			}
			return;
		}
		if (r < 0) {
			perror("lifecycle: waitpid");
			exit(1);
		}
		nanosleep(&ms, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	fprintf(stderr, "lifecycle: child %d (way %d) hung\n", k, way);
	exit(1);
}

static VkInstance setup(void) {
	VkInstance inst = vkc_create_instance("lifecycle", NULL, 0, NULL);
	dev = vkc_create_device(vkc_physical_device(inst), 0, NULL);
	set_name = vkc_set_name_fn(dev);
	return inst;
}

enum { EXIT, UNDERSCORE_EXIT, RETURN, EXEC, VULKAN, WAYS };

/* Forks child k, which ends the given way; returns 1 in a child that is to
 * return from main, 0 in the parent once the child has ended. */
static int spawn(int k, int way, VkBuffer buf) {
	pid_t pid = fork();
	if (pid < 0) {
		perror("lifecycle: fork");
		exit(1);
	}
	if (pid > 0) {
		reap(pid, k, way);
		return 0;
	}
	char n[64];
	switch (way) {
	case EXIT: exit(0);
	case UNDERSCORE_EXIT: _exit(0);
	case RETURN: return 1;
	case EXEC:
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	default: /* keeps using Vulkan: the layers pass the calls through */
		snprintf(n, sizeof(n), "child-%d", k);
		name(buf, n);
		vkDestroyInstance(vkc_create_instance("lifecycle-child", NULL, 0, NULL), NULL);
		exit(0);
	}
}

static int fork_run(int children) {
	VkInstance inst = setup();
	VkBuffer pre = vkc_create_buffer(dev);
	char n[64];
	for (int i = 0; i < PRE_NAMES; i++) {
		snprintf(n, sizeof(n), "pre-%d", i);
		name(pre, n);
	}
	pthread_t th[THREADS];
	for (long t = 0; t < THREADS; t++) pthread_create(&th[t], NULL, namer, (void *)t);
	/* Not VULKAN while other threads are in Vulkan calls: the loader's own
	 * locks may be held by a thread the child does not have. */
	for (int k = 0; k < children; k++)
		if (spawn(k, k % VULKAN, pre)) return 0;
	atomic_store(&stop, 1);
	for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
	for (int i = 0; i < PRE_NAMES; i++) {
		snprintf(n, sizeof(n), "late-%d", i);
		name(pre, n);
	}
	for (int way = WAYS - 1; way >= 0; way--) /* VULKAN first, while "late-*" is buffered */
		if (spawn(children + way, way, pre)) return 0;
	printf("named %ld\n", atomic_load(&named));
	vkDestroyBuffer(dev, pre, NULL);
	vkDestroyDevice(dev, NULL);
	vkDestroyInstance(inst, NULL);
	return 0;
}

static int end_run(const char *how, int n) {
	setup();
	for (int i = 0; i < n; i++) {
		char s[64];
		snprintf(s, sizeof(s), "end-%d", i);
		name(vkc_create_buffer(dev), s);
	}
	if (!strcmp(how, "exit")) exit(0);
	if (!strcmp(how, "return")) return 0;
	pthread_t th[THREADS]; /* busy in the layers when the end comes */
	for (long t = 0; t < THREADS; t++) pthread_create(&th[t], NULL, namer, (void *)t);
	printf("named %d\n", n);
	fflush(stdout);
	char line[16];
	if (!fgets(line, sizeof(line), stdin)) return 1;
	if (!strcmp(how, "abort")) abort();
	for (;;) pause(); /* kill */
}

int main(int argc, char **argv) {
	vkc_prog = "lifecycle";
	if (argc == 3 && !strcmp(argv[1], "fork")) return fork_run(atoi(argv[2]));
	if (argc == 4 && !strcmp(argv[1], "end")) return end_run(argv[2], atoi(argv[3]));
	fprintf(stderr, "usage: lifecycle fork N | lifecycle end exit|return|abort|kill N\n");
	return 2;
}
