// Audit fixture in the shape of a Rust loader's generated conversion (a
// match per direction, arms sorted by name, long arms as blocks, `_` as the
// default), spelled the way ash does. Planted: VALIDATION_CACHE missing and
// SURFACE_KHR mapped to SWAPCHAIN_KHR in the forward match.
use ash::vk;

pub const fn legacy_to_core(t: vk::DebugReportObjectTypeEXT) -> vk::ObjectType {
    match t {
        vk::DebugReportObjectTypeEXT::ACCELERATION_STRUCTURE_KHR => {
            vk::ObjectType::ACCELERATION_STRUCTURE_KHR
        }
        vk::DebugReportObjectTypeEXT::ACCELERATION_STRUCTURE_NV => {
            vk::ObjectType::ACCELERATION_STRUCTURE_NV
        }
        vk::DebugReportObjectTypeEXT::BUFFER => vk::ObjectType::BUFFER,
        vk::DebugReportObjectTypeEXT::BUFFER_COLLECTION_FUCHSIA => {
            vk::ObjectType::BUFFER_COLLECTION_FUCHSIA
        }
        vk::DebugReportObjectTypeEXT::BUFFER_VIEW => vk::ObjectType::BUFFER_VIEW,
        vk::DebugReportObjectTypeEXT::COMMAND_BUFFER => vk::ObjectType::COMMAND_BUFFER,
        vk::DebugReportObjectTypeEXT::COMMAND_POOL => vk::ObjectType::COMMAND_POOL,
        vk::DebugReportObjectTypeEXT::CUDA_FUNCTION_NV => vk::ObjectType::CUDA_FUNCTION_NV,
        vk::DebugReportObjectTypeEXT::CUDA_MODULE_NV => vk::ObjectType::CUDA_MODULE_NV,
        vk::DebugReportObjectTypeEXT::CU_FUNCTION_NVX => vk::ObjectType::CU_FUNCTION_NVX,
        vk::DebugReportObjectTypeEXT::CU_MODULE_NVX => vk::ObjectType::CU_MODULE_NVX,
        vk::DebugReportObjectTypeEXT::DEBUG_REPORT_CALLBACK_EXT => {
            vk::ObjectType::DEBUG_REPORT_CALLBACK_EXT
        }
        vk::DebugReportObjectTypeEXT::DESCRIPTOR_POOL => vk::ObjectType::DESCRIPTOR_POOL,
        vk::DebugReportObjectTypeEXT::DESCRIPTOR_SET => vk::ObjectType::DESCRIPTOR_SET,
        vk::DebugReportObjectTypeEXT::DESCRIPTOR_SET_LAYOUT => {
            vk::ObjectType::DESCRIPTOR_SET_LAYOUT
        }
        vk::DebugReportObjectTypeEXT::DESCRIPTOR_UPDATE_TEMPLATE => {
            vk::ObjectType::DESCRIPTOR_UPDATE_TEMPLATE
        }
        vk::DebugReportObjectTypeEXT::DEVICE => vk::ObjectType::DEVICE,
        vk::DebugReportObjectTypeEXT::DEVICE_MEMORY => vk::ObjectType::DEVICE_MEMORY,
        vk::DebugReportObjectTypeEXT::DISPLAY_KHR => vk::ObjectType::DISPLAY_KHR,
        vk::DebugReportObjectTypeEXT::DISPLAY_MODE_KHR => vk::ObjectType::DISPLAY_MODE_KHR,
        vk::DebugReportObjectTypeEXT::EVENT => vk::ObjectType::EVENT,
        vk::DebugReportObjectTypeEXT::FENCE => vk::ObjectType::FENCE,
        vk::DebugReportObjectTypeEXT::FRAMEBUFFER => vk::ObjectType::FRAMEBUFFER,
        vk::DebugReportObjectTypeEXT::IMAGE => vk::ObjectType::IMAGE,
        vk::DebugReportObjectTypeEXT::IMAGE_VIEW => vk::ObjectType::IMAGE_VIEW,
        vk::DebugReportObjectTypeEXT::INSTANCE => vk::ObjectType::INSTANCE,
        vk::DebugReportObjectTypeEXT::PHYSICAL_DEVICE => vk::ObjectType::PHYSICAL_DEVICE,
        vk::DebugReportObjectTypeEXT::PIPELINE => vk::ObjectType::PIPELINE,
        vk::DebugReportObjectTypeEXT::PIPELINE_CACHE => vk::ObjectType::PIPELINE_CACHE,
        vk::DebugReportObjectTypeEXT::PIPELINE_LAYOUT => vk::ObjectType::PIPELINE_LAYOUT,
        vk::DebugReportObjectTypeEXT::QUERY_POOL => vk::ObjectType::QUERY_POOL,
        vk::DebugReportObjectTypeEXT::QUEUE => vk::ObjectType::QUEUE,
        vk::DebugReportObjectTypeEXT::RENDER_PASS => vk::ObjectType::RENDER_PASS,
        vk::DebugReportObjectTypeEXT::SAMPLER => vk::ObjectType::SAMPLER,
        vk::DebugReportObjectTypeEXT::SAMPLER_YCBCR_CONVERSION => {
            vk::ObjectType::SAMPLER_YCBCR_CONVERSION
        }
        vk::DebugReportObjectTypeEXT::SEMAPHORE => vk::ObjectType::SEMAPHORE,
        vk::DebugReportObjectTypeEXT::SHADER_MODULE => vk::ObjectType::SHADER_MODULE,
        vk::DebugReportObjectTypeEXT::SURFACE_KHR => vk::ObjectType::SWAPCHAIN_KHR,
        vk::DebugReportObjectTypeEXT::SWAPCHAIN_KHR => vk::ObjectType::SWAPCHAIN_KHR,
        _ => vk::ObjectType::UNKNOWN,
    }
}

pub const fn core_to_legacy(t: vk::ObjectType) -> vk::DebugReportObjectTypeEXT {
    match t {
        vk::ObjectType::ACCELERATION_STRUCTURE_KHR => {
            vk::DebugReportObjectTypeEXT::ACCELERATION_STRUCTURE_KHR
        }
        vk::ObjectType::ACCELERATION_STRUCTURE_NV => {
            vk::DebugReportObjectTypeEXT::ACCELERATION_STRUCTURE_NV
        }
        vk::ObjectType::BUFFER => vk::DebugReportObjectTypeEXT::BUFFER,
        vk::ObjectType::BUFFER_COLLECTION_FUCHSIA => {
            vk::DebugReportObjectTypeEXT::BUFFER_COLLECTION_FUCHSIA
        }
        vk::ObjectType::BUFFER_VIEW => vk::DebugReportObjectTypeEXT::BUFFER_VIEW,
        vk::ObjectType::COMMAND_BUFFER => vk::DebugReportObjectTypeEXT::COMMAND_BUFFER,
        vk::ObjectType::COMMAND_POOL => vk::DebugReportObjectTypeEXT::COMMAND_POOL,
        vk::ObjectType::CUDA_FUNCTION_NV => vk::DebugReportObjectTypeEXT::CUDA_FUNCTION_NV,
        vk::ObjectType::CUDA_MODULE_NV => vk::DebugReportObjectTypeEXT::CUDA_MODULE_NV,
        vk::ObjectType::CU_FUNCTION_NVX => vk::DebugReportObjectTypeEXT::CU_FUNCTION_NVX,
        vk::ObjectType::CU_MODULE_NVX => vk::DebugReportObjectTypeEXT::CU_MODULE_NVX,
        vk::ObjectType::DEBUG_REPORT_CALLBACK_EXT => {
            vk::DebugReportObjectTypeEXT::DEBUG_REPORT_CALLBACK_EXT
        }
        vk::ObjectType::DESCRIPTOR_POOL => vk::DebugReportObjectTypeEXT::DESCRIPTOR_POOL,
        vk::ObjectType::DESCRIPTOR_SET => vk::DebugReportObjectTypeEXT::DESCRIPTOR_SET,
        vk::ObjectType::DESCRIPTOR_SET_LAYOUT => {
            vk::DebugReportObjectTypeEXT::DESCRIPTOR_SET_LAYOUT
        }
        vk::ObjectType::DESCRIPTOR_UPDATE_TEMPLATE => {
            vk::DebugReportObjectTypeEXT::DESCRIPTOR_UPDATE_TEMPLATE
        }
        vk::ObjectType::DEVICE => vk::DebugReportObjectTypeEXT::DEVICE,
        vk::ObjectType::DEVICE_MEMORY => vk::DebugReportObjectTypeEXT::DEVICE_MEMORY,
        vk::ObjectType::DISPLAY_KHR => vk::DebugReportObjectTypeEXT::DISPLAY_KHR,
        vk::ObjectType::DISPLAY_MODE_KHR => vk::DebugReportObjectTypeEXT::DISPLAY_MODE_KHR,
        vk::ObjectType::EVENT => vk::DebugReportObjectTypeEXT::EVENT,
        vk::ObjectType::FENCE => vk::DebugReportObjectTypeEXT::FENCE,
        vk::ObjectType::FRAMEBUFFER => vk::DebugReportObjectTypeEXT::FRAMEBUFFER,
        vk::ObjectType::IMAGE => vk::DebugReportObjectTypeEXT::IMAGE,
        vk::ObjectType::IMAGE_VIEW => vk::DebugReportObjectTypeEXT::IMAGE_VIEW,
        vk::ObjectType::INSTANCE => vk::DebugReportObjectTypeEXT::INSTANCE,
        vk::ObjectType::PHYSICAL_DEVICE => vk::DebugReportObjectTypeEXT::PHYSICAL_DEVICE,
        vk::ObjectType::PIPELINE => vk::DebugReportObjectTypeEXT::PIPELINE,
        vk::ObjectType::PIPELINE_CACHE => vk::DebugReportObjectTypeEXT::PIPELINE_CACHE,
        vk::ObjectType::PIPELINE_LAYOUT => vk::DebugReportObjectTypeEXT::PIPELINE_LAYOUT,
        vk::ObjectType::QUERY_POOL => vk::DebugReportObjectTypeEXT::QUERY_POOL,
        vk::ObjectType::QUEUE => vk::DebugReportObjectTypeEXT::QUEUE,
        vk::ObjectType::RENDER_PASS => vk::DebugReportObjectTypeEXT::RENDER_PASS,
        vk::ObjectType::SAMPLER => vk::DebugReportObjectTypeEXT::SAMPLER,
        vk::ObjectType::SAMPLER_YCBCR_CONVERSION => {
            vk::DebugReportObjectTypeEXT::SAMPLER_YCBCR_CONVERSION
        }
        vk::ObjectType::SEMAPHORE => vk::DebugReportObjectTypeEXT::SEMAPHORE,
        vk::ObjectType::SHADER_MODULE => vk::DebugReportObjectTypeEXT::SHADER_MODULE,
        vk::ObjectType::SURFACE_KHR => vk::DebugReportObjectTypeEXT::SURFACE_KHR,
        vk::ObjectType::SWAPCHAIN_KHR => vk::DebugReportObjectTypeEXT::SWAPCHAIN_KHR,
        vk::ObjectType::VALIDATION_CACHE_EXT => vk::DebugReportObjectTypeEXT::VALIDATION_CACHE_EXT,
        _ => vk::DebugReportObjectTypeEXT::UNKNOWN,
    }
}
