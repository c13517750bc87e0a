#include "vkcommon.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

const char *vkc_prog = "vkcommon";
int vkc_messages;

VKAPI_ATTR VkBool32 VKAPI_CALL vkc_on_message(VkDebugUtilsMessageSeverityFlagBitsEXT sev,
                                              VkDebugUtilsMessageTypeFlagsEXT type,
                                              const VkDebugUtilsMessengerCallbackDataEXT *data, void *user) {
	(void)user;
	if ((type & VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT) || sev >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)
		vkc_messages++;
	fprintf(stderr, "%s: message (severity %#x): %s\n", vkc_prog, (unsigned)sev,
	        data && data->pMessage ? data->pMessage : "");
	return VK_FALSE;
}

VkDebugUtilsMessengerCreateInfoEXT vkc_messenger_info(VkDebugUtilsMessageTypeFlagsEXT types) {
	VkDebugUtilsMessengerCreateInfoEXT mci = {VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
	mci.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
	mci.messageType = types;
	mci.pfnUserCallback = vkc_on_message;
	return mci;
}

void vkc_check(VkResult r, const char *expr, int line) {
	if (r != VK_SUCCESS) {
		fprintf(stderr, "%s: %s failed: %d (line %d)\n", vkc_prog, expr, r, line);
		exit(1);
	}
}

double vkc_now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

VkInstance vkc_create_instance(const char *app_name, const void *pnext, uint32_t n_exts, const char *const *exts) {
	const char *all[16] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
	uint32_t n = 1;
	for (uint32_t i = 0; i < n_exts && n < 16; i++) all[n++] = exts[i];
	VkApplicationInfo app = {VK_STRUCTURE_TYPE_APPLICATION_INFO, NULL, app_name, 1, "vkgen", 1, VK_API_VERSION_1_1};
	VkInstanceCreateInfo ici = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
	ici.pNext = pnext;
	ici.pApplicationInfo = &app;
	ici.enabledExtensionCount = n;
	ici.ppEnabledExtensionNames = all;
	VkInstance inst;
	CHECK(vkCreateInstance(&ici, NULL, &inst));
	return inst;
}

PFN_vkSetDebugUtilsObjectNameEXT vkc_set_name_fn(VkDevice dev) {
	PFN_vkSetDebugUtilsObjectNameEXT f =
	    (PFN_vkSetDebugUtilsObjectNameEXT)vkGetDeviceProcAddr(dev, "vkSetDebugUtilsObjectNameEXT");
	if (!f) {
		fprintf(stderr, "%s: vkSetDebugUtilsObjectNameEXT unavailable\n", vkc_prog);
		exit(1);
	}
	return f;
}

VkPhysicalDevice vkc_physical_device(VkInstance inst) {
	uint32_t n = 1;
	VkPhysicalDevice phys;
	VkResult r = vkEnumeratePhysicalDevices(inst, &n, &phys);
	if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || n == 0) {
		fprintf(stderr, "%s: no physical device\n", vkc_prog);
		exit(1);
	}
	return phys;
}

VkDevice vkc_create_device(VkPhysicalDevice phys, uint32_t n_exts, const char *const *exts) {
	float prio = 1.0f;
	VkDeviceQueueCreateInfo qci = {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, NULL, 0, 0, 1, &prio};
	VkDeviceCreateInfo dci = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
	dci.queueCreateInfoCount = 1;
	dci.pQueueCreateInfos = &qci;
	dci.enabledExtensionCount = n_exts;
	dci.ppEnabledExtensionNames = n_exts ? exts : NULL;
	VkDevice dev;
	CHECK(vkCreateDevice(phys, &dci, NULL, &dev));
	return dev;
}

VkBuffer vkc_create_buffer(VkDevice dev) {
	VkBufferCreateInfo bci = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
	bci.size = 1024;
	bci.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
	VkBuffer b;
	CHECK(vkCreateBuffer(dev, &bci, NULL, &b));
	return b;
}

VkImage vkc_create_image(VkDevice dev) {
	VkImageCreateInfo imci = {VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
	imci.imageType = VK_IMAGE_TYPE_2D;
	imci.format = VK_FORMAT_R8G8B8A8_UNORM;
	imci.extent = (VkExtent3D){16, 16, 1};
	imci.mipLevels = 1;
	imci.arrayLayers = 1;
	imci.samples = VK_SAMPLE_COUNT_1_BIT;
	imci.tiling = VK_IMAGE_TILING_OPTIMAL;
	imci.usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
	imci.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
	VkImage img;
	CHECK(vkCreateImage(dev, &imci, NULL, &img));
	return img;
}
