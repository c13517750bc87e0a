// Audit fixture: a naming helper that passes both enumerants to a call
// for each handle type. No table: call arguments are not rows.
#include <vulkan/vulkan.h>

void setName(uint64_t handle, VkDebugReportObjectTypeEXT legacy, VkObjectType type, const char *name);

void nameAll(const Objects &o) {
    setName((uint64_t)o.buffer, VK_DEBUG_REPORT_OBJECT_TYPE_BUFFER_EXT, VK_OBJECT_TYPE_BUFFER, "buffer");
    setName((uint64_t)o.image, VK_DEBUG_REPORT_OBJECT_TYPE_IMAGE_EXT, VK_OBJECT_TYPE_IMAGE, "image");
    setName((uint64_t)o.image_view, VK_DEBUG_REPORT_OBJECT_TYPE_IMAGE_VIEW_EXT, VK_OBJECT_TYPE_IMAGE_VIEW, "image_view");
    setName((uint64_t)o.sampler, VK_DEBUG_REPORT_OBJECT_TYPE_SAMPLER_EXT, VK_OBJECT_TYPE_SAMPLER, "sampler");
    setName((uint64_t)o.pipeline, VK_DEBUG_REPORT_OBJECT_TYPE_PIPELINE_EXT, VK_OBJECT_TYPE_PIPELINE, "pipeline");
    setName((uint64_t)o.pipeline_layout, VK_DEBUG_REPORT_OBJECT_TYPE_PIPELINE_LAYOUT_EXT, VK_OBJECT_TYPE_PIPELINE_LAYOUT, "pipeline_layout");
    setName((uint64_t)o.shader_module, VK_DEBUG_REPORT_OBJECT_TYPE_SHADER_MODULE_EXT, VK_OBJECT_TYPE_SHADER_MODULE, "shader_module");
    setName((uint64_t)o.render_pass, VK_DEBUG_REPORT_OBJECT_TYPE_RENDER_PASS_EXT, VK_OBJECT_TYPE_RENDER_PASS, "render_pass");
    setName((uint64_t)o.framebuffer, VK_DEBUG_REPORT_OBJECT_TYPE_FRAMEBUFFER_EXT, VK_OBJECT_TYPE_FRAMEBUFFER, "framebuffer");
    setName((uint64_t)o.descriptor_set_layout, VK_DEBUG_REPORT_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT_EXT, VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT, "descriptor_set_layout");
    setName((uint64_t)o.descriptor_pool, VK_DEBUG_REPORT_OBJECT_TYPE_DESCRIPTOR_POOL_EXT, VK_OBJECT_TYPE_DESCRIPTOR_POOL, "descriptor_pool");
    setName((uint64_t)o.command_pool, VK_DEBUG_REPORT_OBJECT_TYPE_COMMAND_POOL_EXT, VK_OBJECT_TYPE_COMMAND_POOL, "command_pool");
    setName((uint64_t)o.fence, VK_DEBUG_REPORT_OBJECT_TYPE_FENCE_EXT, VK_OBJECT_TYPE_FENCE, "fence");
}
