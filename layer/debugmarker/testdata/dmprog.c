/* dmprog: VK_LAYER_VKGEN_DebugMarker's test program (C, real loader).
 *
 *   dmprog [--settings FILE --late-trace PATH] [--messenger] [--null-info]
 *          [--no-instance-name]
 *                                                               scenario
 *   dmprog --enum LIBRARY                                       enumeration
 *   dmprog --null LIBRARY                                       NULL infos
 *
 * Scenario: creates an instance (VK_EXT_debug_utils) and a device
 * (VK_EXT_debug_marker, which lavapipe lacks: only the layer provides it),
 * calls every command of both extensions, names objects through both APIs,
 * renames, removes (NULL and ""), destroys, and lets a destroyed buffer's
 * handle be recycled. With --settings, it then writes
 * "vkgen.trace_file = PATH" into the layer settings FILE and creates a second
 * instance, which starts a second trace session mid-run, and names one more
 * object. It prints "obj KEY HANDLE" for every object the test looks up, and
 * with --messenger "validation_messages=N" at exit. --null-info also calls
 * vkDebugMarkerSetObjectNameEXT with a NULL pNameInfo (invalid usage; only
 * the layer implements it on lavapipe, so nothing below can crash on it) and
 * prints "null_info_marker_result R". --no-instance-name skips naming the
 * VkInstance: NVIDIA's 580.159 driver crashes on that call with or without
 * any layer (docs/debugmarker.md).
 *
 * --enum calls the layer's own entry points in LIBRARY through a fake chain
 * below it (no loader, no driver) and checks the enumerate functions: the
 * layer's own lists with the two-call idiom, and queries naming another
 * layer forwarded unchanged. It prints "enum ok" or the failures.
 *
 * --null calls the entry points of the DebugMarker, DeviceMemoryReport and
 * example layers in LIBRARY over a fake chain with NULL create/name/bind infos, which
 * is invalid usage that the layers must forward without crashing in their
 * own code (the real loader's trampolines dereference such pointers before a
 * layer is reached, and so does lavapipe). It prints "null ok" or the
 * failures. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vk_layer.h>

#include "vkcommon.h"

#define LAYER "VK_LAYER_VKGEN_DebugMarker"

static int failures;

#define EXPECT(cond)                                                          \
	do {                                                                      \
		if (!(cond)) {                                                        \
			printf("FAIL line %d: %s\n", __LINE__, #cond);               \
			failures++;                                                       \
		}                                                                     \
	} while (0)

static PFN_vkSetDebugUtilsObjectNameEXT utils_name;
static PFN_vkDebugMarkerSetObjectNameEXT marker_name;

static VkResult uname_result(VkDevice dev, VkObjectType type, uint64_t handle, const char *n) {
	VkDebugUtilsObjectNameInfoEXT info = {VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT, NULL, type, handle, n};
	return utils_name(dev, &info);
}

static void uname(VkDevice dev, VkObjectType type, uint64_t handle, const char *n) {
	CHECK(uname_result(dev, type, handle, n));
}

static void mname(VkDevice dev, VkDebugReportObjectTypeEXT type, uint64_t handle, const char *n) {
	VkDebugMarkerObjectNameInfoEXT info = {VK_STRUCTURE_TYPE_DEBUG_MARKER_OBJECT_NAME_INFO_EXT, NULL, type, handle, n};
	CHECK(marker_name(dev, &info));
}

static void *dproc(VkDevice dev, const char *name) {
	void *f = (void *)vkGetDeviceProcAddr(dev, name);
	if (!f) {
		fprintf(stderr, "dmprog: %s unavailable\n", name);
		exit(1);
	}
	return f;
}

static VkInstance create_instance(VkDebugUtilsMessengerCreateInfoEXT *mci) {
	/* VK_EXT_debug_marker requires VK_EXT_debug_report (the loader has it). */
	const char *report = VK_EXT_DEBUG_REPORT_EXTENSION_NAME;
	return vkc_create_instance("dmprog", mci, 1, &report);
}

/* The layer's lists as the real loader reports them (from the manifest and
 * the layer), with the two-call idiom and undersized arrays. */
static void loader_enumeration(VkPhysicalDevice phys) {
	VkExtensionProperties ex[4];
	memset(ex, 0xAB, sizeof(ex));
	uint32_t n = 0;
	EXPECT(vkEnumerateInstanceExtensionProperties(LAYER, &n, NULL) == VK_SUCCESS && n == 2);
	n = 0;
	EXPECT(vkEnumerateInstanceExtensionProperties(LAYER, &n, ex) == VK_INCOMPLETE && n == 0);
	EXPECT((unsigned char)ex[0].extensionName[0] == 0xAB);
	n = 4;
	EXPECT(vkEnumerateInstanceExtensionProperties(LAYER, &n, ex) == VK_SUCCESS && n == 2 &&
	       !strcmp(ex[0].extensionName, VK_EXT_DEBUG_UTILS_EXTENSION_NAME) && ex[0].specVersion == 2 &&
	       !strcmp(ex[1].extensionName, "VK_EXT_layer_settings") && ex[1].specVersion == 2);
	n = 1; /* an undersized array gets the first entry and VK_INCOMPLETE */
	EXPECT(vkEnumerateInstanceExtensionProperties(LAYER, &n, ex) == VK_INCOMPLETE && n == 1 &&
	       !strcmp(ex[0].extensionName, VK_EXT_DEBUG_UTILS_EXTENSION_NAME));
	n = 0;
	EXPECT(vkEnumerateDeviceExtensionProperties(phys, LAYER, &n, NULL) == VK_SUCCESS && n == 1);
	memset(ex, 0xAB, sizeof(ex));
	n = 0;
	EXPECT(vkEnumerateDeviceExtensionProperties(phys, LAYER, &n, ex) == VK_INCOMPLETE && n == 0);
	EXPECT((unsigned char)ex[0].extensionName[0] == 0xAB);
	n = 4;
	EXPECT(vkEnumerateDeviceExtensionProperties(phys, LAYER, &n, ex) == VK_SUCCESS && n == 1 &&
	       !strcmp(ex[0].extensionName, VK_EXT_DEBUG_MARKER_EXTENSION_NAME) && ex[0].specVersion == 4);
	/* The driver's list (no layer name) holds more than one entry on
	 * lavapipe: an undersized array is truncated with VK_INCOMPLETE. */
	uint32_t all = 0;
	EXPECT(vkEnumerateDeviceExtensionProperties(phys, NULL, &all, NULL) == VK_SUCCESS && all > 1);
	n = 1;
	EXPECT(vkEnumerateDeviceExtensionProperties(phys, NULL, &n, ex) == VK_INCOMPLETE && n == 1);
	VkLayerProperties lp[8];
	n = 0;
	EXPECT(vkEnumerateDeviceLayerProperties(phys, &n, NULL) == VK_SUCCESS && n >= 1);
	uint32_t layers = n;
	n = 0;
	EXPECT(vkEnumerateDeviceLayerProperties(phys, &n, lp) == VK_INCOMPLETE && n == 0);
	n = layers < 8 ? layers : 8;
	VkResult r = vkEnumerateDeviceLayerProperties(phys, &n, lp);
	int found = 0;
	for (uint32_t i = 0; i < n; i++) found |= !strcmp(lp[i].layerName, LAYER);
	EXPECT((r == VK_SUCCESS || r == VK_INCOMPLETE) && found);
}

static void obj(const char *key, uint64_t handle) { printf("obj %s %#llx\n", key, (unsigned long long)handle); }

static int scenario(const char *settings, const char *late, int use_messenger, int null_info, int instance_name) {
	VkDebugUtilsMessengerCreateInfoEXT mci =
	    vkc_messenger_info(VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
	                       VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT);
	VkInstance inst = create_instance(use_messenger ? &mci : NULL);
	PFN_vkCreateDebugUtilsMessengerEXT create_messenger =
	    (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(inst, "vkCreateDebugUtilsMessengerEXT");
	PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger =
	    (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(inst, "vkDestroyDebugUtilsMessengerEXT");
	PFN_vkSubmitDebugUtilsMessageEXT submit_message =
	    (PFN_vkSubmitDebugUtilsMessageEXT)vkGetInstanceProcAddr(inst, "vkSubmitDebugUtilsMessageEXT");
	if (!create_messenger || !destroy_messenger || !submit_message) {
		fprintf(stderr, "dmprog: debug-utils instance commands unavailable\n");
		return 1;
	}
	VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
	if (use_messenger) CHECK(create_messenger(inst, &mci, NULL, &messenger));
	/* A user message of type GENERAL at INFO severity: absent-safe, and not
	 * counted as a validation message. */
	VkDebugUtilsMessengerCallbackDataEXT cbd = {VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CALLBACK_DATA_EXT};
	cbd.pMessage = "dmprog says hello";
	submit_message(inst, VK_DEBUG_UTILS_MESSAGE_SEVERITY_INFO_BIT_EXT, VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT, &cbd);

	VkPhysicalDevice phys = vkc_physical_device(inst);
	loader_enumeration(phys);
	if (failures) return 1;
	const char *dexts[] = {VK_EXT_DEBUG_MARKER_EXTENSION_NAME};
	VkDevice dev = vkc_create_device(phys, 1, dexts);
	VkQueue queue;
	vkGetDeviceQueue(dev, 0, 0, &queue);
	utils_name = (PFN_vkSetDebugUtilsObjectNameEXT)dproc(dev, "vkSetDebugUtilsObjectNameEXT");
	marker_name = (PFN_vkDebugMarkerSetObjectNameEXT)dproc(dev, "vkDebugMarkerSetObjectNameEXT");
	if (null_info) printf("null_info_marker_result %d\n", marker_name(dev, NULL));
	PFN_vkSetDebugUtilsObjectTagEXT utils_tag = (PFN_vkSetDebugUtilsObjectTagEXT)dproc(dev, "vkSetDebugUtilsObjectTagEXT");
	PFN_vkDebugMarkerSetObjectTagEXT marker_tag = (PFN_vkDebugMarkerSetObjectTagEXT)dproc(dev, "vkDebugMarkerSetObjectTagEXT");
	PFN_vkQueueBeginDebugUtilsLabelEXT qbegin = (PFN_vkQueueBeginDebugUtilsLabelEXT)dproc(dev, "vkQueueBeginDebugUtilsLabelEXT");
	PFN_vkQueueEndDebugUtilsLabelEXT qend = (PFN_vkQueueEndDebugUtilsLabelEXT)dproc(dev, "vkQueueEndDebugUtilsLabelEXT");
	PFN_vkQueueInsertDebugUtilsLabelEXT qinsert = (PFN_vkQueueInsertDebugUtilsLabelEXT)dproc(dev, "vkQueueInsertDebugUtilsLabelEXT");
	PFN_vkCmdBeginDebugUtilsLabelEXT cbegin = (PFN_vkCmdBeginDebugUtilsLabelEXT)dproc(dev, "vkCmdBeginDebugUtilsLabelEXT");
	PFN_vkCmdEndDebugUtilsLabelEXT cend = (PFN_vkCmdEndDebugUtilsLabelEXT)dproc(dev, "vkCmdEndDebugUtilsLabelEXT");
	PFN_vkCmdInsertDebugUtilsLabelEXT cinsert = (PFN_vkCmdInsertDebugUtilsLabelEXT)dproc(dev, "vkCmdInsertDebugUtilsLabelEXT");
	PFN_vkCmdDebugMarkerBeginEXT mbegin = (PFN_vkCmdDebugMarkerBeginEXT)dproc(dev, "vkCmdDebugMarkerBeginEXT");
	PFN_vkCmdDebugMarkerEndEXT mend = (PFN_vkCmdDebugMarkerEndEXT)dproc(dev, "vkCmdDebugMarkerEndEXT");
	PFN_vkCmdDebugMarkerInsertEXT minsert = (PFN_vkCmdDebugMarkerInsertEXT)dproc(dev, "vkCmdDebugMarkerInsertEXT");

	VkBuffer b1 = vkc_create_buffer(dev), b2 = vkc_create_buffer(dev), b3 = vkc_create_buffer(dev);
	VkImage img = vkc_create_image(dev);
	VkCommandPoolCreateInfo pci = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
	VkCommandPool pool;
	CHECK(vkCreateCommandPool(dev, &pci, NULL, &pool));
	VkCommandBufferAllocateInfo cai = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, NULL, pool,
	                                   VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1};
	VkCommandBuffer cb;
	CHECK(vkAllocateCommandBuffers(dev, &cai, &cb));
	obj("device", (uint64_t)(uintptr_t)dev);
	obj("b1", (uint64_t)b1);
	obj("b2", (uint64_t)b2);
	obj("b3", (uint64_t)b3);
	obj("img", (uint64_t)img);
	obj("pool", (uint64_t)pool);
	obj("cb", (uint64_t)(uintptr_t)cb);

	obj("instance", (uint64_t)(uintptr_t)inst);
	if (instance_name) {
		uname(dev, VK_OBJECT_TYPE_INSTANCE, (uint64_t)(uintptr_t)inst, "inst");
		uname(dev, VK_OBJECT_TYPE_INSTANCE, (uint64_t)(uintptr_t)inst, "inst-2");
	}
	uname(dev, VK_OBJECT_TYPE_DEVICE, (uint64_t)(uintptr_t)dev, "dev");
	uname(dev, VK_OBJECT_TYPE_BUFFER, (uint64_t)b1, "b1-utils");
	uname(dev, VK_OBJECT_TYPE_BUFFER, (uint64_t)b1, "b1-utils"); /* unchanged: no packet */
	mname(dev, VK_DEBUG_REPORT_OBJECT_TYPE_IMAGE_EXT, (uint64_t)img, "img-marker");
	mname(dev, VK_DEBUG_REPORT_OBJECT_TYPE_BUFFER_EXT, (uint64_t)b2, "b2-marker");
	mname(dev, VK_DEBUG_REPORT_OBJECT_TYPE_COMMAND_POOL_EXT, (uint64_t)pool, "pool-marker");
	mname(dev, VK_DEBUG_REPORT_OBJECT_TYPE_COMMAND_BUFFER_EXT, (uint64_t)(uintptr_t)cb, "cb-marker");
	uname(dev, VK_OBJECT_TYPE_BUFFER, (uint64_t)b1, "b1-renamed");
	mname(dev, VK_DEBUG_REPORT_OBJECT_TYPE_BUFFER_EXT, (uint64_t)b1, "b1-renamed"); /* same name, other API: no packet */
	uname(dev, VK_OBJECT_TYPE_BUFFER, (uint64_t)b3, "b3-temp");
	/* Removal. The driver's result is passed on: Mesa 22.3 answers a NULL
	 * name with VK_ERROR_OUT_OF_HOST_MEMORY (it strdup()s the name). */
	printf("null_name_result %d\n", uname_result(dev, VK_OBJECT_TYPE_BUFFER, (uint64_t)b3, NULL));
	mname(dev, VK_DEBUG_REPORT_OBJECT_TYPE_BUFFER_EXT, (uint64_t)b2, ""); /* removal */
	mname(dev, VK_DEBUG_REPORT_OBJECT_TYPE_BUFFER_EXT, (uint64_t)b2, "b2-again");

	/* Tags, labels and markers: no-ops on lavapipe, but they must be callable. */
	static const uint32_t tag = 42;
	VkDebugUtilsObjectTagInfoEXT uti = {VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_TAG_INFO_EXT, NULL, VK_OBJECT_TYPE_BUFFER,
	                                    (uint64_t)b1, 1, sizeof(tag), &tag};
	CHECK(utils_tag(dev, &uti));
	VkDebugMarkerObjectTagInfoEXT mti = {VK_STRUCTURE_TYPE_DEBUG_MARKER_OBJECT_TAG_INFO_EXT, NULL,
	                                     VK_DEBUG_REPORT_OBJECT_TYPE_BUFFER_EXT, (uint64_t)b1, 1, sizeof(tag), &tag};
	CHECK(marker_tag(dev, &mti));
	VkDebugUtilsLabelEXT label = {VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT, NULL, "label", {1, 0, 0, 1}};
	VkDebugMarkerMarkerInfoEXT marker = {VK_STRUCTURE_TYPE_DEBUG_MARKER_MARKER_INFO_EXT, NULL, "marker", {0, 1, 0, 1}};
	VkCommandBufferBeginInfo cbi = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
	CHECK(vkBeginCommandBuffer(cb, &cbi));
	cbegin(cb, &label);
	cinsert(cb, &label);
	cend(cb);
	mbegin(cb, &marker);
	minsert(cb, &marker);
	mend(cb);
	CHECK(vkEndCommandBuffer(cb));
	qbegin(queue, &label);
	qinsert(queue, &label);
	VkSubmitInfo si = {VK_STRUCTURE_TYPE_SUBMIT_INFO};
	si.commandBufferCount = 1;
	si.pCommandBuffers = &cb;
	CHECK(vkQueueSubmit(queue, 1, &si, VK_NULL_HANDLE));
	CHECK(vkQueueWaitIdle(queue));
	qend(queue);

	/* Destroy a named buffer; a new buffer may get its handle back and must
	 * not inherit the old name. */
	vkDestroyBuffer(dev, b1, NULL);
	VkBuffer b4 = vkc_create_buffer(dev);
	obj("b4", (uint64_t)b4);

	if (settings && late) {
		FILE *f = fopen(settings, "w");
		if (!f || fprintf(f, "vkgen.trace_file = %s\n", late) < 0 || fclose(f) != 0) {
			fprintf(stderr, "dmprog: cannot write %s\n", settings);
			return 1;
		}
		VkInstance second = create_instance(NULL); /* starts the second session */
		vkDestroyInstance(second, NULL);
	}
	mname(dev, VK_DEBUG_REPORT_OBJECT_TYPE_IMAGE_EXT, (uint64_t)img, "img-late");
	uname(dev, VK_OBJECT_TYPE_BUFFER, (uint64_t)b4, "b4-new");

	vkFreeCommandBuffers(dev, pool, 1, &cb);
	vkDestroyCommandPool(dev, pool, NULL);
	vkDestroyImage(dev, img, NULL);
	vkDestroyBuffer(dev, b2, NULL);
	vkDestroyBuffer(dev, b3, NULL);
	vkDestroyBuffer(dev, b4, NULL);
	vkDestroyDevice(dev, NULL);
	if (messenger) destroy_messenger(inst, messenger, NULL);
	vkDestroyInstance(inst, NULL);
	if (use_messenger) printf("validation_messages=%d\n", vkc_messages);
	printf("scenario ok\n");
	return 0;
}

/* ---- --enum: a fake chain below the layer ---- */

static void *fake_dispatch[8];                     /* the loader dispatch key of the fake objects */
static struct { void *key; } fake_inst = {fake_dispatch}, fake_phys = {fake_dispatch};
static const char *seen_layer;
static uint32_t seen_count;
static VkExtensionProperties *seen_props;

static const VkExtensionProperties fake_dev_exts[2] = {{"VK_KHR_fake_one", 1}, {"VK_KHR_fake_two", 2}};

static VKAPI_ATTR VkResult VKAPI_CALL fake_create_instance(const VkInstanceCreateInfo *ci, const VkAllocationCallbacks *a,
                                                           VkInstance *out) {
	(void)ci, (void)a;
	*out = (VkInstance)&fake_inst;
	return VK_SUCCESS;
}
static VKAPI_ATTR void VKAPI_CALL fake_destroy_instance(VkInstance i, const VkAllocationCallbacks *a) { (void)i, (void)a; }

/* Answers like a driver (two extensions, two-call idiom) and records what it
 * was asked, so the test can tell a forwarded query from an answered one. */
static VKAPI_ATTR VkResult VKAPI_CALL fake_enum_dev_exts(VkPhysicalDevice p, const char *layer, uint32_t *count,
                                                         VkExtensionProperties *props) {
	(void)p;
	seen_layer = layer;
	seen_count = *count;
	seen_props = props;
	if (layer) return VK_ERROR_LAYER_NOT_PRESENT;
	if (!props) {
		*count = 2;
		return VK_SUCCESS;
	}
	uint32_t k = *count < 2 ? *count : 2;
	memcpy(props, fake_dev_exts, k * sizeof(*props));
	*count = k;
	return k < 2 ? VK_INCOMPLETE : VK_SUCCESS;
}

static struct { void *key; } fake_dev = {fake_dispatch};
static int fake_name_calls;

static VKAPI_ATTR VkResult VKAPI_CALL fake_create_device(VkPhysicalDevice p, const VkDeviceCreateInfo *ci,
                                                         const VkAllocationCallbacks *a, VkDevice *out) {
	(void)p, (void)ci, (void)a;
	*out = (VkDevice)&fake_dev;
	return VK_SUCCESS;
}
static VKAPI_ATTR void VKAPI_CALL fake_destroy_device(VkDevice d, const VkAllocationCallbacks *a) { (void)d, (void)a; }
/* The fake driver has VK_EXT_debug_utils naming but no VK_EXT_debug_marker,
 * like lavapipe: both the forwarding and the layer-only paths run. */
static VKAPI_ATTR VkResult VKAPI_CALL fake_set_name(VkDevice d, const VkDebugUtilsObjectNameInfoEXT *info) {
	(void)d, (void)info;
	fake_name_calls++;
	return VK_ERROR_VALIDATION_FAILED_EXT;
}
static VKAPI_ATTR VkResult VKAPI_CALL fake_create_buffer(VkDevice d, const VkBufferCreateInfo *ci,
                                                         const VkAllocationCallbacks *a, VkBuffer *out) {
	(void)d, (void)ci, (void)a;
	*out = (VkBuffer)(uintptr_t)0x1000;
	return VK_SUCCESS;
}
static VKAPI_ATTR VkResult VKAPI_CALL fake_allocate_memory(VkDevice d, const VkMemoryAllocateInfo *ai,
                                                           const VkAllocationCallbacks *a, VkDeviceMemory *out) {
	(void)d, (void)ai, (void)a;
	*out = (VkDeviceMemory)(uintptr_t)0x2000;
	return VK_SUCCESS;
}
static VKAPI_ATTR VkResult VKAPI_CALL fake_bind_buffers(VkDevice d, uint32_t n, const VkBindBufferMemoryInfo *infos) {
	(void)d, (void)n, (void)infos;
	return VK_SUCCESS;
}
static VKAPI_ATTR void VKAPI_CALL fake_buffer_reqs2(VkDevice d, const VkBufferMemoryRequirementsInfo2 *info,
                                                    VkMemoryRequirements2 *r) {
	(void)d, (void)info, (void)r;
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL fake_gdpa(VkDevice d, const char *name) {
	(void)d;
	if (!strcmp(name, "vkDestroyDevice")) return (PFN_vkVoidFunction)fake_destroy_device;
	if (!strcmp(name, "vkSetDebugUtilsObjectNameEXT")) return (PFN_vkVoidFunction)fake_set_name;
	if (!strcmp(name, "vkCreateBuffer")) return (PFN_vkVoidFunction)fake_create_buffer;
	if (!strcmp(name, "vkAllocateMemory")) return (PFN_vkVoidFunction)fake_allocate_memory;
	if (!strcmp(name, "vkBindBufferMemory2")) return (PFN_vkVoidFunction)fake_bind_buffers;
	if (!strcmp(name, "vkGetBufferMemoryRequirements2")) return (PFN_vkVoidFunction)fake_buffer_reqs2;
	return NULL;
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL fake_gipa(VkInstance i, const char *name) {
	(void)i;
	if (!strcmp(name, "vkCreateInstance")) return (PFN_vkVoidFunction)fake_create_instance;
	if (!strcmp(name, "vkDestroyInstance")) return (PFN_vkVoidFunction)fake_destroy_instance;
	if (!strcmp(name, "vkEnumerateDeviceExtensionProperties")) return (PFN_vkVoidFunction)fake_enum_dev_exts;
	if (!strcmp(name, "vkCreateDevice")) return (PFN_vkVoidFunction)fake_create_device;
	return NULL;
}

/* The entry points of layer SYMBOL in h: its vkGetInstanceProcAddr. */
static PFN_vkGetInstanceProcAddr layer_gipa(void *h, const char *symbol) {
	char fn[128];
	snprintf(fn, sizeof(fn), "vkgen_%s_NegotiateLoaderLayerInterfaceVersion", symbol);
	PFN_vkNegotiateLoaderLayerInterfaceVersion negotiate = (PFN_vkNegotiateLoaderLayerInterfaceVersion)dlsym(h, fn);
	if (!negotiate) {
		fprintf(stderr, "dmprog: no %s entry points\n", symbol);
		exit(1);
	}
	VkNegotiateLayerInterface nli = {LAYER_NEGOTIATE_INTERFACE_STRUCT, NULL, 2};
	CHECK(negotiate(&nli));
	return nli.pfnGetInstanceProcAddr;
}

static int null_infos(const char *lib) {
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "dmprog: %s\n", dlerror());
		return 1;
	}
	const char *symbols[] = {"debugmarker", "memreport", "example"};
	for (int s = 0; s < 3; s++) {
		PFN_vkGetInstanceProcAddr gipa = layer_gipa(h, symbols[s]);
		PFN_vkCreateInstance create = (PFN_vkCreateInstance)gipa(NULL, "vkCreateInstance");
		VkInstance inst = VK_NULL_HANDLE;
		/* No create info: no chain to call down, a clean error. */
		EXPECT(create(NULL, NULL, &inst) == VK_ERROR_INITIALIZATION_FAILED);
		VkLayerInstanceLink link = {NULL, fake_gipa, NULL};
		VkLayerInstanceCreateInfo chain = {VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO, NULL, VK_LAYER_LINK_INFO};
		chain.u.pLayerInfo = &link;
		VkInstanceCreateInfo ici = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, &chain};
		CHECK(create(&ici, NULL, &inst));
		VkPhysicalDevice phys = (VkPhysicalDevice)&fake_phys;
		PFN_vkCreateDevice create_device = (PFN_vkCreateDevice)gipa(inst, "vkCreateDevice");
		VkDevice dev = VK_NULL_HANDLE;
		EXPECT(create_device(phys, NULL, NULL, &dev) == VK_ERROR_INITIALIZATION_FAILED);
		VkLayerDeviceLink dlink = {NULL, fake_gipa, fake_gdpa};
		VkLayerDeviceCreateInfo dchain = {VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO, NULL, VK_LAYER_LINK_INFO};
		dchain.u.pLayerInfo = &dlink;
		VkDeviceCreateInfo dci = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &dchain};
		CHECK(create_device(phys, &dci, NULL, &dev));
		PFN_vkGetDeviceProcAddr gdpa = (PFN_vkGetDeviceProcAddr)gipa(inst, "vkGetDeviceProcAddr");

		/* Naming: forwarded to the fake driver, whose result comes back. */
		PFN_vkSetDebugUtilsObjectNameEXT set_name =
		    (PFN_vkSetDebugUtilsObjectNameEXT)gdpa(dev, "vkSetDebugUtilsObjectNameEXT");
		EXPECT(set_name != NULL);
		fake_name_calls = 0;
		if (set_name) EXPECT(set_name(dev, NULL) == VK_ERROR_VALIDATION_FAILED_EXT && fake_name_calls == 1);
		/* VK_EXT_debug_marker: the DebugMarker layer provides it (nothing
		 * below to call); the others claim nothing and hand out nothing. */
		PFN_vkDebugMarkerSetObjectNameEXT marker_name =
		    (PFN_vkDebugMarkerSetObjectNameEXT)gdpa(dev, "vkDebugMarkerSetObjectNameEXT");
		EXPECT((marker_name != NULL) == (s == 0));
		if (marker_name) EXPECT(marker_name(dev, NULL) == VK_SUCCESS);

		PFN_vkCreateBuffer create_buffer = (PFN_vkCreateBuffer)gdpa(dev, "vkCreateBuffer");
		VkBuffer buf = VK_NULL_HANDLE;
		EXPECT(create_buffer && create_buffer(dev, NULL, NULL, &buf) == VK_SUCCESS);
		PFN_vkAllocateMemory allocate = (PFN_vkAllocateMemory)gdpa(dev, "vkAllocateMemory");
		VkDeviceMemory mem = VK_NULL_HANDLE;
		EXPECT(allocate && allocate(dev, NULL, NULL, &mem) == VK_SUCCESS);
		PFN_vkBindBufferMemory2 bind2 = (PFN_vkBindBufferMemory2)gdpa(dev, "vkBindBufferMemory2");
		EXPECT(bind2 && bind2(dev, 2, NULL) == VK_SUCCESS);
		PFN_vkGetBufferMemoryRequirements2 reqs2 =
		    (PFN_vkGetBufferMemoryRequirements2)gdpa(dev, "vkGetBufferMemoryRequirements2");
		if (reqs2) reqs2(dev, NULL, NULL);

		PFN_vkDestroyDevice destroy_device = (PFN_vkDestroyDevice)gdpa(dev, "vkDestroyDevice");
		destroy_device(dev, NULL);
		PFN_vkDestroyInstance destroy = (PFN_vkDestroyInstance)gipa(inst, "vkDestroyInstance");
		destroy(inst, NULL);
	}
	if (!failures) printf("null ok\n");
	return failures != 0;
}

static int enumeration(const char *lib) {
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "dmprog: %s\n", dlerror());
		return 1;
	}
	PFN_vkGetInstanceProcAddr gipa = layer_gipa(h, "debugmarker");

	/* Global: the layer's own lists, two-call idiom. */
	PFN_vkEnumerateInstanceExtensionProperties iexts =
	    (PFN_vkEnumerateInstanceExtensionProperties)gipa(NULL, "vkEnumerateInstanceExtensionProperties");
	PFN_vkEnumerateInstanceLayerProperties ilayers =
	    (PFN_vkEnumerateInstanceLayerProperties)gipa(NULL, "vkEnumerateInstanceLayerProperties");
	EXPECT(iexts && ilayers);
	if (!iexts || !ilayers) return 1;
	VkExtensionProperties ex[4];
	memset(ex, 0xAB, sizeof(ex));
	uint32_t n = 0;
	EXPECT(iexts(LAYER, &n, NULL) == VK_SUCCESS && n == 2);
	n = 0;
	EXPECT(iexts(LAYER, &n, ex) == VK_INCOMPLETE && n == 0);
	EXPECT((unsigned char)ex[0].extensionName[0] == 0xAB); /* nothing written into a zero-sized array */
	n = 4;
	EXPECT(iexts(LAYER, &n, ex) == VK_SUCCESS && n == 2 && !strcmp(ex[0].extensionName, "VK_EXT_debug_utils") &&
	       ex[0].specVersion == 2 && !strcmp(ex[1].extensionName, "VK_EXT_layer_settings") && ex[1].specVersion == 2);
	n = 4;
	EXPECT(iexts("VK_LAYER_KHRONOS_validation", &n, ex) == VK_ERROR_LAYER_NOT_PRESENT);
	VkLayerProperties lp[2];
	n = 0;
	EXPECT(ilayers(&n, NULL) == VK_SUCCESS && n == 1);
	n = 0;
	EXPECT(ilayers(&n, lp) == VK_INCOMPLETE && n == 0);
	n = 2;
	EXPECT(ilayers(&n, lp) == VK_SUCCESS && n == 1 && !strcmp(lp[0].layerName, LAYER));

	/* An instance over the fake chain. */
	VkLayerInstanceLink link = {NULL, fake_gipa, NULL};
	VkLayerInstanceCreateInfo chain = {VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO, NULL, VK_LAYER_LINK_INFO};
	chain.u.pLayerInfo = &link;
	VkInstanceCreateInfo ici = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, &chain};
	PFN_vkCreateInstance create = (PFN_vkCreateInstance)gipa(NULL, "vkCreateInstance");
	VkInstance inst = VK_NULL_HANDLE;
	CHECK(create(&ici, NULL, &inst));
	VkPhysicalDevice phys = (VkPhysicalDevice)&fake_phys;
	PFN_vkEnumerateDeviceExtensionProperties dexts =
	    (PFN_vkEnumerateDeviceExtensionProperties)gipa(inst, "vkEnumerateDeviceExtensionProperties");
	PFN_vkEnumerateDeviceLayerProperties dlayers =
	    (PFN_vkEnumerateDeviceLayerProperties)gipa(inst, "vkEnumerateDeviceLayerProperties");
	EXPECT(dexts && dlayers && (void *)dexts != (void *)fake_enum_dev_exts);
	if (!dexts || !dlayers) return 1;

	/* Own name: answered by the layer, never forwarded. */
	seen_layer = "unset";
	n = 0;
	EXPECT(dexts(phys, LAYER, &n, NULL) == VK_SUCCESS && n == 1);
	n = 0;
	EXPECT(dexts(phys, LAYER, &n, ex) == VK_INCOMPLETE && n == 0);
	n = 1;
	EXPECT(dexts(phys, LAYER, &n, ex) == VK_SUCCESS && n == 1 && !strcmp(ex[0].extensionName, "VK_EXT_debug_marker") &&
	       ex[0].specVersion == 4);
	EXPECT(seen_layer && !strcmp(seen_layer, "unset"));
	/* Another layer's name: forwarded unchanged (same pointers, same count),
	 * its result returned as is. */
	const char *other = "VK_LAYER_KHRONOS_validation";
	n = 3;
	EXPECT(dexts(phys, other, &n, ex) == VK_ERROR_LAYER_NOT_PRESENT);
	EXPECT(seen_layer == other && seen_count == 3 && seen_props == ex);
	/* No name: the chain below answers, two-call idiom preserved. */
	n = 0;
	EXPECT(dexts(phys, NULL, &n, NULL) == VK_SUCCESS && n == 2 && seen_layer == NULL);
	n = 1;
	EXPECT(dexts(phys, NULL, &n, ex) == VK_INCOMPLETE && n == 1 && !strcmp(ex[0].extensionName, "VK_KHR_fake_one"));
	n = 0;
	EXPECT(dlayers(phys, &n, NULL) == VK_SUCCESS && n == 1);
	n = 0;
	EXPECT(dlayers(phys, &n, lp) == VK_INCOMPLETE && n == 0);

	PFN_vkDestroyInstance destroy = (PFN_vkDestroyInstance)gipa(inst, "vkDestroyInstance");
	destroy(inst, NULL);
	if (!failures) printf("enum ok\n");
	return failures != 0;
}

int main(int argc, char **argv) {
	vkc_prog = "dmprog";
	const char *settings = NULL, *late = NULL, *lib = NULL, *null_lib = NULL;
	int use_messenger = 0, null_info = 0, instance_name = 1;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--settings") && i + 1 < argc)
			settings = argv[++i];
		else if (!strcmp(argv[i], "--late-trace") && i + 1 < argc)
			late = argv[++i];
		else if (!strcmp(argv[i], "--messenger"))
			use_messenger = 1;
		else if (!strcmp(argv[i], "--null-info"))
			null_info = 1;
		else if (!strcmp(argv[i], "--no-instance-name"))
			instance_name = 0;
		else if (!strcmp(argv[i], "--enum") && i + 1 < argc)
			lib = argv[++i];
		else if (!strcmp(argv[i], "--null") && i + 1 < argc)
			null_lib = argv[++i];
		else {
			fprintf(stderr, "usage: dmprog [--settings FILE --late-trace PATH] [--messenger] [--null-info] [--no-instance-name] | --enum LIBRARY | --null LIBRARY\n");
			return 2;
		}
	}
	if (null_lib) return null_infos(null_lib);
	return lib ? enumeration(lib) : scenario(settings, late, use_messenger, null_info, instance_name);
}
