// Audit fixture in the shape of a validation layer's generated lookup
// arrays: indexed by the layer's own object-type enum, not by either Vulkan
// enum, so they are no debug-report <-> object-type table and give no rows.
#include <vulkan/vulkan.h>

enum LayerObjectType { kLayerUnknown, kLayerBuffer, kLayerImage, kLayerInstance, kLayerMax };

static const VkDebugReportObjectTypeEXT kReportOf[kLayerMax] = {
    VK_DEBUG_REPORT_OBJECT_TYPE_UNKNOWN_EXT,   // kLayerUnknown
    VK_DEBUG_REPORT_OBJECT_TYPE_BUFFER_EXT,    // kLayerBuffer
    VK_DEBUG_REPORT_OBJECT_TYPE_IMAGE_EXT,     // kLayerImage
    VK_DEBUG_REPORT_OBJECT_TYPE_INSTANCE_EXT,  // kLayerInstance
};

static const VkObjectType kCoreOf[kLayerMax] = {
    VK_OBJECT_TYPE_UNKNOWN, VK_OBJECT_TYPE_BUFFER, VK_OBJECT_TYPE_IMAGE, VK_OBJECT_TYPE_INSTANCE,
};

VkObjectType layerToCore(LayerObjectType t) {
    switch (t) {
    case kLayerBuffer: return VK_OBJECT_TYPE_BUFFER;
    case kLayerImage: return VK_OBJECT_TYPE_IMAGE;
    default: return kCoreOf[t];
    }
}
