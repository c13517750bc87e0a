/* Audit fixture in the shape of 1.0-era code that sizes an array by the
 * header's range sentinel and fills it by position, so element i is the row
 * for debug-report value i. Planted: position 7 (FENCE) holds EVENT. The
 * last core value (COMMAND_POOL, 25) is the array's end: extension values
 * cannot be reached by position and are reported missing at the end. */
#include <vulkan/vulkan.h>

static const VkObjectType kObjectTypeOf[VK_DEBUG_REPORT_OBJECT_TYPE_RANGE_SIZE_EXT] = {
    VK_OBJECT_TYPE_UNKNOWN,
    VK_OBJECT_TYPE_INSTANCE,
    VK_OBJECT_TYPE_PHYSICAL_DEVICE,
    VK_OBJECT_TYPE_DEVICE,
    VK_OBJECT_TYPE_QUEUE,
    VK_OBJECT_TYPE_SEMAPHORE,
    VK_OBJECT_TYPE_COMMAND_BUFFER,
    VK_OBJECT_TYPE_EVENT,
    VK_OBJECT_TYPE_DEVICE_MEMORY,
    VK_OBJECT_TYPE_BUFFER,
    VK_OBJECT_TYPE_IMAGE,
    VK_OBJECT_TYPE_EVENT,
    VK_OBJECT_TYPE_QUERY_POOL,
    VK_OBJECT_TYPE_BUFFER_VIEW,
    VK_OBJECT_TYPE_IMAGE_VIEW,
    VK_OBJECT_TYPE_SHADER_MODULE,
    VK_OBJECT_TYPE_PIPELINE_CACHE,
    VK_OBJECT_TYPE_PIPELINE_LAYOUT,
    VK_OBJECT_TYPE_RENDER_PASS,
    VK_OBJECT_TYPE_PIPELINE,
    VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT,
    VK_OBJECT_TYPE_SAMPLER,
    VK_OBJECT_TYPE_DESCRIPTOR_POOL,
    VK_OBJECT_TYPE_DESCRIPTOR_SET,
    VK_OBJECT_TYPE_FRAMEBUFFER,
    VK_OBJECT_TYPE_COMMAND_POOL,
};
