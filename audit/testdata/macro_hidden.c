/* Audit fixture in the shape of an engine's utility header that builds a
 * reverse switch from a token-pasting macro: the rows exist only after
 * preprocessing, so vkgen reports no table and names the macro. */
#include <vulkan/vulkan.h>

#define OBJ_CASE(name) \
    case VK_OBJECT_TYPE_##name: return VK_DEBUG_REPORT_OBJECT_TYPE_##name##_EXT;

static inline VkDebugReportObjectTypeEXT to_debug_report(VkObjectType type) {
    switch (type) {
        OBJ_CASE(UNKNOWN)
        OBJ_CASE(INSTANCE)
        OBJ_CASE(PHYSICAL_DEVICE)
        OBJ_CASE(DEVICE)
        OBJ_CASE(BUFFER)
        OBJ_CASE(IMAGE)
    default:
        return VK_DEBUG_REPORT_OBJECT_TYPE_UNKNOWN_EXT;
    }
}
