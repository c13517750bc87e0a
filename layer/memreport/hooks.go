package memreport

/*
#include <stdint.h>
#include "vkgen_memreport.h"

uint64_t memreport_buffer_size(uintptr_t device_handle, uint64_t buffer);
uint64_t memreport_image_size(uintptr_t device_handle, uint64_t image);
uint64_t memreport_image_plane_size(uintptr_t device_handle, uint64_t image, uint32_t aspect);
uint32_t memreport_budget(uintptr_t device_handle, uint64_t *budget, uint64_t *usage, uint32_t max);
*/
import "C"

import (
	"unsafe"

	"github.com/vkgen/vkgen/layer"
	"github.com/vkgen/vkgen/layer/memreport/accounting"
)

// The Go hooks named in vkgen-layer.json. They run after a successful call
// (go_post) except destroys and frees (go_pre: the handle must still be
// valid for the bookkeeping order the engine documents). They decode the C
// structs into plain values for state; pointers are never retained.

func postCreateInstance(info *C.VkInstanceCreateInfo, _ *C.VkAllocationCallbacks, _ *uintptr, result C.VkResult) {
	if result == C.VK_SUCCESS {
		presence.InstanceCreated(unsafe.Pointer(info))
	}
}

func postDestroyInstance(instance uintptr, _ *C.VkAllocationCallbacks) {
	st.instanceDestroyed(instance)
	presence.InstanceDestroyed()
}

func preDestroyDevice(device uintptr, _ *C.VkAllocationCallbacks) {
	st.deviceDestroying(device)
	sampleBudgetNow(device, true)
}

func postDestroyDevice(device uintptr, _ *C.VkAllocationCallbacks) {
	st.deviceDestroyed(device)
}

func postAllocateMemory(device uintptr, info *C.VkMemoryAllocateInfo, _ *C.VkAllocationCallbacks, pMemory *uint64, result C.VkResult) {
	if info == nil {
		return
	}
	defer sampleBudgetNow(device, false)
	if result != C.VK_SUCCESS {
		st.allocationFailed(device, uint64(info.allocationSize), uint32(info.memoryTypeIndex))
		return
	}
	if pMemory == nil {
		return
	}
	st.memoryAllocated(device, *pMemory, uint64(info.allocationSize), uint32(info.memoryTypeIndex), memoryInfo(info.pNext))
}

// preFreeMemory samples the budget before the free (the hook runs before the
// call down): what the free releases shows at the next sample.
func preFreeMemory(device uintptr, memory uint64, _ *C.VkAllocationCallbacks) {
	st.memoryFreed(device, memory)
	sampleBudgetNow(device, false)
}

// sampleBudgetNow samples VK_EXT_memory_budget when the device has it and
// BudgetInterval has passed, or force; only then does it call into C.
func sampleBudgetNow(device uintptr, force bool) {
	st.sampleBudget(device, force, func() (budget, usage []uint64) {
		var b, u [accounting.MaxHeaps]C.uint64_t
		n := int(C.memreport_budget(C.uintptr_t(device), &b[0], &u[0], accounting.MaxHeaps))
		budget, usage = make([]uint64, n), make([]uint64, n)
		for i := range n {
			budget[i], usage[i] = uint64(b[i]), uint64(u[i])
		}
		return budget, usage
	})
}

func postCreateBuffer(device uintptr, info *C.VkBufferCreateInfo, _ *C.VkAllocationCallbacks, pBuffer *uint64, result C.VkResult) {
	if result != C.VK_SUCCESS || info == nil || pBuffer == nil || *pBuffer == 0 {
		return
	}
	st.bufferCreated(device, *pBuffer, uint64(info.usage), uint64(info.size))
}

func postCreateImage(device uintptr, info *C.VkImageCreateInfo, _ *C.VkAllocationCallbacks, pImage *uint64, result C.VkResult) {
	if result != C.VK_SUCCESS || info == nil || pImage == nil || *pImage == 0 {
		return
	}
	st.imageCreated(device, *pImage, uint32(info.usage), uint32(info.flags))
}

func preDestroyBuffer(device uintptr, buffer uint64, _ *C.VkAllocationCallbacks) {
	st.resourceDestroyed(device, accounting.KindBuffer, buffer)
}

func preDestroyImage(device uintptr, image uint64, _ *C.VkAllocationCallbacks) {
	st.resourceDestroyed(device, accounting.KindImage, image)
}

func postGetBufferMemoryRequirements(device uintptr, buffer uint64, r *C.VkMemoryRequirements) {
	if r != nil {
		st.requirements(device, accounting.KindBuffer, buffer, uint64(r.size))
	}
}

func postGetImageMemoryRequirements(device uintptr, image uint64, r *C.VkMemoryRequirements) {
	if r != nil {
		st.requirements(device, accounting.KindImage, image, uint64(r.size))
	}
}

func postGetBufferMemoryRequirements2(device uintptr, info *C.VkBufferMemoryRequirementsInfo2, r *C.VkMemoryRequirements2) {
	if info != nil && r != nil {
		st.requirements(device, accounting.KindBuffer, handle(unsafe.Pointer(info.buffer)), uint64(r.memoryRequirements.size))
	}
}

func postGetImageMemoryRequirements2(device uintptr, info *C.VkImageMemoryRequirementsInfo2, r *C.VkMemoryRequirements2) {
	if info == nil || r == nil {
		return
	}
	image, size := handle(unsafe.Pointer(info.image)), uint64(r.memoryRequirements.size)
	if p := findInChain(info.pNext, C.VK_STRUCTURE_TYPE_IMAGE_PLANE_MEMORY_REQUIREMENTS_INFO); p != nil {
		st.planeRequirements(device, image, uint32((*C.VkImagePlaneMemoryRequirementsInfo)(p).planeAspect), size)
		return
	}
	st.requirements(device, accounting.KindImage, image, size)
}

func postBindBufferMemory(device uintptr, buffer, memory uint64, offset C.VkDeviceSize, result C.VkResult) {
	if result == C.VK_SUCCESS {
		bindBuffer(device, buffer, memory, uint64(offset))
	}
}

func postBindImageMemory(device uintptr, image, memory uint64, offset C.VkDeviceSize, result C.VkResult) {
	if result == C.VK_SUCCESS {
		bindImage(device, image, memory, uint64(offset), planeAspectNone)
	}
}

func postBindBufferMemory2(device uintptr, n C.uint32_t, infos *C.VkBindBufferMemoryInfo, result C.VkResult) {
	for _, b := range cslice(infos, n) {
		if bindTookEffect(result, b.pNext) {
			bindBuffer(device, handle(unsafe.Pointer(b.buffer)), handle(unsafe.Pointer(b.memory)), uint64(b.memoryOffset))
		}
	}
}

func postBindImageMemory2(device uintptr, n C.uint32_t, infos *C.VkBindImageMemoryInfo, result C.VkResult) {
	for _, b := range cslice(infos, n) {
		if !bindTookEffect(result, b.pNext) {
			continue
		}
		image, memory := handle(unsafe.Pointer(b.image)), handle(unsafe.Pointer(b.memory))
		if p := findInChain(b.pNext, C.VK_STRUCTURE_TYPE_BIND_IMAGE_MEMORY_SWAPCHAIN_INFO_KHR); p != nil && memory == 0 {
			st.swapchainBound(device, image, handle(unsafe.Pointer((*C.VkBindImageMemorySwapchainInfoKHR)(p).swapchain)))
			continue
		}
		aspect := uint32(planeAspectNone)
		if p := findInChain(b.pNext, C.VK_STRUCTURE_TYPE_BIND_IMAGE_PLANE_MEMORY_INFO); p != nil {
			aspect = uint32((*C.VkBindImagePlaneMemoryInfo)(p).planeAspect)
		}
		bindImage(device, image, memory, uint64(b.memoryOffset), aspect)
	}
}

func bindBuffer(device uintptr, buffer, memory, offset uint64) {
	st.bound(device, accounting.KindBuffer, buffer, memory, offset, planeAspectNone, func() uint64 {
		return uint64(C.memreport_buffer_size(C.uintptr_t(device), C.uint64_t(buffer)))
	})
}

func bindImage(device uintptr, image, memory, offset uint64, aspect uint32) {
	st.bound(device, accounting.KindImage, image, memory, offset, aspect, func() uint64 {
		d := C.uintptr_t(device)
		if aspect != planeAspectNone {
			return uint64(C.memreport_image_plane_size(d, C.uint64_t(image), C.uint32_t(aspect)))
		}
		return uint64(C.memreport_image_size(d, C.uint64_t(image)))
	})
}

func postSetDebugUtilsObjectNameEXT(device uintptr, info *C.VkDebugUtilsObjectNameInfoEXT, result C.VkResult) {
	if result == C.VK_SUCCESS && info != nil {
		st.debugUtilsName(device, int32(info.objectType), uint64(info.objectHandle), layer.CStringView(unsafe.Pointer(info.pObjectName)))
	}
}

func postDebugMarkerSetObjectNameEXT(device uintptr, info *C.VkDebugMarkerObjectNameInfoEXT, result C.VkResult) {
	if result == C.VK_SUCCESS && info != nil {
		st.debugMarkerName(device, int32(info.objectType), uint64(info.object), layer.CStringView(unsafe.Pointer(info.pObjectName)))
	}
}

// handle converts a non-dispatchable handle (a pointer type in 64-bit
// headers) to its value.
func handle(p unsafe.Pointer) uint64 { return uint64(uintptr(p)) }

// findInChain returns the first struct of type sType in a pNext chain.
func findInChain(pNext unsafe.Pointer, sType C.VkStructureType) unsafe.Pointer {
	for p := pNext; p != nil; p = unsafe.Pointer((*C.VkBaseInStructure)(p).pNext) {
		if (*C.VkBaseInStructure)(p).sType == sType {
			return p
		}
	}
	return nil
}
