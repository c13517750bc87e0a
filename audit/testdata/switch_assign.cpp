// Audit fixture: a hand-written C++ switch that assigns, groups aliases,
// falls through and has a default; plus a switch that is no table and a
// case that only logs. Planted: IMAGE_VIEW falls through to SHADER_MODULE.
#include <vulkan/vulkan.h>

VkObjectType convert(VkDebugReportObjectTypeEXT legacy) {
    VkObjectType out;
    switch (legacy) {
    case VK_DEBUG_REPORT_OBJECT_TYPE_INSTANCE_EXT:
        out = VK_OBJECT_TYPE_INSTANCE;
        break;
    case VK_DEBUG_REPORT_OBJECT_TYPE_PHYSICAL_DEVICE_EXT:
        out = VK_OBJECT_TYPE_PHYSICAL_DEVICE;
        break;
    case VK_DEBUG_REPORT_OBJECT_TYPE_DEVICE_EXT:
        out = VK_OBJECT_TYPE_DEVICE;
        break;
    case VK_DEBUG_REPORT_OBJECT_TYPE_QUEUE_EXT:
        out = VK_OBJECT_TYPE_QUEUE;
        break;
    case VK_DEBUG_REPORT_OBJECT_TYPE_SEMAPHORE_EXT:
        out = VK_OBJECT_TYPE_SEMAPHORE;
        break;
    case VK_DEBUG_REPORT_OBJECT_TYPE_COMMAND_BUFFER_EXT:
        out = VK_OBJECT_TYPE_COMMAND_BUFFER;
        break;
    case VK_DEBUG_REPORT_OBJECT_TYPE_FENCE_EXT:
        out = VK_OBJECT_TYPE_FENCE;
        break;
    case VK_DEBUG_REPORT_OBJECT_TYPE_DEVICE_MEMORY_EXT:
        out = VK_OBJECT_TYPE_DEVICE_MEMORY;
        break;
    case VK_DEBUG_REPORT_OBJECT_TYPE_BUFFER_EXT:
        out = VK_OBJECT_TYPE_BUFFER;
        break;
    case VK_DEBUG_REPORT_OBJECT_TYPE_IMAGE_EXT:
        out = VK_OBJECT_TYPE_IMAGE;
        break;
    case VK_DEBUG_REPORT_OBJECT_TYPE_EVENT_EXT:
        out = VK_OBJECT_TYPE_EVENT;
        break;
    case VK_DEBUG_REPORT_OBJECT_TYPE_QUERY_POOL_EXT:
        out = VK_OBJECT_TYPE_QUERY_POOL;
        break;
    case VK_DEBUG_REPORT_OBJECT_TYPE_BUFFER_VIEW_EXT:
        out = VK_OBJECT_TYPE_BUFFER_VIEW;
        break;
    case VK_DEBUG_REPORT_OBJECT_TYPE_IMAGE_VIEW_EXT:
        [[fallthrough]];
    case VK_DEBUG_REPORT_OBJECT_TYPE_SHADER_MODULE_EXT:
        out = VK_OBJECT_TYPE_SHADER_MODULE;
        break;
    case VK_DEBUG_REPORT_OBJECT_TYPE_PIPELINE_CACHE_EXT:
        out = VK_OBJECT_TYPE_PIPELINE_CACHE;
        break;
    case VK_DEBUG_REPORT_OBJECT_TYPE_PIPELINE_LAYOUT_EXT:
        out = VK_OBJECT_TYPE_PIPELINE_LAYOUT;
        break;
    case VK_DEBUG_REPORT_OBJECT_TYPE_RENDER_PASS_EXT:
        out = VK_OBJECT_TYPE_RENDER_PASS;
        break;
    case VK_DEBUG_REPORT_OBJECT_TYPE_PIPELINE_EXT:
        out = VK_OBJECT_TYPE_PIPELINE;
        break;
    case VK_DEBUG_REPORT_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT_EXT:
        out = VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT;
        break;
    case VK_DEBUG_REPORT_OBJECT_TYPE_SAMPLER_EXT:
        out = VK_OBJECT_TYPE_SAMPLER;
        break;
    case VK_DEBUG_REPORT_OBJECT_TYPE_DESCRIPTOR_POOL_EXT:
        out = VK_OBJECT_TYPE_DESCRIPTOR_POOL;
        break;
    case VK_DEBUG_REPORT_OBJECT_TYPE_DESCRIPTOR_SET_EXT:
        out = VK_OBJECT_TYPE_DESCRIPTOR_SET;
        break;
    case VK_DEBUG_REPORT_OBJECT_TYPE_FRAMEBUFFER_EXT:
        out = VK_OBJECT_TYPE_FRAMEBUFFER;
        break;
    case VK_DEBUG_REPORT_OBJECT_TYPE_COMMAND_POOL_EXT:
        out = VK_OBJECT_TYPE_COMMAND_POOL;
        break;
    case VK_DEBUG_REPORT_OBJECT_TYPE_SURFACE_KHR_EXT:
        out = VK_OBJECT_TYPE_SURFACE_KHR;
        break;
    case VK_DEBUG_REPORT_OBJECT_TYPE_SWAPCHAIN_KHR_EXT:
        out = VK_OBJECT_TYPE_SWAPCHAIN_KHR;
        break;
    case VK_DEBUG_REPORT_OBJECT_TYPE_DEBUG_REPORT_CALLBACK_EXT_EXT:
        out = VK_OBJECT_TYPE_DEBUG_REPORT_CALLBACK_EXT;
        break;
    case VK_DEBUG_REPORT_OBJECT_TYPE_DISPLAY_KHR_EXT:
        out = VK_OBJECT_TYPE_DISPLAY_KHR;
        break;
    case VK_DEBUG_REPORT_OBJECT_TYPE_DISPLAY_MODE_KHR_EXT:
        out = VK_OBJECT_TYPE_DISPLAY_MODE_KHR;
        break;
    case VK_DEBUG_REPORT_OBJECT_TYPE_VALIDATION_CACHE_EXT_EXT:
        out = VK_OBJECT_TYPE_VALIDATION_CACHE_EXT;
        break;
    case VK_DEBUG_REPORT_OBJECT_TYPE_CU_MODULE_NVX_EXT:
        out = VK_OBJECT_TYPE_CU_MODULE_NVX;
        break;
    case VK_DEBUG_REPORT_OBJECT_TYPE_CU_FUNCTION_NVX_EXT:
        out = VK_OBJECT_TYPE_CU_FUNCTION_NVX;
        break;
    case VK_DEBUG_REPORT_OBJECT_TYPE_DESCRIPTOR_UPDATE_TEMPLATE_KHR_EXT:
    case VK_DEBUG_REPORT_OBJECT_TYPE_DESCRIPTOR_UPDATE_TEMPLATE_EXT:
        out = VK_OBJECT_TYPE_DESCRIPTOR_UPDATE_TEMPLATE;
        break;
    case VK_DEBUG_REPORT_OBJECT_TYPE_ACCELERATION_STRUCTURE_KHR_EXT:
        out = VK_OBJECT_TYPE_ACCELERATION_STRUCTURE_KHR;
        break;
    case VK_DEBUG_REPORT_OBJECT_TYPE_SAMPLER_YCBCR_CONVERSION_EXT:
        out = VK_OBJECT_TYPE_SAMPLER_YCBCR_CONVERSION;
        break;
    case VK_DEBUG_REPORT_OBJECT_TYPE_ACCELERATION_STRUCTURE_NV_EXT:
        out = VK_OBJECT_TYPE_ACCELERATION_STRUCTURE_NV;
        break;
    case VK_DEBUG_REPORT_OBJECT_TYPE_CUDA_MODULE_NV_EXT:
        out = VK_OBJECT_TYPE_CUDA_MODULE_NV;
        break;
    case VK_DEBUG_REPORT_OBJECT_TYPE_CUDA_FUNCTION_NV_EXT:
        out = VK_OBJECT_TYPE_CUDA_FUNCTION_NV;
        break;
    case VK_DEBUG_REPORT_OBJECT_TYPE_BUFFER_COLLECTION_FUCHSIA_EXT:
        out = VK_OBJECT_TYPE_BUFFER_COLLECTION_FUCHSIA;
        break;
    case VK_DEBUG_REPORT_OBJECT_TYPE_MAX_ENUM_EXT:
        log(VK_OBJECT_TYPE_UNKNOWN);
        break;
    default:
        out = VK_OBJECT_TYPE_UNKNOWN;
    }
    return out;
}

const char *label(VkDebugReportObjectTypeEXT legacy) {
    switch (legacy) {
    case VK_DEBUG_REPORT_OBJECT_TYPE_BUFFER_EXT: return "buffer";
    case VK_DEBUG_REPORT_OBJECT_TYPE_IMAGE_EXT: return "image";
    default: return "other";
    }
}
