/* Checks memreport_build_create_info (createinfo.c) without a loader:
 * built and run by createinfo_test.go. Prints one line per failure and
 * exits 1 if any. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../createinfo.h"

static int failures;
#define EXPECT(cond)                                                   \
	do {                                                               \
		if (!(cond)) {                                                 \
			printf("FAIL line %d: %s\n", __LINE__, #cond);             \
			failures++;                                                \
		}                                                              \
	} while (0)

static void VKAPI_PTR cb(const VkDeviceMemoryReportCallbackDataEXT *d, void *u) {
	(void)d;
	(void)u;
}
static void VKAPI_PTR app_cb(const VkDeviceMemoryReportCallbackDataEXT *d, void *u) {
	(void)d;
	(void)u;
}

static const void *find(const void *chain, VkStructureType t, int *count) {
	const void *found = NULL;
	*count = 0;
	for (const VkBaseInStructure *s = chain; s; s = s->pNext)
		if (s->sType == t) {
			if (!found) found = s;
			(*count)++;
		}
	return found;
}

static int has_ext(const VkDeviceCreateInfo *ci, int *count) {
	*count = 0;
	for (uint32_t i = 0; i < ci->enabledExtensionCount; i++)
		if (!strcmp(ci->ppEnabledExtensionNames[i], VK_EXT_DEVICE_MEMORY_REPORT_EXTENSION_NAME)) (*count)++;
	return *count > 0;
}

int main(void) {
	const char *exts[] = {"VK_KHR_swapchain", "VK_EXT_debug_marker"};
	VkDeviceCreateInfo app = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
	app.enabledExtensionCount = 2;
	app.ppEnabledExtensionNames = exts;
	VkDeviceCreateInfo saved = app;
	int n;

	/* Driver lacks the extension: an unchanged copy. */
	struct memreport_create *mc = memreport_build_create_info(&app, 0, 5, cb);
	EXPECT(mc && !mc->callback && memcmp(&mc->ci, &app, sizeof(app)) == 0);
	free(mc);

	/* Plain application: extension appended, report and feature chained. */
	mc = memreport_build_create_info(&app, 1, 5, cb);
	EXPECT(mc && mc->callback);
	EXPECT(mc->ci.enabledExtensionCount == 3 && has_ext(&mc->ci, &n) && n == 1);
	EXPECT(!strcmp(mc->ci.ppEnabledExtensionNames[0], "VK_KHR_swapchain"));
	const VkDeviceDeviceMemoryReportCreateInfoEXT *r =
	    find(mc->ci.pNext, VK_STRUCTURE_TYPE_DEVICE_DEVICE_MEMORY_REPORT_CREATE_INFO_EXT, &n);
	EXPECT(r && n == 1 && r->pfnUserCallback == cb && r->pUserData == (void *)5 && r->flags == 0);
	const VkPhysicalDeviceDeviceMemoryReportFeaturesEXT *f =
	    find(mc->ci.pNext, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DEVICE_MEMORY_REPORT_FEATURES_EXT, &n);
	EXPECT(f && n == 1 && f->deviceMemoryReport == VK_TRUE);
	EXPECT(memcmp(&app, &saved, sizeof(app)) == 0 && app.ppEnabledExtensionNames == exts && exts[1][7] == 'd');
	free(mc);

	/* The application enabled it itself, with its own callback and the
	 * feature inside a VkPhysicalDeviceFeatures2 chain: both callbacks, one
	 * feature struct, one extension name, the application's list reused. */
	const char *exts2[] = {VK_EXT_DEVICE_MEMORY_REPORT_EXTENSION_NAME};
	VkPhysicalDeviceDeviceMemoryReportFeaturesEXT appfeat = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DEVICE_MEMORY_REPORT_FEATURES_EXT, NULL, VK_TRUE};
	VkPhysicalDeviceFeatures2 f2 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &appfeat};
	VkDeviceDeviceMemoryReportCreateInfoEXT appcb = {VK_STRUCTURE_TYPE_DEVICE_DEVICE_MEMORY_REPORT_CREATE_INFO_EXT, &f2, 0, app_cb, (void *)99};
	VkDeviceCreateInfo app2 = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &appcb};
	app2.enabledExtensionCount = 1;
	app2.ppEnabledExtensionNames = exts2;
	mc = memreport_build_create_info(&app2, 1, 6, cb);
	EXPECT(mc && mc->callback && mc->ci.ppEnabledExtensionNames == exts2 && mc->ci.enabledExtensionCount == 1);
	find(mc->ci.pNext, VK_STRUCTURE_TYPE_DEVICE_DEVICE_MEMORY_REPORT_CREATE_INFO_EXT, &n);
	EXPECT(n == 2);
	find(mc->ci.pNext, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DEVICE_MEMORY_REPORT_FEATURES_EXT, &n);
	EXPECT(n == 1);
	EXPECT(((const VkDeviceDeviceMemoryReportCreateInfoEXT *)mc->ci.pNext)->pNext == &appcb);
	EXPECT(appcb.pNext == &f2 && f2.pNext == &appfeat && app2.pNext == &appcb);
	free(mc);

	/* The application chained the feature as VK_FALSE: it cannot be
	 * overridden without touching its struct, so no callback. */
	appfeat.deviceMemoryReport = VK_FALSE;
	mc = memreport_build_create_info(&app2, 1, 7, cb);
	EXPECT(mc && !mc->callback && memcmp(&mc->ci, &app2, sizeof(app2)) == 0);
	free(mc);

	/* No create info, no callback function: harmless. */
	mc = memreport_build_create_info(NULL, 1, 8, cb);
	EXPECT(mc && !mc->callback && mc->token == 8);
	free(mc);
	mc = memreport_build_create_info(&app, 1, 9, NULL);
	EXPECT(mc && !mc->callback);
	free(mc);

	printf("%d failures\n", failures);
	return failures != 0;
}
