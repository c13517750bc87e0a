// Audit fixture: four C++ tables in one file, one per shape.
#include <map>
#include <unordered_map>
#include <vulkan/vulkan.hpp>

// 1. Reverse std::unordered_map initialiser {O, D}. Planted: no CUDA rows.
static const std::unordered_map<VkObjectType, VkDebugReportObjectTypeEXT> kLegacyOf = {
    {VK_OBJECT_TYPE_INSTANCE, VK_DEBUG_REPORT_OBJECT_TYPE_INSTANCE_EXT},
    {VK_OBJECT_TYPE_PHYSICAL_DEVICE, VK_DEBUG_REPORT_OBJECT_TYPE_PHYSICAL_DEVICE_EXT},
    {VK_OBJECT_TYPE_DEVICE, VK_DEBUG_REPORT_OBJECT_TYPE_DEVICE_EXT},
    {VK_OBJECT_TYPE_QUEUE, VK_DEBUG_REPORT_OBJECT_TYPE_QUEUE_EXT},
    {VK_OBJECT_TYPE_SEMAPHORE, VK_DEBUG_REPORT_OBJECT_TYPE_SEMAPHORE_EXT},
    {VK_OBJECT_TYPE_COMMAND_BUFFER, VK_DEBUG_REPORT_OBJECT_TYPE_COMMAND_BUFFER_EXT},
    {VK_OBJECT_TYPE_FENCE, VK_DEBUG_REPORT_OBJECT_TYPE_FENCE_EXT},
    {VK_OBJECT_TYPE_DEVICE_MEMORY, VK_DEBUG_REPORT_OBJECT_TYPE_DEVICE_MEMORY_EXT},
    {VK_OBJECT_TYPE_BUFFER, VK_DEBUG_REPORT_OBJECT_TYPE_BUFFER_EXT},
    {VK_OBJECT_TYPE_IMAGE, VK_DEBUG_REPORT_OBJECT_TYPE_IMAGE_EXT},
    {VK_OBJECT_TYPE_EVENT, VK_DEBUG_REPORT_OBJECT_TYPE_EVENT_EXT},
    {VK_OBJECT_TYPE_QUERY_POOL, VK_DEBUG_REPORT_OBJECT_TYPE_QUERY_POOL_EXT},
    {VK_OBJECT_TYPE_BUFFER_VIEW, VK_DEBUG_REPORT_OBJECT_TYPE_BUFFER_VIEW_EXT},
    {VK_OBJECT_TYPE_IMAGE_VIEW, VK_DEBUG_REPORT_OBJECT_TYPE_IMAGE_VIEW_EXT},
    {VK_OBJECT_TYPE_SHADER_MODULE, VK_DEBUG_REPORT_OBJECT_TYPE_SHADER_MODULE_EXT},
    {VK_OBJECT_TYPE_PIPELINE_CACHE, VK_DEBUG_REPORT_OBJECT_TYPE_PIPELINE_CACHE_EXT},
    {VK_OBJECT_TYPE_PIPELINE_LAYOUT, VK_DEBUG_REPORT_OBJECT_TYPE_PIPELINE_LAYOUT_EXT},
    {VK_OBJECT_TYPE_RENDER_PASS, VK_DEBUG_REPORT_OBJECT_TYPE_RENDER_PASS_EXT},
    {VK_OBJECT_TYPE_PIPELINE, VK_DEBUG_REPORT_OBJECT_TYPE_PIPELINE_EXT},
    {VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT, VK_DEBUG_REPORT_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT_EXT},
    {VK_OBJECT_TYPE_SAMPLER, VK_DEBUG_REPORT_OBJECT_TYPE_SAMPLER_EXT},
    {VK_OBJECT_TYPE_DESCRIPTOR_POOL, VK_DEBUG_REPORT_OBJECT_TYPE_DESCRIPTOR_POOL_EXT},
    {VK_OBJECT_TYPE_DESCRIPTOR_SET, VK_DEBUG_REPORT_OBJECT_TYPE_DESCRIPTOR_SET_EXT},
    {VK_OBJECT_TYPE_FRAMEBUFFER, VK_DEBUG_REPORT_OBJECT_TYPE_FRAMEBUFFER_EXT},
    {VK_OBJECT_TYPE_COMMAND_POOL, VK_DEBUG_REPORT_OBJECT_TYPE_COMMAND_POOL_EXT},
    {VK_OBJECT_TYPE_SURFACE_KHR, VK_DEBUG_REPORT_OBJECT_TYPE_SURFACE_KHR_EXT},
    {VK_OBJECT_TYPE_SWAPCHAIN_KHR, VK_DEBUG_REPORT_OBJECT_TYPE_SWAPCHAIN_KHR_EXT},
    {VK_OBJECT_TYPE_DEBUG_REPORT_CALLBACK_EXT, VK_DEBUG_REPORT_OBJECT_TYPE_DEBUG_REPORT_CALLBACK_EXT_EXT},
    {VK_OBJECT_TYPE_DISPLAY_KHR, VK_DEBUG_REPORT_OBJECT_TYPE_DISPLAY_KHR_EXT},
    {VK_OBJECT_TYPE_DISPLAY_MODE_KHR, VK_DEBUG_REPORT_OBJECT_TYPE_DISPLAY_MODE_KHR_EXT},
    {VK_OBJECT_TYPE_VALIDATION_CACHE_EXT, VK_DEBUG_REPORT_OBJECT_TYPE_VALIDATION_CACHE_EXT_EXT},
    {VK_OBJECT_TYPE_CU_MODULE_NVX, VK_DEBUG_REPORT_OBJECT_TYPE_CU_MODULE_NVX_EXT},
    {VK_OBJECT_TYPE_CU_FUNCTION_NVX, VK_DEBUG_REPORT_OBJECT_TYPE_CU_FUNCTION_NVX_EXT},
    {VK_OBJECT_TYPE_DESCRIPTOR_UPDATE_TEMPLATE, VK_DEBUG_REPORT_OBJECT_TYPE_DESCRIPTOR_UPDATE_TEMPLATE_EXT},
    {VK_OBJECT_TYPE_ACCELERATION_STRUCTURE_KHR, VK_DEBUG_REPORT_OBJECT_TYPE_ACCELERATION_STRUCTURE_KHR_EXT},
    {VK_OBJECT_TYPE_SAMPLER_YCBCR_CONVERSION, VK_DEBUG_REPORT_OBJECT_TYPE_SAMPLER_YCBCR_CONVERSION_EXT},
    {VK_OBJECT_TYPE_ACCELERATION_STRUCTURE_NV, VK_DEBUG_REPORT_OBJECT_TYPE_ACCELERATION_STRUCTURE_NV_EXT},
    {VK_OBJECT_TYPE_BUFFER_COLLECTION_FUCHSIA, VK_DEBUG_REPORT_OBJECT_TYPE_BUFFER_COLLECTION_FUCHSIA_EXT},
};

// 2. std::map filled with make_pair inserts. Planted: EVENT -> QUERY_POOL.
void fillCoreOf(std::map<VkDebugReportObjectTypeEXT, VkObjectType> &m) {
    m.insert(std::make_pair(VK_DEBUG_REPORT_OBJECT_TYPE_INSTANCE_EXT, VK_OBJECT_TYPE_INSTANCE));
    m.insert(std::make_pair(VK_DEBUG_REPORT_OBJECT_TYPE_PHYSICAL_DEVICE_EXT, VK_OBJECT_TYPE_PHYSICAL_DEVICE));
    m.insert(std::make_pair(VK_DEBUG_REPORT_OBJECT_TYPE_DEVICE_EXT, VK_OBJECT_TYPE_DEVICE));
    m.insert(std::make_pair(VK_DEBUG_REPORT_OBJECT_TYPE_QUEUE_EXT, VK_OBJECT_TYPE_QUEUE));
    m.insert(std::make_pair(VK_DEBUG_REPORT_OBJECT_TYPE_SEMAPHORE_EXT, VK_OBJECT_TYPE_SEMAPHORE));
    m.insert(std::make_pair(VK_DEBUG_REPORT_OBJECT_TYPE_COMMAND_BUFFER_EXT, VK_OBJECT_TYPE_COMMAND_BUFFER));
    m.insert(std::make_pair(VK_DEBUG_REPORT_OBJECT_TYPE_FENCE_EXT, VK_OBJECT_TYPE_FENCE));
    m.insert(std::make_pair(VK_DEBUG_REPORT_OBJECT_TYPE_DEVICE_MEMORY_EXT, VK_OBJECT_TYPE_DEVICE_MEMORY));
    m.insert(std::make_pair(VK_DEBUG_REPORT_OBJECT_TYPE_BUFFER_EXT, VK_OBJECT_TYPE_BUFFER));
    m.insert(std::make_pair(VK_DEBUG_REPORT_OBJECT_TYPE_IMAGE_EXT, VK_OBJECT_TYPE_IMAGE));
    m.insert(std::make_pair(VK_DEBUG_REPORT_OBJECT_TYPE_EVENT_EXT, VK_OBJECT_TYPE_QUERY_POOL));
    m.insert(std::make_pair(VK_DEBUG_REPORT_OBJECT_TYPE_QUERY_POOL_EXT, VK_OBJECT_TYPE_QUERY_POOL));
    m.insert(std::make_pair(VK_DEBUG_REPORT_OBJECT_TYPE_BUFFER_VIEW_EXT, VK_OBJECT_TYPE_BUFFER_VIEW));
    m.insert(std::make_pair(VK_DEBUG_REPORT_OBJECT_TYPE_IMAGE_VIEW_EXT, VK_OBJECT_TYPE_IMAGE_VIEW));
    m.insert(std::make_pair(VK_DEBUG_REPORT_OBJECT_TYPE_SHADER_MODULE_EXT, VK_OBJECT_TYPE_SHADER_MODULE));
    m.insert(std::make_pair(VK_DEBUG_REPORT_OBJECT_TYPE_PIPELINE_CACHE_EXT, VK_OBJECT_TYPE_PIPELINE_CACHE));
    m.insert(std::make_pair(VK_DEBUG_REPORT_OBJECT_TYPE_PIPELINE_LAYOUT_EXT, VK_OBJECT_TYPE_PIPELINE_LAYOUT));
    m.insert(std::make_pair(VK_DEBUG_REPORT_OBJECT_TYPE_RENDER_PASS_EXT, VK_OBJECT_TYPE_RENDER_PASS));
    m.insert(std::make_pair(VK_DEBUG_REPORT_OBJECT_TYPE_PIPELINE_EXT, VK_OBJECT_TYPE_PIPELINE));
    m.insert(std::make_pair(VK_DEBUG_REPORT_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT_EXT, VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT));
    m.insert(std::make_pair(VK_DEBUG_REPORT_OBJECT_TYPE_SAMPLER_EXT, VK_OBJECT_TYPE_SAMPLER));
    m.insert(std::make_pair(VK_DEBUG_REPORT_OBJECT_TYPE_DESCRIPTOR_POOL_EXT, VK_OBJECT_TYPE_DESCRIPTOR_POOL));
    m.insert(std::make_pair(VK_DEBUG_REPORT_OBJECT_TYPE_DESCRIPTOR_SET_EXT, VK_OBJECT_TYPE_DESCRIPTOR_SET));
    m.insert(std::make_pair(VK_DEBUG_REPORT_OBJECT_TYPE_FRAMEBUFFER_EXT, VK_OBJECT_TYPE_FRAMEBUFFER));
    m.insert(std::make_pair(VK_DEBUG_REPORT_OBJECT_TYPE_COMMAND_POOL_EXT, VK_OBJECT_TYPE_COMMAND_POOL));
    m.insert(std::make_pair(VK_DEBUG_REPORT_OBJECT_TYPE_SURFACE_KHR_EXT, VK_OBJECT_TYPE_SURFACE_KHR));
    m.insert(std::make_pair(VK_DEBUG_REPORT_OBJECT_TYPE_SWAPCHAIN_KHR_EXT, VK_OBJECT_TYPE_SWAPCHAIN_KHR));
    m.insert(std::make_pair(VK_DEBUG_REPORT_OBJECT_TYPE_DEBUG_REPORT_CALLBACK_EXT_EXT, VK_OBJECT_TYPE_DEBUG_REPORT_CALLBACK_EXT));
    m.insert(std::make_pair(VK_DEBUG_REPORT_OBJECT_TYPE_DISPLAY_KHR_EXT, VK_OBJECT_TYPE_DISPLAY_KHR));
    m.insert(std::make_pair(VK_DEBUG_REPORT_OBJECT_TYPE_DISPLAY_MODE_KHR_EXT, VK_OBJECT_TYPE_DISPLAY_MODE_KHR));
    m.insert(std::make_pair(VK_DEBUG_REPORT_OBJECT_TYPE_VALIDATION_CACHE_EXT_EXT, VK_OBJECT_TYPE_VALIDATION_CACHE_EXT));
    m.insert(std::make_pair(VK_DEBUG_REPORT_OBJECT_TYPE_CU_MODULE_NVX_EXT, VK_OBJECT_TYPE_CU_MODULE_NVX));
    m.insert(std::make_pair(VK_DEBUG_REPORT_OBJECT_TYPE_CU_FUNCTION_NVX_EXT, VK_OBJECT_TYPE_CU_FUNCTION_NVX));
    m.insert(std::make_pair(VK_DEBUG_REPORT_OBJECT_TYPE_DESCRIPTOR_UPDATE_TEMPLATE_EXT, VK_OBJECT_TYPE_DESCRIPTOR_UPDATE_TEMPLATE));
    m.insert(std::make_pair(VK_DEBUG_REPORT_OBJECT_TYPE_ACCELERATION_STRUCTURE_KHR_EXT, VK_OBJECT_TYPE_ACCELERATION_STRUCTURE_KHR));
    m.insert(std::make_pair(VK_DEBUG_REPORT_OBJECT_TYPE_SAMPLER_YCBCR_CONVERSION_EXT, VK_OBJECT_TYPE_SAMPLER_YCBCR_CONVERSION));
    m.insert(std::make_pair(VK_DEBUG_REPORT_OBJECT_TYPE_ACCELERATION_STRUCTURE_NV_EXT, VK_OBJECT_TYPE_ACCELERATION_STRUCTURE_NV));
    m.insert(std::make_pair(VK_DEBUG_REPORT_OBJECT_TYPE_CUDA_MODULE_NV_EXT, VK_OBJECT_TYPE_CUDA_MODULE_NV));
    m.insert(std::make_pair(VK_DEBUG_REPORT_OBJECT_TYPE_CUDA_FUNCTION_NV_EXT, VK_OBJECT_TYPE_CUDA_FUNCTION_NV));
    m.insert(std::make_pair(VK_DEBUG_REPORT_OBJECT_TYPE_BUFFER_COLLECTION_FUCHSIA_EXT, VK_OBJECT_TYPE_BUFFER_COLLECTION_FUCHSIA));
}

// 3. An array filled by indexed assignments. Planted: a misspelt SAMPLER.
void fillTable(VkObjectType *table) {
    table[VK_DEBUG_REPORT_OBJECT_TYPE_INSTANCE_EXT] = VK_OBJECT_TYPE_INSTANCE;
    table[VK_DEBUG_REPORT_OBJECT_TYPE_PHYSICAL_DEVICE_EXT] = VK_OBJECT_TYPE_PHYSICAL_DEVICE;
    table[VK_DEBUG_REPORT_OBJECT_TYPE_DEVICE_EXT] = VK_OBJECT_TYPE_DEVICE;
    table[VK_DEBUG_REPORT_OBJECT_TYPE_QUEUE_EXT] = VK_OBJECT_TYPE_QUEUE;
    table[VK_DEBUG_REPORT_OBJECT_TYPE_SEMAPHORE_EXT] = VK_OBJECT_TYPE_SEMAPHORE;
    table[VK_DEBUG_REPORT_OBJECT_TYPE_COMMAND_BUFFER_EXT] = VK_OBJECT_TYPE_COMMAND_BUFFER;
    table[VK_DEBUG_REPORT_OBJECT_TYPE_FENCE_EXT] = VK_OBJECT_TYPE_FENCE;
    table[VK_DEBUG_REPORT_OBJECT_TYPE_DEVICE_MEMORY_EXT] = VK_OBJECT_TYPE_DEVICE_MEMORY;
    table[VK_DEBUG_REPORT_OBJECT_TYPE_BUFFER_EXT] = VK_OBJECT_TYPE_BUFFER;
    table[VK_DEBUG_REPORT_OBJECT_TYPE_IMAGE_EXT] = VK_OBJECT_TYPE_IMAGE;
    table[VK_DEBUG_REPORT_OBJECT_TYPE_EVENT_EXT] = VK_OBJECT_TYPE_EVENT;
    table[VK_DEBUG_REPORT_OBJECT_TYPE_QUERY_POOL_EXT] = VK_OBJECT_TYPE_QUERY_POOL;
    table[VK_DEBUG_REPORT_OBJECT_TYPE_BUFFER_VIEW_EXT] = VK_OBJECT_TYPE_BUFFER_VIEW;
    table[VK_DEBUG_REPORT_OBJECT_TYPE_IMAGE_VIEW_EXT] = VK_OBJECT_TYPE_IMAGE_VIEW;
    table[VK_DEBUG_REPORT_OBJECT_TYPE_SHADER_MODULE_EXT] = VK_OBJECT_TYPE_SHADER_MODULE;
    table[VK_DEBUG_REPORT_OBJECT_TYPE_PIPELINE_CACHE_EXT] = VK_OBJECT_TYPE_PIPELINE_CACHE;
    table[VK_DEBUG_REPORT_OBJECT_TYPE_PIPELINE_LAYOUT_EXT] = VK_OBJECT_TYPE_PIPELINE_LAYOUT;
    table[VK_DEBUG_REPORT_OBJECT_TYPE_RENDER_PASS_EXT] = VK_OBJECT_TYPE_RENDER_PASS;
    table[VK_DEBUG_REPORT_OBJECT_TYPE_PIPELINE_EXT] = VK_OBJECT_TYPE_PIPELINE;
    table[VK_DEBUG_REPORT_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT_EXT] = VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT;
    table[VK_DEBUG_REPORT_OBJECT_TYPE_SAMPLER_EXT] = VK_OBJECT_TYPE_SAMPLR;
    table[VK_DEBUG_REPORT_OBJECT_TYPE_DESCRIPTOR_POOL_EXT] = VK_OBJECT_TYPE_DESCRIPTOR_POOL;
    table[VK_DEBUG_REPORT_OBJECT_TYPE_DESCRIPTOR_SET_EXT] = VK_OBJECT_TYPE_DESCRIPTOR_SET;
    table[VK_DEBUG_REPORT_OBJECT_TYPE_FRAMEBUFFER_EXT] = VK_OBJECT_TYPE_FRAMEBUFFER;
    table[VK_DEBUG_REPORT_OBJECT_TYPE_COMMAND_POOL_EXT] = VK_OBJECT_TYPE_COMMAND_POOL;
}

// 4. vulkan.hpp switch. Planted: no ACCELERATION_STRUCTURE_KHR row, a stale NVX row.
vk::ObjectType toObjectType(vk::DebugReportObjectTypeEXT t) {
    switch (t) {
    case vk::DebugReportObjectTypeEXT::eInstance: return vk::ObjectType::eInstance;
    case vk::DebugReportObjectTypeEXT::ePhysicalDevice: return vk::ObjectType::ePhysicalDevice;
    case vk::DebugReportObjectTypeEXT::eDevice: return vk::ObjectType::eDevice;
    case vk::DebugReportObjectTypeEXT::eQueue: return vk::ObjectType::eQueue;
    case vk::DebugReportObjectTypeEXT::eSemaphore: return vk::ObjectType::eSemaphore;
    case vk::DebugReportObjectTypeEXT::eCommandBuffer: return vk::ObjectType::eCommandBuffer;
    case vk::DebugReportObjectTypeEXT::eFence: return vk::ObjectType::eFence;
    case vk::DebugReportObjectTypeEXT::eDeviceMemory: return vk::ObjectType::eDeviceMemory;
    case vk::DebugReportObjectTypeEXT::eBuffer: return vk::ObjectType::eBuffer;
    case vk::DebugReportObjectTypeEXT::eImage: return vk::ObjectType::eImage;
    case vk::DebugReportObjectTypeEXT::eEvent: return vk::ObjectType::eEvent;
    case vk::DebugReportObjectTypeEXT::eQueryPool: return vk::ObjectType::eQueryPool;
    case vk::DebugReportObjectTypeEXT::eBufferView: return vk::ObjectType::eBufferView;
    case vk::DebugReportObjectTypeEXT::eImageView: return vk::ObjectType::eImageView;
    case vk::DebugReportObjectTypeEXT::eShaderModule: return vk::ObjectType::eShaderModule;
    case vk::DebugReportObjectTypeEXT::ePipelineCache: return vk::ObjectType::ePipelineCache;
    case vk::DebugReportObjectTypeEXT::ePipelineLayout: return vk::ObjectType::ePipelineLayout;
    case vk::DebugReportObjectTypeEXT::eRenderPass: return vk::ObjectType::eRenderPass;
    case vk::DebugReportObjectTypeEXT::ePipeline: return vk::ObjectType::ePipeline;
    case vk::DebugReportObjectTypeEXT::eDescriptorSetLayout: return vk::ObjectType::eDescriptorSetLayout;
    case vk::DebugReportObjectTypeEXT::eSampler: return vk::ObjectType::eSampler;
    case vk::DebugReportObjectTypeEXT::eDescriptorPool: return vk::ObjectType::eDescriptorPool;
    case vk::DebugReportObjectTypeEXT::eDescriptorSet: return vk::ObjectType::eDescriptorSet;
    case vk::DebugReportObjectTypeEXT::eFramebuffer: return vk::ObjectType::eFramebuffer;
    case vk::DebugReportObjectTypeEXT::eCommandPool: return vk::ObjectType::eCommandPool;
    case vk::DebugReportObjectTypeEXT::eSurfaceKHR: return vk::ObjectType::eSurfaceKHR;
    case vk::DebugReportObjectTypeEXT::eSwapchainKHR: return vk::ObjectType::eSwapchainKHR;
    case vk::DebugReportObjectTypeEXT::eDebugReportCallbackEXT: return vk::ObjectType::eDebugReportCallbackEXT;
    case vk::DebugReportObjectTypeEXT::eDisplayKHR: return vk::ObjectType::eDisplayKHR;
    case vk::DebugReportObjectTypeEXT::eDisplayModeKHR: return vk::ObjectType::eDisplayModeKHR;
    case vk::DebugReportObjectTypeEXT::eValidationCacheEXT: return vk::ObjectType::eValidationCacheEXT;
    case vk::DebugReportObjectTypeEXT::eCuModuleNVX: return vk::ObjectType::eCuModuleNVX;
    case vk::DebugReportObjectTypeEXT::eCuFunctionNVX: return vk::ObjectType::eCuFunctionNVX;
    case vk::DebugReportObjectTypeEXT::eDescriptorUpdateTemplate: return vk::ObjectType::eDescriptorUpdateTemplate;
    case vk::DebugReportObjectTypeEXT::eSamplerYcbcrConversion: return vk::ObjectType::eSamplerYcbcrConversion;
    case vk::DebugReportObjectTypeEXT::eAccelerationStructureNV: return vk::ObjectType::eAccelerationStructureNV;
    case vk::DebugReportObjectTypeEXT::eCudaModuleNV: return vk::ObjectType::eCudaModuleNV;
    case vk::DebugReportObjectTypeEXT::eCudaFunctionNV: return vk::ObjectType::eCudaFunctionNV;
    case vk::DebugReportObjectTypeEXT::eBufferCollectionFUCHSIA: return vk::ObjectType::eBufferCollectionFUCHSIA;
    case vk::DebugReportObjectTypeEXT::eObjectTableNVX: return vk::ObjectType::eUnknown;
    default: return vk::ObjectType::eUnknown;
    }
}
