/* settingsprog: configures the vkgen layers through VK_EXT_layer_settings
 * (real loader). Usage: settingsprog LAYER TRACE_FILE
 * It checks that LAYER advertises VK_EXT_layer_settings, creates an instance
 * whose create info chains a VkLayerSettingsCreateInfoEXT giving LAYER's
 * trace_file = TRACE_FILE, a trace_buffer_kb of the wrong type and an unknown
 * setting, then names one buffer "settings.buffer" and destroys everything.
 * Debian 12's headers predate the extension, so its types are declared here
 * (layouts and values from the Vulkan registry). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vkcommon.h"

#define STYPE_LAYER_SETTINGS_CREATE_INFO ((VkStructureType)1000496000)
enum { SETTING_TYPE_BOOL32 = 0, SETTING_TYPE_STRING = 7 };

typedef struct {
	const char *pLayerName;
	const char *pSettingName;
	int32_t type;
	uint32_t valueCount;
	const void *pValues;
} LayerSetting;

typedef struct {
	VkStructureType sType;
	const void *pNext;
	uint32_t settingCount;
	const LayerSetting *pSettings;
} LayerSettingsCreateInfo;

static int advertises(const char *layer) {
	uint32_t n = 0;
	CHECK(vkEnumerateInstanceExtensionProperties(layer, &n, NULL));
	VkExtensionProperties *props = calloc(n, sizeof *props);
	CHECK(vkEnumerateInstanceExtensionProperties(layer, &n, props));
	int found = 0;
	for (uint32_t i = 0; i < n; i++) found |= !strcmp(props[i].extensionName, "VK_EXT_layer_settings");
	free(props);
	return found;
}

int main(int argc, char **argv) {
	vkc_prog = "settingsprog";
	if (argc != 3) {
		fprintf(stderr, "usage: settingsprog LAYER TRACE_FILE\n");
		return 2;
	}
	const char *layer = argv[1], *trace = argv[2];
	if (!advertises(layer)) {
		fprintf(stderr, "settingsprog: %s does not advertise VK_EXT_layer_settings\n", layer);
		return 1;
	}
	VkBool32 yes = VK_TRUE;
	const LayerSetting settings[] = {
		{layer, "trace_file", SETTING_TYPE_STRING, 1, &trace},
		{layer, "trace_buffer_kb", SETTING_TYPE_BOOL32, 1, &yes},
		{layer, "no_such_setting", SETTING_TYPE_BOOL32, 1, &yes},
	};
	LayerSettingsCreateInfo lsci = {STYPE_LAYER_SETTINGS_CREATE_INFO, NULL, 3, settings};
	/* Chained without enabling VK_EXT_layer_settings: loaders older than the
	 * extension (Debian 12's 1.3.239) refuse to enable an extension they do
	 * not know, and layers read the structure either way. */
	VkInstance inst = vkc_create_instance("settingsprog", &lsci, 0, NULL);
	VkDevice dev = vkc_create_device(vkc_physical_device(inst), 0, NULL);
	VkBuffer buf = vkc_create_buffer(dev);
	VkDebugUtilsObjectNameInfoEXT ni = {VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT, NULL,
	                                    VK_OBJECT_TYPE_BUFFER, (uint64_t)buf, "settings.buffer"};
	CHECK(vkc_set_name_fn(dev)(dev, &ni));
	vkDestroyBuffer(dev, buf, NULL);
	vkDestroyDevice(dev, NULL);
	vkDestroyInstance(inst, NULL);
	printf("settings ok\n");
	return 0;
}
