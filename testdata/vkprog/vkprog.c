/* vkprog: the layer framework's Vulkan test program (C, real loader).
 *
 *   vkprog [--cycles N] [--messenger] [--misuse] [--procaddr] [--bench N]
 *
 * Each cycle creates an instance (VK_EXT_debug_utils) and a device, creates
 * two buffers and an image, names them (re-applying one name unchanged and
 * renaming one), submits an empty batch, and destroys everything.
 * --messenger registers a debug-utils messenger and prints
 * "validation_messages=N" (validation messages and errors) at exit.
 * --misuse adds one invalid call (a zero-sized buffer), a negative control
 * proving that validation is active.
 * --procaddr prints, for a few commands, where vkGetDeviceProcAddr's pointer
 * lives: "procaddr NAME LIBRARY OFFSET" (or "procaddr NAME NULL"), and for
 * the naming commands what each vkgen layer of the device's chain answers
 * (its own vkGetDeviceProcAddr, found in the loaded libVkLayer_vkgen.so):
 * "layerprocaddr SYMBOL NAME LIBRARY OFFSET" (or "... NULL").
 * --bench N times N calls per case with CLOCK_THREAD_CPUTIME_ID and prints
 * "bench CASE NS_PER_CALL" (best of 5). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vkcommon.h"

static void print_where(const char *what, const char *name, PFN_vkVoidFunction f) {
	Dl_info info;
	if (!f) {
		printf("%s %s NULL\n", what, name);
	} else if (dladdr((void *)f, &info) && info.dli_fname) {
		const char *base = strrchr(info.dli_fname, '/');
		printf("%s %s %s %#lx\n", what, name, base ? base + 1 : info.dli_fname,
		       (unsigned long)((char *)f - (char *)info.dli_fbase));
	} else {
		printf("%s %s unknown %p\n", what, name, (void *)f);
	}
}

static void where(VkDevice dev, const char *name) { print_where("procaddr", name, vkGetDeviceProcAddr(dev, name)); }

static int find_vkgen(struct dl_phdr_info *info, size_t size, void *path) {
	(void)size;
	const char *base = strrchr(info->dlpi_name, '/');
	if (base && !strcmp(base + 1, "libVkLayer_vkgen.so")) {
		*(const char **)path = info->dlpi_name;
		return 1;
	}
	return 0;
}

static void layers_where(VkDevice dev) {
	const char *path = NULL;
	dl_iterate_phdr(find_vkgen, &path);
	void *lib = path ? dlopen(path, RTLD_NOLOAD | RTLD_LAZY) : NULL;
	if (!lib) return;
	const char *syms[] = {"debugmarker", "memreport", "example"};
	const char *cmds[] = {"vkSetDebugUtilsObjectNameEXT", "vkDebugMarkerSetObjectNameEXT"};
	for (int i = 0; i < 3; i++) {
		char fn[64], what[64];
		snprintf(fn, sizeof fn, "vkgen_%s_GetDeviceProcAddr", syms[i]);
		PFN_vkGetDeviceProcAddr gdpa = (PFN_vkGetDeviceProcAddr)dlsym(lib, fn);
		snprintf(what, sizeof what, "layerprocaddr %s", syms[i]);
		for (int c = 0; gdpa && c < 2; c++) print_where(what, cmds[c], gdpa(dev, cmds[c]));
	}
	dlclose(lib);
}

static PFN_vkSetDebugUtilsObjectNameEXT set_name;

static void name(VkDevice dev, VkObjectType type, uint64_t handle, const char *n) {
	VkDebugUtilsObjectNameInfoEXT info = {VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT, NULL, type, handle, n};
	CHECK(set_name(dev, &info));
}

static void bench(VkDevice dev, VkBuffer buf, VkImage img, long n) {
	PFN_vkGetImageMemoryRequirements image_reqs =
	    (PFN_vkGetImageMemoryRequirements)vkGetDeviceProcAddr(dev, "vkGetImageMemoryRequirements");
	PFN_vkGetBufferMemoryRequirements buffer_reqs =
	    (PFN_vkGetBufferMemoryRequirements)vkGetDeviceProcAddr(dev, "vkGetBufferMemoryRequirements");
	const char *cases[] = {"non_intercepted", "c_forward", "name_unchanged", "name_changed", "gdpa_lookup"};
	for (int c = 0; c < 5; c++) {
		double best = 1e30;
		for (int rep = 0; rep < 5; rep++) {
			VkMemoryRequirements req;
			long iters = c == 4 ? n / 10 : n;
			double t0 = vkc_now_ns();
			for (long i = 0; i < iters; i++) {
				switch (c) {
				case 0: image_reqs(dev, img, &req); break;
				case 1: buffer_reqs(dev, buf, &req); break;
				case 2: name(dev, VK_OBJECT_TYPE_BUFFER, (uint64_t)buf, "bench-name"); break;
				case 3: name(dev, VK_OBJECT_TYPE_BUFFER, (uint64_t)buf, (i & 1) ? "bench-a" : "bench-b"); break;
				case 4:
					if (!vkGetDeviceProcAddr(dev, "vkCreateBuffer")) exit(1);
					break;
				}
			}
			double per = (vkc_now_ns() - t0) / iters;
			if (per < best) best = per;
		}
		printf("bench %s %.2f\n", cases[c], best);
	}
}

int main(int argc, char **argv) {
	vkc_prog = "vkprog";
	int cycles = 1, use_messenger = 0, procaddr = 0, misuse = 0;
	long bench_n = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--cycles") && i + 1 < argc)
			cycles = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--messenger"))
			use_messenger = 1;
		else if (!strcmp(argv[i], "--misuse"))
			misuse = 1;
		else if (!strcmp(argv[i], "--procaddr"))
			procaddr = 1;
		else if (!strcmp(argv[i], "--bench") && i + 1 < argc)
			bench_n = atol(argv[++i]);
		else {
			fprintf(stderr, "usage: vkprog [--cycles N] [--messenger] [--misuse] [--procaddr] [--bench N]\n");
			return 2;
		}
	}
	for (int cycle = 0; cycle < cycles; cycle++) {
		VkDebugUtilsMessengerCreateInfoEXT mci =
		    vkc_messenger_info(VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
		                       VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT);
		VkInstance inst = vkc_create_instance("vkprog", use_messenger ? &mci : NULL, 0, NULL);
		VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
		if (use_messenger) {
			PFN_vkCreateDebugUtilsMessengerEXT create =
			    (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(inst, "vkCreateDebugUtilsMessengerEXT");
			CHECK(create(inst, &mci, NULL, &messenger));
		}
		VkDevice dev = vkc_create_device(vkc_physical_device(inst), 0, NULL);
		VkQueue queue;
		vkGetDeviceQueue(dev, 0, 0, &queue);
		set_name = vkc_set_name_fn(dev);

		VkBuffer a = vkc_create_buffer(dev), b = vkc_create_buffer(dev);
		if (misuse) {
			VkBufferCreateInfo bad = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
			bad.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT; /* size 0: VUID-VkBufferCreateInfo-size-00912 */
			VkBuffer z = VK_NULL_HANDLE;
			if (vkCreateBuffer(dev, &bad, NULL, &z) == VK_SUCCESS && z) vkDestroyBuffer(dev, z, NULL);
		}
		VkImage img = vkc_create_image(dev);

		name(dev, VK_OBJECT_TYPE_BUFFER, (uint64_t)a, "buf-A");
		name(dev, VK_OBJECT_TYPE_BUFFER, (uint64_t)a, "buf-A"); /* unchanged: filtered in C */
		name(dev, VK_OBJECT_TYPE_BUFFER, (uint64_t)b, "buf-B");
		name(dev, VK_OBJECT_TYPE_IMAGE, (uint64_t)img, "img");
		name(dev, VK_OBJECT_TYPE_BUFFER, (uint64_t)a, "buf-A2");

		VkMemoryRequirements req;
		vkGetBufferMemoryRequirements(dev, a, &req);
		CHECK(vkQueueSubmit(queue, 0, NULL, VK_NULL_HANDLE));
		CHECK(vkQueueWaitIdle(queue));

		if (procaddr && cycle == 0) {
			where(dev, "vkGetImageMemoryRequirements");
			where(dev, "vkCreateBuffer");
			where(dev, "vkDebugMarkerSetObjectNameEXT");
			where(dev, "vkSetDebugUtilsObjectNameEXT");
			layers_where(dev);
		}
		if (bench_n > 0 && cycle == 0) bench(dev, a, img, bench_n);

		vkDestroyImage(dev, img, NULL);
		vkDestroyBuffer(dev, b, NULL);
		vkDestroyBuffer(dev, a, NULL);
		vkDestroyDevice(dev, NULL);
		if (messenger) {
			PFN_vkDestroyDebugUtilsMessengerEXT destroy =
			    (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(inst, "vkDestroyDebugUtilsMessengerEXT");
			destroy(inst, messenger, NULL);
		}
		vkDestroyInstance(inst, NULL);
		printf("cycle %d ok\n", cycle);
	}
	if (use_messenger) printf("validation_messages=%d\n", vkc_messages);
	return 0;
}
