#include "createinfo.h"

#include <stdlib.h>
#include <string.h>

/* The feature struct in the application's chain, if any. */
static const VkPhysicalDeviceDeviceMemoryReportFeaturesEXT *app_features(const VkDeviceCreateInfo *app) {
	for (const VkBaseInStructure *s = app->pNext; s; s = s->pNext)
		if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DEVICE_MEMORY_REPORT_FEATURES_EXT)
			return (const VkPhysicalDeviceDeviceMemoryReportFeaturesEXT *)s;
	return NULL;
}

struct memreport_create *memreport_build_create_info(const VkDeviceCreateInfo *app, int use_callback, uint64_t token,
                                                     PFN_vkDeviceMemoryReportCallbackEXT cb) {
	if (!app || !cb) use_callback = 0;
	const VkPhysicalDeviceDeviceMemoryReportFeaturesEXT *feat = app ? app_features(app) : NULL;
	if (feat && !feat->deviceMemoryReport) use_callback = 0;
	uint32_t n = app && app->ppEnabledExtensionNames ? app->enabledExtensionCount : 0;
	int have_ext = 0;
	for (uint32_t i = 0; i < n; i++)
		if (app->ppEnabledExtensionNames[i] &&
		    strcmp(app->ppEnabledExtensionNames[i], VK_EXT_DEVICE_MEMORY_REPORT_EXTENSION_NAME) == 0)
			have_ext = 1;
	int add_ext = use_callback && !have_ext;
	struct memreport_create *mc = calloc(1, sizeof(*mc) + (add_ext ? (n + 1) * sizeof(const char *) : 0));
	if (!mc) return NULL;
	mc->token = token;
	if (app) mc->ci = *app;
	if (!use_callback) return mc;

	if (add_ext) {
		for (uint32_t i = 0; i < n; i++) mc->exts[i] = app->ppEnabledExtensionNames[i];
		mc->exts[n] = VK_EXT_DEVICE_MEMORY_REPORT_EXTENSION_NAME;
		mc->ci.enabledExtensionCount = n + 1;
		mc->ci.ppEnabledExtensionNames = mc->exts;
	}
	const void *rest = app->pNext;
	if (!feat) {
		mc->features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DEVICE_MEMORY_REPORT_FEATURES_EXT;
		mc->features.pNext = (void *)rest;
		mc->features.deviceMemoryReport = VK_TRUE;
		rest = &mc->features;
	}
	mc->report.sType = VK_STRUCTURE_TYPE_DEVICE_DEVICE_MEMORY_REPORT_CREATE_INFO_EXT;
	mc->report.pNext = rest;
	mc->report.flags = 0;
	mc->report.pfnUserCallback = cb;
	mc->report.pUserData = (void *)(uintptr_t)token;
	mc->ci.pNext = &mc->report;
	mc->callback = 1;
	return mc;
}
