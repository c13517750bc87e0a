/* demo: the vkgen demo Vulkan program (C, real loader). It allocates device
 * memory, creates buffers and images of several usages, binds them (plain
 * and *2 binds, sub-allocated and dedicated), names them with
 * vkSetDebugUtilsObjectNameEXT (one through vkDebugMarkerSetObjectNameEXT when
 * VK_EXT_debug_marker is offered), then destroys and frees everything, printing
 * what it did so a trace of the DeviceMemoryReport layer can be checked:
 *
 *   memory NAME handle=0xH size=N type=I flags=0xF
 *   buffer NAME handle=0xH usage=0xU size=N memory=MEMNAME offset=N
 *   image NAME handle=0xH usage=0xU size=N memory=MEMNAME offset=N
 *   phase bound | phase freed | phase reused
 *   failed_allocation result=R          (--fail-alloc)
 *   leaked NAME                         (--leak, before vkDestroyDevice)
 *   validation_messages=N               (at exit)
 *
 * Sizes are those vkGet*MemoryRequirements(2) returned.
 *   demo [--fail-alloc] [--reuse] [--leak] [--leak-name NAME] [--skip-destroy device|instance] [--bench N]
 * --fail-alloc adds an allocation the driver must refuse (larger than any
 * heap): the layer must record nothing for it (validation flags it, so the
 * validation run leaves it out).
 * --reuse then allocates "reuse.block", binds a big storage buffer
 * "reuse.big" to it, destroys it and binds a small uniform buffer
 * "reuse.small" in its place: drivers that recycle handles (lavapipe) give
 * the second buffer the first one's handle, a new object under an old
 * handle value.
 * --leak binds a buffer "leak.forgotten" to its own allocation "leak.block"
 * and destroys neither: the layer reports both as leaks at vkDestroyDevice
 * (validation reports them too, so the validation run leaves it out).
 * --skip-destroy device leaves the device to vkDestroyInstance (the layer
 * reports leaks there); --skip-destroy instance destroys neither and returns
 * from main (leaks at exit).
 * --bench N times N iterations of vkCreateBuffer + vkBindBufferMemory +
 * vkDestroyBuffer and prints "bench create_bind_destroy_buffer THREAD_NS
 * WALL_NS" per iteration, each the best of 5: CLOCK_THREAD_CPUTIME_ID (what
 * the calling thread spent) and CLOCK_MONOTONIC (what the application
 * waited, the layer's hooks running on another thread included). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vkcommon.h"

static VkDevice dev;
static VkPhysicalDeviceMemoryProperties memprops;
static PFN_vkSetDebugUtilsObjectNameEXT set_name;
static PFN_vkDebugMarkerSetObjectNameEXT marker_name;

static void name(VkObjectType type, uint64_t handle, const char *n) {
	/* The host-visible block is named through VK_EXT_debug_marker when
	 * available, to exercise that path too. */
	if (marker_name && type == VK_OBJECT_TYPE_DEVICE_MEMORY && !strcmp(n, "block.host_visible")) {
		VkDebugMarkerObjectNameInfoEXT info = {VK_STRUCTURE_TYPE_DEBUG_MARKER_OBJECT_NAME_INFO_EXT, NULL,
		                                       VK_DEBUG_REPORT_OBJECT_TYPE_DEVICE_MEMORY_EXT, handle, n};
		CHECK(marker_name(dev, &info));
		printf("marker_name %s\n", n);
		return;
	}
	if (!set_name) return;
	VkDebugUtilsObjectNameInfoEXT info = {VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT, NULL, type, handle, n};
	CHECK(set_name(dev, &info));
}

/* The first memory type allowed by bits with all of want. */
static uint32_t pick_type(uint32_t bits, VkMemoryPropertyFlags want) {
	for (uint32_t i = 0; i < memprops.memoryTypeCount; i++)
		if ((bits & (1u << i)) && (memprops.memoryTypes[i].propertyFlags & want) == want) return i;
	fprintf(stderr, "demo: no memory type with flags %#x in %#x\n", (unsigned)want, bits);
	exit(1);
}

struct memory {
	const char *name;
	VkDeviceMemory handle;
	VkDeviceSize size;
	uint32_t type;
};

static void allocate(struct memory *m) {
	VkMemoryAllocateInfo ai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, NULL, m->size, m->type};
	CHECK(vkAllocateMemory(dev, &ai, NULL, &m->handle));
	name(VK_OBJECT_TYPE_DEVICE_MEMORY, (uint64_t)m->handle, m->name);
	printf("memory %s handle=%#" PRIx64 " size=%" PRIu64 " type=%u flags=%#x\n", m->name, (uint64_t)m->handle,
	       (uint64_t)m->size, m->type, (unsigned)memprops.memoryTypes[m->type].propertyFlags);
}

struct buffer {
	const char *name;
	VkBufferUsageFlags usage;
	VkDeviceSize create_size;
	int host; /* staging: lives in host-visible memory */
	VkBuffer handle;
	VkMemoryRequirements req;
	VkDeviceSize offset;
};

struct image {
	const char *name;
	VkImageUsageFlags usage;
	VkFormat format;
	uint32_t extent;
	int dedicated; /* own allocation, bound with vkBindImageMemory2 */
	VkImage handle;
	VkMemoryRequirements req;
	VkDeviceSize offset;
	struct memory mem;
};

static VkDeviceSize align_up(VkDeviceSize v, VkDeviceSize a) { return a ? (v + a - 1) / a * a : v; }

/* A buffer of usage and size created, named and bound at offset 0 of m. */
static VkBuffer bound_buffer(const char *n, VkBufferUsageFlags usage, VkDeviceSize size, struct memory *m) {
	VkBufferCreateInfo bi = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, NULL, 0, size, usage, VK_SHARING_MODE_EXCLUSIVE};
	VkBuffer b;
	CHECK(vkCreateBuffer(dev, &bi, NULL, &b));
	VkMemoryRequirements req;
	vkGetBufferMemoryRequirements(dev, b, &req);
	if (!m->handle) {
		m->size = req.size;
		m->type = pick_type(req.memoryTypeBits, 0);
		allocate(m);
	}
	name(VK_OBJECT_TYPE_BUFFER, (uint64_t)b, n);
	CHECK(vkBindBufferMemory(dev, b, m->handle, 0));
	printf("buffer %s handle=%#" PRIx64 " usage=%#x size=%" PRIu64 " memory=%s offset=0\n", n, (uint64_t)b,
	       (unsigned)usage, (uint64_t)req.size, m->name);
	return b;
}

/* --reuse: a big buffer destroyed, then a small one, likely at its handle. */
static void reuse(void) {
	struct memory m = {"reuse.block"};
	vkDestroyBuffer(dev, bound_buffer("reuse.big", VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, 1 << 20, &m), NULL);
	vkDestroyBuffer(dev, bound_buffer("reuse.small", VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, 256, &m), NULL);
	vkFreeMemory(dev, m.handle, NULL);
	printf("phase reused\n");
}

/* --leak: a named buffer and its memory never destroyed or freed; the
 * buffer's name is --leak-name's when given (the HTML report's tests give
 * one full of HTML and script). */
static const char *leak_name = "leak.forgotten";
static void leak(void) {
	struct memory m = {"leak.block"};
	bound_buffer(leak_name, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, 4096, &m);
	printf("leaked %s\nleaked leak.block\n", leak_name);
}

static double wall_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void bench(long n) {
	VkBufferCreateInfo bi = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
	bi.size = 4096;
	bi.usage = VK_BUFFER_USAGE_VERTEX_BUFFER_BIT;
	bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
	VkBuffer probe;
	CHECK(vkCreateBuffer(dev, &bi, NULL, &probe));
	VkMemoryRequirements req;
	vkGetBufferMemoryRequirements(dev, probe, &req);
	vkDestroyBuffer(dev, probe, NULL);
	struct memory m = {"bench", VK_NULL_HANDLE, req.size, pick_type(req.memoryTypeBits, 0)};
	VkMemoryAllocateInfo ai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, NULL, m.size, m.type};
	CHECK(vkAllocateMemory(dev, &ai, NULL, &m.handle));
	double best = 0, best_wall = 0;
	for (int rep = 0; rep < 5; rep++) {
		double t0 = vkc_now_ns(), w0 = wall_ns();
		for (long i = 0; i < n; i++) {
			VkBuffer b;
			CHECK(vkCreateBuffer(dev, &bi, NULL, &b));
			CHECK(vkBindBufferMemory(dev, b, m.handle, 0));
			vkDestroyBuffer(dev, b, NULL);
		}
		double per = (vkc_now_ns() - t0) / (double)n, wall = (wall_ns() - w0) / (double)n;
		if (rep == 0 || per < best) best = per;
		if (rep == 0 || wall < best_wall) best_wall = wall;
	}
	vkFreeMemory(dev, m.handle, NULL);
	printf("bench create_bind_destroy_buffer %.1f %.1f\n", best, best_wall);
}

int main(int argc, char **argv) {
	vkc_prog = "demo";
	int fail_alloc = 0, reuse_handle = 0, leak_objects = 0, skip_device = 0, skip_instance = 0;
	long bench_n = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--fail-alloc")) fail_alloc = 1;
		else if (!strcmp(argv[i], "--reuse")) reuse_handle = 1;
		else if (!strcmp(argv[i], "--leak")) leak_objects = 1;
		else if (!strcmp(argv[i], "--leak-name") && i + 1 < argc) leak_objects = 1, leak_name = argv[++i];
		else if (!strcmp(argv[i], "--skip-destroy") && i + 1 < argc && !strcmp(argv[i + 1], "device")) skip_device = ++i;
		else if (!strcmp(argv[i], "--skip-destroy") && i + 1 < argc && !strcmp(argv[i + 1], "instance"))
			skip_device = skip_instance = ++i;
		else if (!strcmp(argv[i], "--bench") && i + 1 < argc) bench_n = atol(argv[++i]);
		else {
			fprintf(stderr, "usage: demo [--fail-alloc] [--reuse] [--leak] [--leak-name NAME] [--skip-destroy device|instance] [--bench N]\n");
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);

	/* Instance with VK_EXT_debug_utils when available (names, messenger). */
	uint32_t n = 0;
	CHECK(vkEnumerateInstanceExtensionProperties(NULL, &n, NULL));
	VkExtensionProperties *iexts = calloc(n ? n : 1, sizeof(*iexts));
	CHECK(vkEnumerateInstanceExtensionProperties(NULL, &n, iexts));
	int debug_utils = 0, debug_report = 0;
	for (uint32_t i = 0; i < n; i++) {
		debug_utils |= !strcmp(iexts[i].extensionName, VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
		debug_report |= !strcmp(iexts[i].extensionName, VK_EXT_DEBUG_REPORT_EXTENSION_NAME);
	}
	free(iexts);
	const char *inst_exts[2];
	uint32_t n_inst_exts = 0;
	if (debug_utils) inst_exts[n_inst_exts++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
	if (debug_report) inst_exts[n_inst_exts++] = VK_EXT_DEBUG_REPORT_EXTENSION_NAME; /* VK_EXT_debug_marker needs it */
	VkApplicationInfo app = {VK_STRUCTURE_TYPE_APPLICATION_INFO, NULL, "vkgen-demo", 1, "vkgen", 1, VK_API_VERSION_1_1};
	VkDebugUtilsMessengerCreateInfoEXT mi =
	    vkc_messenger_info(VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT);
	VkInstanceCreateInfo ici = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, debug_utils ? &mi : NULL, 0, &app, 0, NULL,
	                            n_inst_exts, n_inst_exts ? inst_exts : NULL};
	VkInstance inst;
	CHECK(vkCreateInstance(&ici, NULL, &inst));
	VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
	PFN_vkCreateDebugUtilsMessengerEXT create_messenger =
	    (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(inst, "vkCreateDebugUtilsMessengerEXT");
	if (debug_utils && create_messenger) CHECK(create_messenger(inst, &mi, NULL, &messenger));

	VkPhysicalDevice phys = vkc_physical_device(inst);
	VkPhysicalDeviceProperties pp;
	vkGetPhysicalDeviceProperties(phys, &pp);
	vkGetPhysicalDeviceMemoryProperties(phys, &memprops);
	printf("device %s api=%u.%u.%u\n", pp.deviceName, VK_API_VERSION_MAJOR(pp.apiVersion),
	       VK_API_VERSION_MINOR(pp.apiVersion), VK_API_VERSION_PATCH(pp.apiVersion));
	/* VK_EXT_debug_marker when offered: one object is named through it. */
	int debug_marker = 0;
	uint32_t nl = 0;
	CHECK(vkEnumerateDeviceLayerProperties(phys, &nl, NULL));
	VkLayerProperties *lp = calloc(nl + 1, sizeof(*lp));
	CHECK(vkEnumerateDeviceLayerProperties(phys, &nl, lp));
	for (uint32_t l = 0; l <= nl; l++) { /* the driver's list, then each enabled layer's */
		const char *layer = l < nl ? lp[l].layerName : NULL;
		CHECK(vkEnumerateDeviceExtensionProperties(phys, layer, &n, NULL));
		VkExtensionProperties *dexts = calloc(n ? n : 1, sizeof(*dexts));
		CHECK(vkEnumerateDeviceExtensionProperties(phys, layer, &n, dexts));
		for (uint32_t i = 0; i < n; i++)
			debug_marker |= debug_report && !strcmp(dexts[i].extensionName, VK_EXT_DEBUG_MARKER_EXTENSION_NAME);
		free(dexts);
	}
	free(lp);
	const char *marker_ext = VK_EXT_DEBUG_MARKER_EXTENSION_NAME;
	dev = vkc_create_device(phys, debug_marker ? 1 : 0, &marker_ext);
	set_name = (PFN_vkSetDebugUtilsObjectNameEXT)vkGetDeviceProcAddr(dev, "vkSetDebugUtilsObjectNameEXT");
	if (!set_name) printf("names unsupported\n");
	if (debug_marker) marker_name = (PFN_vkDebugMarkerSetObjectNameEXT)vkGetDeviceProcAddr(dev, "vkDebugMarkerSetObjectNameEXT");

	if (bench_n > 0) {
		bench(bench_n);
	} else {
		struct buffer bufs[] = {
		    {"vertices", VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, 65536},
		    {"indices", VK_BUFFER_USAGE_INDEX_BUFFER_BIT, 16384},
		    {"camera", VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, 256},
		    {"particles", VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, 131072},
		    {"draws", VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT, 4096},
		    {"upload", VK_BUFFER_USAGE_TRANSFER_SRC_BIT, 262144, 1},
		};
		struct image imgs[] = {
		    {"gbuffer.albedo", VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT, VK_FORMAT_R8G8B8A8_UNORM, 256},
		    {"depth", VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT, VK_FORMAT_D32_SFLOAT, 256},
		    {"lightmap", VK_IMAGE_USAGE_STORAGE_BIT, VK_FORMAT_R8G8B8A8_UNORM, 128},
		    {"albedo.texture", VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT, VK_FORMAT_R8G8B8A8_UNORM, 512, 1},
		};
		const int nb = sizeof(bufs) / sizeof(bufs[0]), ni = sizeof(imgs) / sizeof(imgs[0]);

		/* Create and query requirements (plain and *2 variants). */
		VkDeviceSize dev_size = 0, host_size = 0;
		uint32_t dev_bits = ~0u, host_bits = ~0u;
		for (int i = 0; i < nb; i++) {
			struct buffer *b = &bufs[i];
			VkBufferCreateInfo bi = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, NULL, 0, b->create_size, b->usage,
			                         VK_SHARING_MODE_EXCLUSIVE};
			CHECK(vkCreateBuffer(dev, &bi, NULL, &b->handle));
			if (i % 2) {
				VkBufferMemoryRequirementsInfo2 ri = {VK_STRUCTURE_TYPE_BUFFER_MEMORY_REQUIREMENTS_INFO_2, NULL, b->handle};
				VkMemoryRequirements2 r2 = {VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2};
				vkGetBufferMemoryRequirements2(dev, &ri, &r2);
				b->req = r2.memoryRequirements;
			} else {
				vkGetBufferMemoryRequirements(dev, b->handle, &b->req);
			}
			VkDeviceSize *sz = b->host ? &host_size : &dev_size;
			b->offset = align_up(*sz, b->req.alignment);
			*sz = b->offset + b->req.size;
			*(b->host ? &host_bits : &dev_bits) &= b->req.memoryTypeBits;
			name(VK_OBJECT_TYPE_BUFFER, (uint64_t)b->handle, b->name);
		}
		for (int i = 0; i < ni; i++) {
			struct image *im = &imgs[i];
			VkImageCreateInfo ci = {VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
			ci.imageType = VK_IMAGE_TYPE_2D;
			ci.format = im->format;
			ci.extent = (VkExtent3D){im->extent, im->extent, 1};
			ci.mipLevels = 1;
			ci.arrayLayers = 1;
			ci.samples = VK_SAMPLE_COUNT_1_BIT;
			ci.tiling = VK_IMAGE_TILING_OPTIMAL;
			ci.usage = im->usage;
			ci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
			ci.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
			CHECK(vkCreateImage(dev, &ci, NULL, &im->handle));
			if (im->dedicated) {
				VkImageMemoryRequirementsInfo2 ri = {VK_STRUCTURE_TYPE_IMAGE_MEMORY_REQUIREMENTS_INFO_2, NULL, im->handle};
				VkMemoryRequirements2 r2 = {VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2};
				vkGetImageMemoryRequirements2(dev, &ri, &r2);
				im->req = r2.memoryRequirements;
			} else {
				vkGetImageMemoryRequirements(dev, im->handle, &im->req);
				im->offset = align_up(dev_size, im->req.alignment);
				dev_size = im->offset + im->req.size;
				dev_bits &= im->req.memoryTypeBits;
			}
			name(VK_OBJECT_TYPE_IMAGE, (uint64_t)im->handle, im->name);
		}

		/* One device-local block sub-allocated by everything but the staging
		 * buffer (host-visible block) and the dedicated texture, with 64 KiB
		 * left unbound at its end. */
		struct memory local = {"block.device_local", VK_NULL_HANDLE, dev_size + 65536,
		                       pick_type(dev_bits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)};
		struct memory host = {"block.host_visible", VK_NULL_HANDLE, host_size,
		                      pick_type(host_bits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT)};
		allocate(&local);
		allocate(&host);
		if (fail_alloc) {
			VkMemoryAllocateInfo ai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, NULL, (VkDeviceSize)1 << 62, local.type};
			VkDeviceMemory m = VK_NULL_HANDLE;
			VkResult fr = vkAllocateMemory(dev, &ai, NULL, &m);
			printf("failed_allocation result=%d\n", fr);
			if (fr == VK_SUCCESS) vkFreeMemory(dev, m, NULL);
		}
		for (int i = 0; i < nb; i++) {
			struct buffer *b = &bufs[i];
			struct memory *m = b->host ? &host : &local;
			if (i % 2) {
				VkBindBufferMemoryInfo bi = {VK_STRUCTURE_TYPE_BIND_BUFFER_MEMORY_INFO, NULL, b->handle, m->handle, b->offset};
				CHECK(vkBindBufferMemory2(dev, 1, &bi));
			} else {
				CHECK(vkBindBufferMemory(dev, b->handle, m->handle, b->offset));
			}
			printf("buffer %s handle=%#" PRIx64 " usage=%#x size=%" PRIu64 " memory=%s offset=%" PRIu64 "\n", b->name,
			       (uint64_t)b->handle, (unsigned)b->usage, (uint64_t)b->req.size, m->name, (uint64_t)b->offset);
		}
		for (int i = 0; i < ni; i++) {
			struct image *im = &imgs[i];
			struct memory *m = &local;
			if (im->dedicated) {
				im->mem = (struct memory){im->name, VK_NULL_HANDLE, im->req.size,
				                          pick_type(im->req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)};
				allocate(&im->mem);
				m = &im->mem;
				VkBindImageMemoryInfo bi = {VK_STRUCTURE_TYPE_BIND_IMAGE_MEMORY_INFO, NULL, im->handle, m->handle, 0};
				CHECK(vkBindImageMemory2(dev, 1, &bi));
			} else {
				CHECK(vkBindImageMemory(dev, im->handle, m->handle, im->offset));
			}
			printf("image %s handle=%#" PRIx64 " usage=%#x size=%" PRIu64 " memory=%s offset=%" PRIu64 "\n", im->name,
			       (uint64_t)im->handle, (unsigned)im->usage, (uint64_t)im->req.size, m->name, (uint64_t)im->offset);
		}
		printf("phase bound\n");

		for (int i = 0; i < nb; i++) vkDestroyBuffer(dev, bufs[i].handle, NULL);
		for (int i = 0; i < ni; i++) {
			vkDestroyImage(dev, imgs[i].handle, NULL);
			if (imgs[i].dedicated) vkFreeMemory(dev, imgs[i].mem.handle, NULL);
		}
		vkFreeMemory(dev, local.handle, NULL);
		vkFreeMemory(dev, host.handle, NULL);
		printf("phase freed\n");
		if (reuse_handle) reuse();
		if (leak_objects) leak();
	}

	if (skip_instance) return 0;
	if (!skip_device) vkDestroyDevice(dev, NULL);
	PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger =
	    (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(inst, "vkDestroyDebugUtilsMessengerEXT");
	if (messenger && destroy_messenger) destroy_messenger(inst, messenger, NULL);
	vkDestroyInstance(inst, NULL);
	printf("validation_messages=%d\n", vkc_messages);
	return 0;
}
