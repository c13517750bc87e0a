/*
 * Building the VkDeviceCreateInfo the DeviceMemoryReport layer passes down:
 * a copy of the application's, never the application's structs themselves.
 * Pure C with no layer state, so a plain C test program can exercise it
 * (testdata/createinfo_test.c).
 */
#ifndef MEMREPORT_CREATEINFO_H
#define MEMREPORT_CREATEINFO_H

#include <stdint.h>
#include <vulkan/vulkan.h>

/* One vkCreateDevice call's private copy; freed after the call returns
 * (drivers copy what they keep, the callback pointer and its user data). */
struct memreport_create {
	VkDeviceCreateInfo ci;
	VkDeviceDeviceMemoryReportCreateInfoEXT report;
	VkPhysicalDeviceDeviceMemoryReportFeaturesEXT features;
	uint64_t token;   /* the accounting engine's device key, also pUserData */
	int callback;     /* 1: the report callback is chained into ci */
	const char *exts[]; /* enabled extension names when one was appended */
};

/* Returns a copy of app whose pNext chain starts with a
 * VkDeviceDeviceMemoryReportCreateInfoEXT(cb, token) and, unless the
 * application already enabled it, the deviceMemoryReport feature, and whose
 * extension list contains VK_EXT_device_memory_report, when use_callback is
 * set and that can be done without changing the application's structs (an
 * application feature struct with deviceMemoryReport = VK_FALSE cannot be
 * overridden: a second one would be invalid). Otherwise the copy equals app
 * and ->callback is 0. The application's own report callbacks stay in the
 * chain. NULL only when out of memory. */
struct memreport_create *memreport_build_create_info(const VkDeviceCreateInfo *app, int use_callback, uint64_t token,
                                                     PFN_vkDeviceMemoryReportCallbackEXT cb);

#endif
