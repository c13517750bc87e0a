/* vkcommon: setup and helpers shared by the project's C Vulkan programs
 * (testdata/vkprog, layer/debugmarker/testdata/dmprog, demo/demo). Compile
 * vkcommon.c with the program and -I testdata/vkcommon; the program sets
 * vkc_prog to its name, which prefixes every message written here. */
#ifndef VKCOMMON_H
#define VKCOMMON_H

#include <vulkan/vulkan.h>

extern const char *vkc_prog;
/* Validation messages and errors seen by vkc_on_message. */
extern int vkc_messages;

/* Logs every message on stderr. The loader reports its own notes (e.g. about
 * VK_INSTANCE_LAYERS) as general warnings, so only validation messages and
 * errors are counted. */
VKAPI_ATTR VkBool32 VKAPI_CALL vkc_on_message(VkDebugUtilsMessageSeverityFlagBitsEXT sev,
                                              VkDebugUtilsMessageTypeFlagsEXT type,
                                              const VkDebugUtilsMessengerCallbackDataEXT *data, void *user);

/* A messenger create info for warnings and errors of the given types,
 * calling vkc_on_message. */
VkDebugUtilsMessengerCreateInfoEXT vkc_messenger_info(VkDebugUtilsMessageTypeFlagsEXT types);

/* Exits with status 1 and "PROG: EXPR failed: R (line N)" unless r is VK_SUCCESS. */
void vkc_check(VkResult r, const char *expr, int line);
#define CHECK(expr) vkc_check((expr), #expr, __LINE__)

/* Thread CPU time in ns, for the programs' --bench modes. */
double vkc_now_ns(void);

/* An instance (API 1.1) with VK_EXT_debug_utils and the n_exts extensions
 * exts, whose create info chains pnext (NULL for none). */
VkInstance vkc_create_instance(const char *app_name, const void *pnext, uint32_t n_exts, const char *const *exts);

/* dev's vkSetDebugUtilsObjectNameEXT; exits with a message if unavailable. */
PFN_vkSetDebugUtilsObjectNameEXT vkc_set_name_fn(VkDevice dev);

/* The first physical device; exits with "PROG: no physical device" if none. */
VkPhysicalDevice vkc_physical_device(VkInstance inst);

/* A device with one queue of family 0 and the given extensions. */
VkDevice vkc_create_device(VkPhysicalDevice phys, uint32_t n_exts, const char *const *exts);

/* A 1 KiB transfer-source buffer and a 16x16 RGBA8 sampled image. */
VkBuffer vkc_create_buffer(VkDevice dev);
VkImage vkc_create_image(VkDevice dev);

#endif
