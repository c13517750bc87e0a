// Audit fixture: a Go reverse switch over bindings' constants (vk.ObjectTypeX
// -> vk.DebugReportObjectTypeX), each case on its own. Planted: PrivateDataSlot,
// which has no debug-report value, mapped to Buffer.
package names

import vk "github.com/vulkan-go/vulkan"

func legacyOf(t vk.ObjectType) vk.DebugReportObjectType {
	switch t {
	case vk.ObjectTypeInstance:
		return vk.DebugReportObjectTypeInstance
	case vk.ObjectTypePhysicalDevice:
		return vk.DebugReportObjectTypePhysicalDevice
	case vk.ObjectTypeDevice:
		return vk.DebugReportObjectTypeDevice
	case vk.ObjectTypeQueue:
		return vk.DebugReportObjectTypeQueue
	case vk.ObjectTypeSemaphore:
		return vk.DebugReportObjectTypeSemaphore
	case vk.ObjectTypeCommandBuffer:
		return vk.DebugReportObjectTypeCommandBuffer
	case vk.ObjectTypeFence:
		return vk.DebugReportObjectTypeFence
	case vk.ObjectTypeDeviceMemory:
		return vk.DebugReportObjectTypeDeviceMemory
	case vk.ObjectTypeBuffer:
		return vk.DebugReportObjectTypeBuffer
	case vk.ObjectTypeImage:
		return vk.DebugReportObjectTypeImage
	case vk.ObjectTypeEvent:
		return vk.DebugReportObjectTypeEvent
	case vk.ObjectTypeQueryPool:
		return vk.DebugReportObjectTypeQueryPool
	case vk.ObjectTypeBufferView:
		return vk.DebugReportObjectTypeBufferView
	case vk.ObjectTypeImageView:
		return vk.DebugReportObjectTypeImageView
	case vk.ObjectTypeShaderModule:
		return vk.DebugReportObjectTypeShaderModule
	case vk.ObjectTypePipelineCache:
		return vk.DebugReportObjectTypePipelineCache
	case vk.ObjectTypePipelineLayout:
		return vk.DebugReportObjectTypePipelineLayout
	case vk.ObjectTypeRenderPass:
		return vk.DebugReportObjectTypeRenderPass
	case vk.ObjectTypePipeline:
		return vk.DebugReportObjectTypePipeline
	case vk.ObjectTypeDescriptorSetLayout:
		return vk.DebugReportObjectTypeDescriptorSetLayout
	case vk.ObjectTypeSampler:
		return vk.DebugReportObjectTypeSampler
	case vk.ObjectTypeDescriptorPool:
		return vk.DebugReportObjectTypeDescriptorPool
	case vk.ObjectTypeDescriptorSet:
		return vk.DebugReportObjectTypeDescriptorSet
	case vk.ObjectTypeFramebuffer:
		return vk.DebugReportObjectTypeFramebuffer
	case vk.ObjectTypeCommandPool:
		return vk.DebugReportObjectTypeCommandPool
	case vk.ObjectTypeSurfaceKHR:
		return vk.DebugReportObjectTypeSurfaceKHR
	case vk.ObjectTypeSwapchainKHR:
		return vk.DebugReportObjectTypeSwapchainKHR
	case vk.ObjectTypeDebugReportCallbackEXT:
		return vk.DebugReportObjectTypeDebugReportCallbackEXT
	case vk.ObjectTypeDisplayKHR:
		return vk.DebugReportObjectTypeDisplayKHR
	case vk.ObjectTypeDisplayModeKHR:
		return vk.DebugReportObjectTypeDisplayModeKHR
	case vk.ObjectTypeValidationCacheEXT:
		return vk.DebugReportObjectTypeValidationCacheEXT
	case vk.ObjectTypeCuModuleNVX:
		return vk.DebugReportObjectTypeCuModuleNVX
	case vk.ObjectTypeCuFunctionNVX:
		return vk.DebugReportObjectTypeCuFunctionNVX
	case vk.ObjectTypeDescriptorUpdateTemplate:
		return vk.DebugReportObjectTypeDescriptorUpdateTemplate
	case vk.ObjectTypeAccelerationStructureKHR:
		return vk.DebugReportObjectTypeAccelerationStructureKHR
	case vk.ObjectTypeSamplerYcbcrConversion:
		return vk.DebugReportObjectTypeSamplerYcbcrConversion
	case vk.ObjectTypeAccelerationStructureNV:
		return vk.DebugReportObjectTypeAccelerationStructureNV
	case vk.ObjectTypeCudaModuleNV:
		return vk.DebugReportObjectTypeCudaModuleNV
	case vk.ObjectTypeCudaFunctionNV:
		return vk.DebugReportObjectTypeCudaFunctionNV
	case vk.ObjectTypeBufferCollectionFUCHSIA:
		return vk.DebugReportObjectTypeBufferCollectionFUCHSIA
	case vk.ObjectTypePrivateDataSlot:
		return vk.DebugReportObjectTypeBuffer
	}
	return vk.DebugReportObjectTypeUnknown
}
