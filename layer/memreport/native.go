package memreport

import (
	"github.com/vkgen/vkgen/generated"
	"github.com/vkgen/vkgen/layer/memreport/accounting"
	"github.com/vkgen/vkgen/perfetto"
)

// vulkanMemoryEvent is ev as Perfetto's own VulkanMemoryEvent (setting
// vulkan_memory_events), which trace_processor and the Perfetto UI read
// without vkgen's SQL; false for what that schema has no place for: video
// session bindings (no source) and swapchain images (no memory). Driver
// memory gets the scope of the object the report callback names (its
// device, instance or pipeline cache; SCOPE_OBJECT for every other
// object): the callback gives no scope, and trace_processor counts driver
// memory only under one, per scope.
func vulkanMemoryEvent(ev *accounting.AllocationEvent) (perfetto.VulkanMemoryEvent, bool) {
	n := perfetto.VulkanMemoryEvent{Size: ev.Size, DeviceMemory: ev.MemoryObjectID, ObjectHandle: ev.ObjectHandle,
		MemoryType: ev.TypeIndex, HasMemoryType: ev.HasTypeIndex, Heap: ev.Heap}
	switch ev.Source {
	case accounting.SourceDeviceMemory, accounting.SourceDriver:
		n.Source = perfetto.VulkanMemorySourceDeviceMemory
		if ev.Source == accounting.SourceDriver {
			n.Source, n.Scope = perfetto.VulkanMemorySourceDriver, driverScope(ev.ObjectType)
		}
		switch ev.Operation {
		case accounting.OpCreate:
			n.Operation = perfetto.VulkanMemoryOpCreate
		case accounting.OpDestroy:
			n.Operation = perfetto.VulkanMemoryOpDestroy
		default:
			return n, false
		}
	case accounting.SourceBuffer, accounting.SourceImage:
		if ev.Swapchain != 0 || ev.MemoryType == accounting.SwapchainMemoryType {
			return n, false
		}
		n.Source = perfetto.VulkanMemorySourceBuffer
		if ev.Source == accounting.SourceImage {
			n.Source = perfetto.VulkanMemorySourceImage
		}
		switch ev.Operation {
		case accounting.OpBind:
			n.Operation = perfetto.VulkanMemoryOpBind
		case accounting.OpDestroy:
			n.Operation = perfetto.VulkanMemoryOpDestroyBound
		default:
			return n, false
		}
	default:
		return n, false
	}
	return n, true
}

// driverScope is the VulkanMemoryEvent scope of driver memory reported for
// an object of type t.
func driverScope(t int32) int32 {
	switch generated.ObjectType(t) {
	case generated.ObjectTypeInstance:
		return perfetto.VulkanMemoryScopeInstance
	case generated.ObjectTypeDevice:
		return perfetto.VulkanMemoryScopeDevice
	case generated.ObjectTypePipelineCache:
		return perfetto.VulkanMemoryScopeCache
	}
	return perfetto.VulkanMemoryScopeObject
}
