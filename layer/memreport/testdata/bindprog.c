/* bindprog: the ways of requiring and binding memory beyond plain binds, for
 * the DeviceMemoryReport integration tests (binds_integration_test.go). It
 * names every object and prints what it did:
 *
 *   memory NAME handle=0xH size=N type=I flags=0xF [external=IMPORTED|EXPORTED handle_types=0xT]
 *                                                  [dedicated=image|buffer:0xH]
 *   buffer|image NAME handle=0xH usage=0xU size=N memory=MEMNAME offset=N
 *   range NAME handle=0xH resource_offset=N size=N memory=MEMNAME offset=N   (sparse)
 *   video NAME handle=0xH bind_index=N size=N memory=MEMNAME offset=N
 *   unit U                                      (sparse: the unit of its offsets and sizes)
 *   swapchain_image NAME handle=0xH swapchain=0xS   (its own images, backbufferN, and
 *                                                   an application image bound to its memory)
 *   recreated_image - handle=0xH swapchain=0xS  (a second swapchain's images, unnamed,
 *                                                after the first is destroyed)
 *   unbound NAME handle=0xH                     (a bind that did not take effect)
 *
 *   bindprog core       (lavapipe) vkBind*Memory2 batches, maintenance4
 *                       requirement queries only, dedicated allocations,
 *                       exported, fd-imported and host-pointer-imported memory
 *   bindprog maint6     (memdriver maintenance6) batches with a failing bind
 *   bindprog sparse     (memdriver sparse) vkQueueBindSparse
 *   bindprog video      (memdriver video) a video session's bindings
 *   bindprog swapchain  (xcb, under xvfb-run) swapchain images
 *
 * Everything is bound before anything is destroyed (but the second
 * swapchain's images), so the counters after the last bind hold every
 * object. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xcb/xcb.h>

#include "vkcommon.h"
#include <vulkan/vulkan_xcb.h>

/* VkBindMemoryStatus (Vulkan 1.4), newer than the system headers. */
#define STYPE_BIND_MEMORY_STATUS ((VkStructureType)1000545002)
typedef struct {
	VkStructureType sType;
	const void *pNext;
	VkResult *pResult;
} bind_memory_status;
/* The memdriver's failing bind offset (testdata/memdriver/README.md). */
#define FAILING_OFFSET 0xdead0000u

static VkInstance inst;
static VkPhysicalDevice phys;
static VkDevice dev;
static VkQueue queue;
static VkPhysicalDeviceMemoryProperties memprops;
static PFN_vkSetDebugUtilsObjectNameEXT set_name;

#define H(x) ((uint64_t)(uintptr_t)(x))
#define PROC(name) ((PFN_##name)get_proc(#name))

static PFN_vkVoidFunction get_proc(const char *name) {
	PFN_vkVoidFunction f = vkGetDeviceProcAddr(dev, name);
	if (!f) {
		fprintf(stderr, "bindprog: %s unavailable\n", name);
		exit(1);
	}
	return f;
}

static void name(VkObjectType type, uint64_t handle, const char *n) {
	VkDebugUtilsObjectNameInfoEXT info = {VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT, NULL, type, handle, n};
	CHECK(set_name(dev, &info));
}

static uint32_t pick_type(uint32_t bits, VkMemoryPropertyFlags want) {
	for (uint32_t i = 0; i < memprops.memoryTypeCount; i++)
		if ((bits & (1u << i)) && (memprops.memoryTypes[i].propertyFlags & want) == want) return i;
	fprintf(stderr, "bindprog: no memory type with flags %#x in %#x\n", (unsigned)want, bits);
	exit(1);
}

struct mem {
	const char *name;
	VkDeviceMemory handle;
	VkDeviceSize size;
};

/* Allocates size bytes of a type in bits with chain, names and prints it;
 * extra is appended to the printed line. */
static struct mem alloc(const char *n, VkDeviceSize size, uint32_t bits, const void *chain, const char *extra) {
	uint32_t type = pick_type(bits, 0);
	VkMemoryAllocateInfo ai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, chain, size, type};
	struct mem m = {n, VK_NULL_HANDLE, size};
	CHECK(vkAllocateMemory(dev, &ai, NULL, &m.handle));
	name(VK_OBJECT_TYPE_DEVICE_MEMORY, H(m.handle), n);
	printf("memory %s handle=0x%" PRIx64 " size=%" PRIu64 " type=%u flags=0x%x%s%s\n", n, H(m.handle), (uint64_t)size, type,
	       (unsigned)memprops.memoryTypes[type].propertyFlags, extra ? " " : "", extra ? extra : "");
	return m;
}

static VkBuffer buffer(const char *n, VkDeviceSize size, VkBufferUsageFlags usage, VkBufferCreateFlags flags) {
	VkBufferCreateInfo bci = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, NULL, flags, size, usage};
	VkBuffer b;
	CHECK(vkCreateBuffer(dev, &bci, NULL, &b));
	name(VK_OBJECT_TYPE_BUFFER, H(b), n);
	return b;
}

static VkImageCreateInfo image_info(uint32_t side, VkImageUsageFlags usage, VkImageCreateFlags flags) {
	VkImageCreateInfo ci = {VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, NULL, flags, VK_IMAGE_TYPE_2D, VK_FORMAT_R8G8B8A8_UNORM,
	                        {side, side, 1}, 1, 1, VK_SAMPLE_COUNT_1_BIT, VK_IMAGE_TILING_OPTIMAL, usage};
	return ci;
}

static VkImage image(const char *n, const VkImageCreateInfo *ci) {
	VkImage im;
	CHECK(vkCreateImage(dev, ci, NULL, &im));
	name(VK_OBJECT_TYPE_IMAGE, H(im), n);
	return im;
}

static void print_res(const char *kind, const char *n, uint64_t h, uint64_t usage, VkDeviceSize size, const struct mem *m,
                      VkDeviceSize off) {
	printf("%s %s handle=0x%" PRIx64 " usage=0x%" PRIx64 " size=%" PRIu64 " memory=%s offset=%" PRIu64 "\n", kind, n, h,
	       usage, (uint64_t)size, m->name, (uint64_t)off);
}

static VkDeviceSize align_up(VkDeviceSize v, VkDeviceSize a) { return (v + a - 1) / a * a; }

/* An instance and a device with one queue of family 0, the extensions and
 * the features (NULL: none). */
static void setup(uint32_t n_inst_exts, const char *const *inst_exts, uint32_t n_exts, const char *const *exts,
                  const VkPhysicalDeviceFeatures *features) {
	inst = vkc_create_instance("bindprog", NULL, n_inst_exts, inst_exts);
	phys = vkc_physical_device(inst);
	vkGetPhysicalDeviceMemoryProperties(phys, &memprops);
	float prio = 1.0f;
	VkDeviceQueueCreateInfo qci = {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, NULL, 0, 0, 1, &prio};
	VkDeviceCreateInfo dci = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, NULL, 0, 1, &qci, 0, NULL, n_exts, exts, features};
	CHECK(vkCreateDevice(phys, &dci, NULL, &dev));
	vkGetDeviceQueue(dev, 0, 0, &queue);
	set_name = vkc_set_name_fn(dev);
}

static void teardown(void) {
	vkDestroyDevice(dev, NULL);
	vkDestroyInstance(inst, NULL);
}

/* vkBind*Memory2 batches, maintenance4 queries, dedicated and external
 * memory: everything lavapipe offers itself. */
static void run_core(void) {
	const char *exts[] = {VK_KHR_MAINTENANCE_4_EXTENSION_NAME, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME,
	                      VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME};
	setup(0, NULL, 3, exts, NULL);

	/* One vkBindBufferMemory2 of two buffers and one vkBindImageMemory2. */
	VkBuffer vb = buffer("b2.vertex", 4096, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, 0);
	VkBuffer ub = buffer("b2.uniform", 256, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, 0);
	VkImageCreateInfo tci = image_info(32, VK_IMAGE_USAGE_SAMPLED_BIT, 0);
	VkImage tex = image("b2.texture", &tci);
	VkMemoryRequirements rv, ru, rt;
	vkGetBufferMemoryRequirements(dev, vb, &rv);
	vkGetBufferMemoryRequirements(dev, ub, &ru);
	vkGetImageMemoryRequirements(dev, tex, &rt);
	VkDeviceSize ou = align_up(rv.size, ru.alignment), ot = align_up(ou + ru.size, rt.alignment);
	struct mem batch = alloc("batch", ot + rt.size, rv.memoryTypeBits & ru.memoryTypeBits & rt.memoryTypeBits, NULL, NULL);
	VkBindBufferMemoryInfo bb[2] = {{VK_STRUCTURE_TYPE_BIND_BUFFER_MEMORY_INFO, NULL, vb, batch.handle, 0},
	                                {VK_STRUCTURE_TYPE_BIND_BUFFER_MEMORY_INFO, NULL, ub, batch.handle, ou}};
	CHECK(vkBindBufferMemory2(dev, 2, bb));
	VkBindImageMemoryInfo bi = {VK_STRUCTURE_TYPE_BIND_IMAGE_MEMORY_INFO, NULL, tex, batch.handle, ot};
	CHECK(vkBindImageMemory2(dev, 1, &bi));
	print_res("buffer", "b2.vertex", H(vb), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, rv.size, &batch, 0);
	print_res("buffer", "b2.uniform", H(ub), VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, ru.size, &batch, ou);
	print_res("image", "b2.texture", H(tex), VK_IMAGE_USAGE_SAMPLED_BIT, rt.size, &batch, ot);

	/* maintenance4: sizes from the create infos only; no per-handle query
	 * reaches the layer before the binds. */
	PFN_vkGetDeviceBufferMemoryRequirementsKHR dbuf = PROC(vkGetDeviceBufferMemoryRequirementsKHR);
	PFN_vkGetDeviceImageMemoryRequirementsKHR dimg = PROC(vkGetDeviceImageMemoryRequirementsKHR);
	VkBufferCreateInfo sci = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, NULL, 0, 10000, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT};
	VkImageCreateInfo cci = image_info(64, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT, 0);
	VkDeviceBufferMemoryRequirementsKHR dbi = {VK_STRUCTURE_TYPE_DEVICE_BUFFER_MEMORY_REQUIREMENTS_KHR, NULL, &sci};
	VkDeviceImageMemoryRequirementsKHR dii = {VK_STRUCTURE_TYPE_DEVICE_IMAGE_MEMORY_REQUIREMENTS_KHR, NULL, &cci};
	VkMemoryRequirements2 rs = {VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2}, rc = {VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2};
	dbuf(dev, &dbi, &rs);
	dimg(dev, &dii, &rc);
	VkBuffer sb = buffer("m4.storage", 10000, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, 0);
	VkImage ci = image("m4.color", &cci);
	VkDeviceSize oc = align_up(rs.memoryRequirements.size, rc.memoryRequirements.alignment);
	struct mem m4 = alloc("m4", oc + rc.memoryRequirements.size,
	                      rs.memoryRequirements.memoryTypeBits & rc.memoryRequirements.memoryTypeBits, NULL, NULL);
	CHECK(vkBindBufferMemory(dev, sb, m4.handle, 0));
	CHECK(vkBindImageMemory(dev, ci, m4.handle, oc));
	print_res("buffer", "m4.storage", H(sb), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, rs.memoryRequirements.size, &m4, 0);
	print_res("image", "m4.color", H(ci), VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT, rc.memoryRequirements.size, &m4, oc);

	/* Dedicated allocations: an image and a buffer. */
	VkImageCreateInfo dci = image_info(128, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT, 0);
	dci.format = VK_FORMAT_D32_SFLOAT;
	VkImage di = image("ded.depth", &dci);
	VkBuffer db = buffer("ded.index", 3000, VK_BUFFER_USAGE_INDEX_BUFFER_BIT, 0);
	VkMemoryRequirements rdi, rdb;
	vkGetImageMemoryRequirements(dev, di, &rdi);
	vkGetBufferMemoryRequirements(dev, db, &rdb);
	char extra[96];
	VkMemoryDedicatedAllocateInfo dai = {VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO, NULL, di, VK_NULL_HANDLE};
	snprintf(extra, sizeof(extra), "dedicated=image:0x%" PRIx64, H(di));
	struct mem mdi = alloc("ded.depth.memory", rdi.size, rdi.memoryTypeBits, &dai, extra);
	VkMemoryDedicatedAllocateInfo dab = {VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO, NULL, VK_NULL_HANDLE, db};
	snprintf(extra, sizeof(extra), "dedicated=buffer:0x%" PRIx64, H(db));
	struct mem mdb = alloc("ded.index.memory", rdb.size, rdb.memoryTypeBits, &dab, extra);
	CHECK(vkBindImageMemory(dev, di, mdi.handle, 0));
	CHECK(vkBindBufferMemory(dev, db, mdb.handle, 0));
	print_res("image", "ded.depth", H(di), VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT, rdi.size, &mdi, 0);
	print_res("buffer", "ded.index", H(db), VK_BUFFER_USAGE_INDEX_BUFFER_BIT, rdb.size, &mdb, 0);

	/* External memory: exported as an opaque fd, that fd imported, and
	 * host memory imported. */
	uint32_t all = (1u << memprops.memoryTypeCount) - 1;
	VkExportMemoryAllocateInfo exp = {VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO, NULL,
	                                  VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT};
	snprintf(extra, sizeof(extra), "external=EXPORTED handle_types=0x%x", VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT);
	struct mem mex = alloc("exported", 65536, all, &exp, extra);
	VkMemoryGetFdInfoKHR gfi = {VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR, NULL, mex.handle,
	                            VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT};
	int fd = -1;
	CHECK(PROC(vkGetMemoryFdKHR)(dev, &gfi, &fd));
	VkImportMemoryFdInfoKHR ifd = {VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR, NULL,
	                               VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT, fd};
	snprintf(extra, sizeof(extra), "external=IMPORTED handle_types=0x%x", VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT);
	struct mem mfd = alloc("imported.fd", 65536, all, &ifd, extra);
	VkPhysicalDeviceExternalMemoryHostPropertiesEXT hp = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT};
	VkPhysicalDeviceProperties2 p2 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &hp};
	vkGetPhysicalDeviceProperties2(phys, &p2);
	VkDeviceSize host_size = align_up(65536, hp.minImportedHostPointerAlignment);
	void *host = aligned_alloc(hp.minImportedHostPointerAlignment, host_size);
	VkMemoryHostPointerPropertiesEXT hpp = {VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT};
	CHECK(PROC(vkGetMemoryHostPointerPropertiesEXT)(dev, VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT, host, &hpp));
	VkImportMemoryHostPointerInfoEXT ihp = {VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT, NULL,
	                                        VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT, host};
	snprintf(extra, sizeof(extra), "external=IMPORTED handle_types=0x%x", VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT);
	struct mem mhp = alloc("imported.host", host_size, hpp.memoryTypeBits, &ihp, extra);

	vkDestroyBuffer(dev, vb, NULL);
	vkDestroyBuffer(dev, ub, NULL);
	vkDestroyImage(dev, tex, NULL);
	vkDestroyBuffer(dev, sb, NULL);
	vkDestroyImage(dev, ci, NULL);
	vkDestroyImage(dev, di, NULL);
	vkDestroyBuffer(dev, db, NULL);
	const struct mem *mems[] = {&batch, &m4, &mdi, &mdb, &mex, &mfd, &mhp};
	for (size_t i = 0; i < sizeof(mems) / sizeof(mems[0]); i++) vkFreeMemory(dev, mems[i]->handle, NULL);
	free(host);
	teardown();
}

/* maintenance6: a vkBindBufferMemory2 of three binds with statuses whose
 * middle one fails, and a vkBindImageMemory2 of two binds without statuses
 * whose second fails. */
static void run_maint6(void) {
	const char *exts[] = {"VK_KHR_maintenance6"};
	setup(0, NULL, 1, exts, NULL);
	VkBuffer b[3];
	const char *names[3] = {"m6.ok0", "m6.failed", "m6.ok2"};
	VkMemoryRequirements r;
	for (int i = 0; i < 3; i++) b[i] = buffer(names[i], 1024, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, 0);
	vkGetBufferMemoryRequirements(dev, b[0], &r);
	VkDeviceSize stride = align_up(r.size, r.alignment);
	struct mem m = alloc("m6.memory", 4 * stride + 2 * 65536, r.memoryTypeBits, NULL, NULL);
	VkResult res[3] = {VK_ERROR_UNKNOWN, VK_ERROR_UNKNOWN, VK_ERROR_UNKNOWN};
	bind_memory_status st[3];
	VkBindBufferMemoryInfo bb[3];
	for (int i = 0; i < 3; i++) {
		st[i] = (bind_memory_status){STYPE_BIND_MEMORY_STATUS, NULL, &res[i]};
		bb[i] = (VkBindBufferMemoryInfo){VK_STRUCTURE_TYPE_BIND_BUFFER_MEMORY_INFO, &st[i], b[i], m.handle,
		                                 i == 1 ? FAILING_OFFSET : i * stride};
	}
	VkResult rb = vkBindBufferMemory2(dev, 3, bb);
	printf("bind_buffer_memory2 result=%d statuses=%d,%d,%d\n", rb, res[0], res[1], res[2]);
	for (int i = 0; i < 3; i++) {
		if (res[i] == VK_SUCCESS)
			print_res("buffer", names[i], H(b[i]), VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, r.size, &m, i * stride);
		else
			printf("unbound %s handle=0x%" PRIx64 "\n", names[i], H(b[i]));
	}
	VkImageCreateInfo ci = image_info(128, VK_IMAGE_USAGE_SAMPLED_BIT, 0);
	VkImage im[2] = {image("m6.nostatus0", &ci), image("m6.nostatus1", &ci)};
	VkBindImageMemoryInfo bi[2] = {{VK_STRUCTURE_TYPE_BIND_IMAGE_MEMORY_INFO, NULL, im[0], m.handle, 4 * stride},
	                               {VK_STRUCTURE_TYPE_BIND_IMAGE_MEMORY_INFO, NULL, im[1], m.handle, FAILING_OFFSET}};
	VkResult ri = vkBindImageMemory2(dev, 2, bi);
	printf("bind_image_memory2 result=%d\n", ri);
	for (int i = 0; i < 2; i++) printf("unbound m6.nostatus%d handle=0x%" PRIx64 "\n", i, H(im[i]));
	/* The spec says a failed batch's resources must not be used: destroy. */
	for (int i = 0; i < 2; i++) vkDestroyImage(dev, im[i], NULL);
	for (int i = 0; i < 3; i++) vkDestroyBuffer(dev, b[i], NULL);
	vkFreeMemory(dev, m.handle, NULL);
	teardown();
}

/* vkQueueBindSparse: buffer ranges in two allocations, a rebind over both,
 * an unbind, and an opaque image range; each batch waited for. Offsets and
 * sizes are in units U of at least 16 KiB and the sparse block size (the
 * buffer's alignment), so real drivers accept them too. */
static void run_sparse(void) {
	VkPhysicalDeviceFeatures features = {.sparseBinding = VK_TRUE};
	setup(0, NULL, 0, NULL, &features);
	VkBuffer sb = buffer("sparse.probe", 1, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, VK_BUFFER_CREATE_SPARSE_BINDING_BIT);
	VkMemoryRequirements rb, ri;
	vkGetBufferMemoryRequirements(dev, sb, &rb);
	vkDestroyBuffer(dev, sb, NULL);
	const VkDeviceSize U = rb.alignment > 16384 ? rb.alignment : 16384;
	sb = buffer("sparse.buffer", 16 * U, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, VK_BUFFER_CREATE_SPARSE_BINDING_BIT);
	VkImageCreateInfo ici = image_info(128, VK_IMAGE_USAGE_SAMPLED_BIT, VK_IMAGE_CREATE_SPARSE_BINDING_BIT);
	VkImage si = image("sparse.image", &ici);
	vkGetBufferMemoryRequirements(dev, sb, &rb);
	vkGetImageMemoryRequirements(dev, si, &ri);
	VkDeviceSize isize = ri.size;
	if (isize > 8 * U) {
		fprintf(stderr, "bindprog: sparse image of %" PRIu64 " bytes, more than 8 units\n", (uint64_t)isize);
		exit(1);
	}
	printf("unit %" PRIu64 "\n", (uint64_t)U);
	struct mem a = alloc("sparse.a", 16 * U, rb.memoryTypeBits, NULL, NULL);
	struct mem b = alloc("sparse.b", 16 * U, rb.memoryTypeBits & ri.memoryTypeBits, NULL, NULL);
	VkFenceCreateInfo fci = {VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
	VkFence fence;
	CHECK(vkCreateFence(dev, &fci, NULL, &fence));
	/* Batch 1: [0,4U) -> a@0, [4U,8U) -> b@0, the whole image -> b@8U.
	 * Batch 2: [2U,6U) -> a@8U over both, then [0,U) unbound. */
	VkSparseMemoryBind b1[2] = {{0, 4 * U, a.handle, 0, 0}, {4 * U, 4 * U, b.handle, 0, 0}};
	VkSparseMemoryBind o1 = {0, isize, b.handle, 8 * U, 0};
	VkSparseBufferMemoryBindInfo sb1 = {sb, 2, b1};
	VkSparseImageOpaqueMemoryBindInfo so1 = {si, 1, &o1};
	VkBindSparseInfo bs1 = {VK_STRUCTURE_TYPE_BIND_SPARSE_INFO, NULL, 0, NULL, 1, &sb1, 1, &so1, 0, NULL, 0, NULL};
	CHECK(vkQueueBindSparse(queue, 1, &bs1, fence));
	CHECK(vkWaitForFences(dev, 1, &fence, VK_TRUE, UINT64_MAX));
	CHECK(vkResetFences(dev, 1, &fence));
	VkSparseMemoryBind b2[2] = {{2 * U, 4 * U, a.handle, 8 * U, 0}, {0, U, VK_NULL_HANDLE, 0, 0}};
	VkSparseBufferMemoryBindInfo sb2 = {sb, 2, b2};
	VkBindSparseInfo bs2 = {VK_STRUCTURE_TYPE_BIND_SPARSE_INFO, NULL, 0, NULL, 1, &sb2, 0, NULL, 0, NULL, 0, NULL};
	CHECK(vkQueueBindSparse(queue, 1, &bs2, fence));
	CHECK(vkWaitForFences(dev, 1, &fence, VK_TRUE, UINT64_MAX));
	/* Batch 3: an image region bind (sparse residency; the memdriver takes
	 * it, but reports no sparse image requirements, so the layer cannot size
	 * it and drops it). */
	CHECK(vkResetFences(dev, 1, &fence));
	VkSparseImageMemoryBind ib = {{VK_IMAGE_ASPECT_COLOR_BIT, 0, 0}, {0, 0, 0}, {64, 64, 1}, b.handle, 12 * U, 0};
	VkSparseImageMemoryBindInfo si3 = {si, 1, &ib};
	VkBindSparseInfo bs3 = {VK_STRUCTURE_TYPE_BIND_SPARSE_INFO, NULL, 0, NULL, 0, NULL, 0, NULL, 1, &si3, 0, NULL};
	CHECK(vkQueueBindSparse(queue, 1, &bs3, fence));
	CHECK(vkWaitForFences(dev, 1, &fence, VK_TRUE, UINT64_MAX));
	/* What is bound now, by resource offset. */
	const struct {
		const char *res;
		uint64_t h, at, size;
		const char *mem;
		uint64_t off;
	} now[] = {{"sparse.buffer", H(sb), U, U, "sparse.a", U},
	           {"sparse.buffer", H(sb), 2 * U, 4 * U, "sparse.a", 8 * U},
	           {"sparse.buffer", H(sb), 6 * U, 2 * U, "sparse.b", 2 * U},
	           {"sparse.image", H(si), 0, isize, "sparse.b", 8 * U}};
	for (size_t i = 0; i < sizeof(now) / sizeof(now[0]); i++)
		printf("range %s handle=0x%" PRIx64 " resource_offset=%" PRIu64 " size=%" PRIu64 " memory=%s offset=%" PRIu64 "\n",
		       now[i].res, now[i].h, now[i].at, now[i].size, now[i].mem, now[i].off);
	vkDestroyFence(dev, fence, NULL);
	vkDestroyBuffer(dev, sb, NULL);
	vkDestroyImage(dev, si, NULL);
	vkFreeMemory(dev, a.handle, NULL);
	vkFreeMemory(dev, b.handle, NULL);
	teardown();
}

/* A video session's two bindings in one allocation. */
static void run_video(void) {
	const char *exts[] = {"VK_KHR_video_queue"};
	setup(0, NULL, 1, exts, NULL);
	VkVideoProfileInfoKHR profile = {VK_STRUCTURE_TYPE_VIDEO_PROFILE_INFO_KHR};
	VkVideoSessionCreateInfoKHR sci = {VK_STRUCTURE_TYPE_VIDEO_SESSION_CREATE_INFO_KHR};
	sci.pVideoProfile = &profile;
	sci.pictureFormat = VK_FORMAT_G8_B8R8_2PLANE_420_UNORM;
	sci.maxCodedExtent = (VkExtent2D){64, 64};
	VkVideoSessionKHR vs;
	/* Not named: the memdriver's session handles are its own, and lavapipe
	 * would take a name for one as a pointer to its object. */
	CHECK(PROC(vkCreateVideoSessionKHR)(dev, &sci, NULL, &vs));
	uint32_t n = 0;
	CHECK(PROC(vkGetVideoSessionMemoryRequirementsKHR)(dev, vs, &n, NULL));
	VkVideoSessionMemoryRequirementsKHR req[4];
	for (uint32_t i = 0; i < 4; i++) req[i] = (VkVideoSessionMemoryRequirementsKHR){VK_STRUCTURE_TYPE_VIDEO_SESSION_MEMORY_REQUIREMENTS_KHR};
	n = n > 4 ? 4 : n;
	CHECK(PROC(vkGetVideoSessionMemoryRequirementsKHR)(dev, vs, &n, req));
	VkDeviceSize total = 0, off[4];
	uint32_t bits = ~0u;
	for (uint32_t i = 0; i < n; i++) {
		off[i] = align_up(total, req[i].memoryRequirements.alignment);
		total = off[i] + req[i].memoryRequirements.size;
		bits &= req[i].memoryRequirements.memoryTypeBits;
	}
	struct mem m = alloc("video.memory", total, bits, NULL, NULL);
	VkBindVideoSessionMemoryInfoKHR bind[4];
	for (uint32_t i = 0; i < n; i++) {
		bind[i] = (VkBindVideoSessionMemoryInfoKHR){VK_STRUCTURE_TYPE_BIND_VIDEO_SESSION_MEMORY_INFO_KHR, NULL,
		                                            req[i].memoryBindIndex, m.handle, off[i], req[i].memoryRequirements.size};
	}
	CHECK(PROC(vkBindVideoSessionMemoryKHR)(dev, vs, n, bind));
	for (uint32_t i = 0; i < n; i++)
		printf("video video.session handle=0x%" PRIx64 " bind_index=%u size=%" PRIu64 " memory=video.memory offset=%" PRIu64 "\n",
		       H(vs), req[i].memoryBindIndex, (uint64_t)req[i].memoryRequirements.size, (uint64_t)off[i]);
	PROC(vkDestroyVideoSessionKHR)(dev, vs, NULL);
	vkFreeMemory(dev, m.handle, NULL);
	teardown();
}

/* A swapchain on an xcb window: its images, named, and one buffer of
 * the application's beside them; then a second swapchain. */
static void run_swapchain(void) {
	xcb_connection_t *conn = xcb_connect(NULL, NULL);
	if (xcb_connection_has_error(conn)) {
		fprintf(stderr, "bindprog: no X display\n");
		exit(1);
	}
	xcb_screen_t *screen = xcb_setup_roots_iterator(xcb_get_setup(conn)).data;
	xcb_window_t win = xcb_generate_id(conn);
	xcb_create_window(conn, XCB_COPY_FROM_PARENT, win, screen->root, 0, 0, 64, 64, 0, XCB_WINDOW_CLASS_INPUT_OUTPUT,
	                  screen->root_visual, 0, NULL);
	xcb_map_window(conn, win);
	xcb_flush(conn);
	const char *iexts[] = {VK_KHR_SURFACE_EXTENSION_NAME, VK_KHR_XCB_SURFACE_EXTENSION_NAME};
	const char *exts[] = {VK_KHR_SWAPCHAIN_EXTENSION_NAME};
	setup(2, iexts, 1, exts, NULL);
	VkXcbSurfaceCreateInfoKHR xci = {VK_STRUCTURE_TYPE_XCB_SURFACE_CREATE_INFO_KHR, NULL, 0, conn, win};
	VkSurfaceKHR surface;
	CHECK(vkCreateXcbSurfaceKHR(inst, &xci, NULL, &surface));
	VkSurfaceCapabilitiesKHR caps;
	CHECK(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(phys, surface, &caps));
	uint32_t nf = 1;
	VkSurfaceFormatKHR fmt;
	VkResult fr = vkGetPhysicalDeviceSurfaceFormatsKHR(phys, surface, &nf, &fmt);
	if (fr != VK_SUCCESS && fr != VK_INCOMPLETE) CHECK(fr);
	VkSwapchainCreateInfoKHR sci = {VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR};
	sci.surface = surface;
	sci.minImageCount = caps.minImageCount;
	sci.imageFormat = fmt.format;
	sci.imageColorSpace = fmt.colorSpace;
	sci.imageExtent = caps.currentExtent.width == UINT32_MAX ? (VkExtent2D){64, 64} : caps.currentExtent;
	sci.imageArrayLayers = 1;
	sci.imageUsage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
	sci.preTransform = caps.currentTransform;
	sci.compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
	sci.presentMode = VK_PRESENT_MODE_FIFO_KHR;
	sci.clipped = VK_TRUE;
	VkSwapchainKHR sc;
	CHECK(vkCreateSwapchainKHR(dev, &sci, NULL, &sc));
	uint32_t n = 0;
	CHECK(vkGetSwapchainImagesKHR(dev, sc, &n, NULL));
	VkImage imgs[16];
	n = n > 16 ? 16 : n;
	CHECK(vkGetSwapchainImagesKHR(dev, sc, &n, imgs));
	CHECK(vkGetSwapchainImagesKHR(dev, sc, &n, imgs)); /* asked twice, as applications do */
	for (uint32_t i = 0; i < n; i++) {
		char bb[32];
		snprintf(bb, sizeof(bb), "backbuffer%u", i);
		name(VK_OBJECT_TYPE_IMAGE, H(imgs[i]), bb);
		printf("swapchain_image %s handle=0x%" PRIx64 " swapchain=0x%" PRIx64 "\n", bb, H(imgs[i]), H(sc));
	}
	/* An application image bound to the swapchain's memory. */
	VkImageSwapchainCreateInfoKHR isc = {VK_STRUCTURE_TYPE_IMAGE_SWAPCHAIN_CREATE_INFO_KHR, NULL, sc};
	VkImageCreateInfo aci = image_info(0, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT, 0);
	aci.pNext = &isc;
	aci.format = sci.imageFormat;
	aci.extent = (VkExtent3D){sci.imageExtent.width, sci.imageExtent.height, 1};
	VkImage alias = image("sc.alias", &aci);
	VkBindImageMemorySwapchainInfoKHR bsc = {VK_STRUCTURE_TYPE_BIND_IMAGE_MEMORY_SWAPCHAIN_INFO_KHR, NULL, sc, 0};
	VkBindImageMemoryInfo bai = {VK_STRUCTURE_TYPE_BIND_IMAGE_MEMORY_INFO, &bsc, alias, VK_NULL_HANDLE, 0};
	CHECK(vkBindImageMemory2(dev, 1, &bai));
	printf("swapchain_image sc.alias handle=0x%" PRIx64 " swapchain=0x%" PRIx64 "\n", H(alias), H(sc));
	VkBuffer ub = buffer("sc.uniform", 256, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, 0);
	VkMemoryRequirements r;
	vkGetBufferMemoryRequirements(dev, ub, &r);
	struct mem m = alloc("sc.memory", 65536, r.memoryTypeBits, NULL, NULL);
	CHECK(vkBindBufferMemory(dev, ub, m.handle, 0));
	print_res("buffer", "sc.uniform", H(ub), VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, r.size, &m, 0);
	vkDestroyImage(dev, alias, NULL);
	vkDestroySwapchainKHR(dev, sc, NULL);
	/* A new swapchain, as after a resize: its images may reuse the handles of
	 * the old ones (lavapipe's do) and must not inherit their names. */
	CHECK(vkCreateSwapchainKHR(dev, &sci, NULL, &sc));
	n = 16;
	CHECK(vkGetSwapchainImagesKHR(dev, sc, &n, imgs));
	for (uint32_t i = 0; i < n; i++)
		printf("recreated_image - handle=0x%" PRIx64 " swapchain=0x%" PRIx64 "\n", H(imgs[i]), H(sc));
	vkDestroySwapchainKHR(dev, sc, NULL);
	vkDestroyBuffer(dev, ub, NULL);
	vkFreeMemory(dev, m.handle, NULL);
	vkDestroyDevice(dev, NULL);
	vkDestroySurfaceKHR(inst, surface, NULL);
	vkDestroyInstance(inst, NULL);
	xcb_disconnect(conn);
}

int main(int argc, char **argv) {
	vkc_prog = "bindprog";
	setvbuf(stdout, NULL, _IOLBF, 0);
	const char *mode = argc > 1 ? argv[1] : "";
	if (!strcmp(mode, "core")) run_core();
	else if (!strcmp(mode, "maint6")) run_maint6();
	else if (!strcmp(mode, "sparse")) run_sparse();
	else if (!strcmp(mode, "video")) run_video();
	else if (!strcmp(mode, "swapchain")) run_swapchain();
	else {
		fprintf(stderr, "usage: bindprog core|maint6|sparse|video|swapchain\n");
		return 2;
	}
	return 0;
}
