package memreport

/*
#include <stdint.h>
#include "vkgen_memreport.h"

uintptr_t memreport_queue_device(uintptr_t queue);
uint64_t memreport_sparse_image_bind_size(uintptr_t device_handle, uint64_t image, uint32_t aspect, VkExtent3D extent);
*/
import "C"

import (
	"unsafe"

	"github.com/vkgen/vkgen/layer/memreport/accounting"
)

// Go hooks of the binds beyond buffers and images bound whole (swapchain
// images, sparse binds, video sessions) and the pNext decoding of
// allocations and per-bind results. Like hooks.go they only decode.

// sTypeBindMemoryStatus is VK_STRUCTURE_TYPE_BIND_MEMORY_STATUS (Vulkan 1.4,
// VK_KHR_maintenance6), newer than the headers the layer builds with.
const sTypeBindMemoryStatus = 1000545002

// bindMemoryStatus has VkBindMemoryStatus's layout.
type bindMemoryStatus struct {
	sType   int32
	pNext   unsafe.Pointer
	pResult *int32
}

// bindTookEffect tells whether the bind whose info chain is pNext took
// effect in a vkBind*Memory2 call that returned result (bindOK).
func bindTookEffect(result C.VkResult, pNext unsafe.Pointer) bool {
	if result == C.VK_SUCCESS {
		return true
	}
	var status *int32
	if p := findInChain(pNext, sTypeBindMemoryStatus); p != nil {
		status = (*bindMemoryStatus)(p).pResult
	}
	return bindOK(false, status)
}

// memoryInfo decodes what a VkMemoryAllocateInfo chain says about dedication
// and external memory. An import wins over an export in the same chain.
func memoryInfo(pNext unsafe.Pointer) accounting.MemoryInfo {
	var mi accounting.MemoryInfo
	for p := pNext; p != nil; p = unsafe.Pointer((*C.VkBaseInStructure)(p).pNext) {
		switch (*C.VkBaseInStructure)(p).sType {
		case C.VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO:
			d := (*C.VkMemoryDedicatedAllocateInfo)(p)
			if h := handle(unsafe.Pointer(d.image)); h != 0 {
				mi.Dedicated, mi.DedicatedHandle = accounting.KindImage, h
			} else if h := handle(unsafe.Pointer(d.buffer)); h != 0 {
				mi.Dedicated, mi.DedicatedHandle = accounting.KindBuffer, h
			}
		case C.VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR:
			imported(&mi, uint32((*C.VkImportMemoryFdInfoKHR)(p).handleType))
		case C.VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT:
			imported(&mi, uint32((*C.VkImportMemoryHostPointerInfoEXT)(p).handleType))
		case C.VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO:
			if t := uint32((*C.VkExportMemoryAllocateInfo)(p).handleTypes); t != 0 && mi.External != accounting.ExternalImported {
				mi.External, mi.HandleTypes = accounting.ExternalExported, t
			}
		}
	}
	return mi
}

// imported marks an import; handle type 0 means the struct imports nothing.
func imported(mi *accounting.MemoryInfo, handleType uint32) {
	if handleType != 0 {
		mi.External, mi.HandleTypes = accounting.ExternalImported, handleType
	}
}

func postGetSwapchainImagesKHR(device uintptr, swapchain uint64, pCount *C.uint32_t, pImages *uint64, result C.VkResult) {
	if (result == C.VK_SUCCESS || result == C.VK_INCOMPLETE) && pCount != nil {
		st.swapchainImages(device, swapchain, cslice(pImages, *pCount))
	}
}

func preDestroySwapchainKHR(device uintptr, swapchain uint64, _ *C.VkAllocationCallbacks) {
	st.swapchainDestroyed(device, swapchain)
}

// postQueueBindSparse records the binds of a successful vkQueueBindSparse
// when it returns; the queue performs them later, after the semaphores it
// waits on.
func postQueueBindSparse(queue uintptr, n C.uint32_t, infos *C.VkBindSparseInfo, _ uint64, result C.VkResult) {
	if result != C.VK_SUCCESS || infos == nil {
		return
	}
	device := uintptr(C.memreport_queue_device(C.uintptr_t(queue)))
	if device == 0 {
		return
	}
	ranges := func(kind accounting.ResourceKind, h uint64, binds []C.VkSparseMemoryBind) {
		for _, m := range binds {
			st.sparseBound(device, kind, h, uint64(m.resourceOffset), uint64(m.size), handle(unsafe.Pointer(m.memory)), uint64(m.memoryOffset))
		}
	}
	for _, bi := range cslice(infos, n) {
		for _, b := range cslice(bi.pBufferBinds, bi.bufferBindCount) {
			ranges(accounting.KindBuffer, handle(unsafe.Pointer(b.buffer)), cslice(b.pBinds, b.bindCount))
		}
		for _, b := range cslice(bi.pImageOpaqueBinds, bi.imageOpaqueBindCount) {
			ranges(accounting.KindImage, handle(unsafe.Pointer(b.image)), cslice(b.pBinds, b.bindCount))
		}
		for _, b := range cslice(bi.pImageBinds, bi.imageBindCount) {
			image := handle(unsafe.Pointer(b.image))
			for _, m := range cslice(b.pBinds, b.bindCount) {
				region := accounting.ImageRegion{Aspect: uint32(m.subresource.aspectMask), MipLevel: uint32(m.subresource.mipLevel),
					ArrayLayer: uint32(m.subresource.arrayLayer), X: int32(m.offset.x), Y: int32(m.offset.y), Z: int32(m.offset.z)}
				st.sparseImageBound(device, image, region, handle(unsafe.Pointer(m.memory)), uint64(m.memoryOffset), func() uint64 {
					return uint64(C.memreport_sparse_image_bind_size(C.uintptr_t(device), C.uint64_t(image), C.uint32_t(region.Aspect), m.extent))
				})
			}
		}
	}
}

func postCreateVideoSessionKHR(device uintptr, _ *C.VkVideoSessionCreateInfoKHR, _ *C.VkAllocationCallbacks, pSession *uint64, result C.VkResult) {
	if result == C.VK_SUCCESS && pSession != nil && *pSession != 0 {
		st.videoSessionCreated(device, *pSession)
	}
}

func preDestroyVideoSessionKHR(device uintptr, session uint64, _ *C.VkAllocationCallbacks) {
	st.resourceDestroyed(device, accounting.KindVideoSession, session)
}

func postBindVideoSessionMemoryKHR(device uintptr, session uint64, n C.uint32_t, infos *C.VkBindVideoSessionMemoryInfoKHR, result C.VkResult) {
	if result != C.VK_SUCCESS {
		return
	}
	for _, b := range cslice(infos, n) {
		st.videoSessionBound(device, session, uint32(b.memoryBindIndex), handle(unsafe.Pointer(b.memory)), uint64(b.memoryOffset), uint64(b.memorySize))
	}
}

// cslice views a C array of n elements; nil for a NULL pointer.
func cslice[T any](p *T, n C.uint32_t) []T {
	if p == nil || n == 0 {
		return nil
	}
	return unsafe.Slice(p, int(n))
}
