package memreport

import (
	"unsafe"

	"github.com/vkgen/vkgen/layer/memreport/accounting"
	"github.com/vkgen/vkgen/layer/vk"
)

// Hooks of the binds beyond buffers and images bound whole (swapchain
// images, sparse binds, video sessions) and the pNext decoding of
// allocations and per-bind results. Like hooks.go they only decode; they
// are rare, so they run in the call.

// bindMemoryStatus is VkBindMemoryStatus (Vulkan 1.4, VK_KHR_maintenance6),
// written here so that the layer builds from registries before it too.
type bindMemoryStatus struct {
	SType   vk.StructureType
	PNext   unsafe.Pointer
	PResult *int32
}

const sTypeBindMemoryStatus vk.StructureType = 1000545002 // VK_STRUCTURE_TYPE_BIND_MEMORY_STATUS

// bindTookEffect tells whether the bind whose info chain is pNext took
// effect in a vkBind*Memory2 call that returned result (bindOK).
func bindTookEffect(result vk.Result, pNext unsafe.Pointer) bool {
	if result == vk.Success {
		return true
	}
	var status *int32
	for st, p := range vk.Chain(pNext) {
		if st == sTypeBindMemoryStatus {
			status = (*bindMemoryStatus)(p).PResult
			break
		}
	}
	return bindOK(false, status)
}

// memoryInfo decodes what a VkMemoryAllocateInfo chain says about dedication
// and external memory. An import wins over an export in the same chain.
func memoryInfo(pNext unsafe.Pointer) accounting.MemoryInfo {
	var mi accounting.MemoryInfo
	for st, p := range vk.Chain(pNext) {
		switch st {
		case vk.StructureTypeMemoryDedicatedAllocateInfo:
			d := (*vk.MemoryDedicatedAllocateInfo)(p)
			if d.Image != 0 {
				mi.Dedicated, mi.DedicatedHandle = accounting.KindImage, uint64(d.Image)
			} else if d.Buffer != 0 {
				mi.Dedicated, mi.DedicatedHandle = accounting.KindBuffer, uint64(d.Buffer)
			}
		case vk.StructureTypeImportMemoryFdInfoKHR:
			imported(&mi, uint32((*vk.ImportMemoryFdInfoKHR)(p).HandleType))
		case vk.StructureTypeImportMemoryHostPointerInfoEXT:
			imported(&mi, uint32((*vk.ImportMemoryHostPointerInfoEXT)(p).HandleType))
		case vk.StructureTypeExportMemoryAllocateInfo:
			if t := uint32((*vk.ExportMemoryAllocateInfo)(p).HandleTypes); t != 0 && mi.External != accounting.ExternalImported {
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

func postGetSwapchainImagesKHR(device vk.Device, swapchain vk.SwapchainKHR, pCount *uint32, pImages *vk.Image, result vk.Result) {
	if (result == vk.Success || result == vk.Incomplete) && pCount != nil {
		images := cslice(pImages, *pCount)
		st.swapchainImages(uintptr(device), uint64(swapchain), unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(images))), len(images)))
	}
}

func preDestroySwapchainKHR(device vk.Device, swapchain vk.SwapchainKHR, _ *vk.AllocationCallbacks) {
	st.swapchainDestroyed(uintptr(device), uint64(swapchain))
}

// postQueueBindSparse records the binds of a successful vkQueueBindSparse
// when it returns; the queue performs them later, after the semaphores it
// waits on.
func postQueueBindSparse(queue vk.Queue, n uint32, infos *vk.BindSparseInfo, _ vk.Fence, result vk.Result) {
	if result != vk.Success || infos == nil {
		return
	}
	device := deviceOfQueue(queue)
	if device == 0 {
		return
	}
	ranges := func(kind accounting.ResourceKind, h uint64, binds []vk.SparseMemoryBind) {
		for _, m := range binds {
			st.sparseBound(uintptr(device), kind, h, uint64(m.ResourceOffset), uint64(m.Size), uint64(m.Memory), uint64(m.MemoryOffset))
		}
	}
	for _, bi := range cslice(infos, n) {
		for _, b := range cslice(bi.PBufferBinds, bi.BufferBindCount) {
			ranges(accounting.KindBuffer, uint64(b.Buffer), cslice(b.PBinds, b.BindCount))
		}
		for _, b := range cslice(bi.PImageOpaqueBinds, bi.ImageOpaqueBindCount) {
			ranges(accounting.KindImage, uint64(b.Image), cslice(b.PBinds, b.BindCount))
		}
		for _, b := range cslice(bi.PImageBinds, bi.ImageBindCount) {
			for _, m := range cslice(b.PBinds, b.BindCount) {
				region := accounting.ImageRegion{Aspect: uint32(m.Subresource.AspectMask), MipLevel: m.Subresource.MipLevel,
					ArrayLayer: m.Subresource.ArrayLayer, X: m.Offset.X, Y: m.Offset.Y, Z: m.Offset.Z}
				st.sparseImageBound(uintptr(device), uint64(b.Image), region, uint64(m.Memory), uint64(m.MemoryOffset), func() uint64 {
					return sparseImageBindSize(device, b.Image, region.Aspect, m.Extent)
				})
			}
		}
	}
}

// sparseImageBindSize is the bytes a VkSparseImageMemoryBind of extent binds
// in the aspect: its sparse blocks (the aspect's imageGranularity, partial
// blocks at the edge counted whole) times the block size (the image's
// memory alignment). 0 when the driver reports no sparse requirements for
// the aspect.
func sparseImageBindSize(device vk.Device, image vk.Image, aspect uint32, extent vk.Extent3D) uint64 {
	var props [8]vk.SparseImageMemoryRequirements
	n := uint32(len(props))
	next.GetImageSparseMemoryRequirements(device, image, &n, &props[0])
	var g vk.Extent3D
	for _, p := range props[:min(n, uint32(len(props)))] {
		if uint32(p.FormatProperties.AspectMask)&aspect != 0 {
			g = p.FormatProperties.ImageGranularity
		}
	}
	if g.Width == 0 || g.Height == 0 || g.Depth == 0 {
		return 0
	}
	var r vk.MemoryRequirements
	next.GetImageMemoryRequirements(device, image, &r)
	blocks := func(n, g uint32) uint64 { return (uint64(n) + uint64(g) - 1) / uint64(g) }
	return blocks(extent.Width, g.Width) * blocks(extent.Height, g.Height) * blocks(extent.Depth, g.Depth) * uint64(r.Alignment)
}

// afterCreateVideoSessionKHR is deferred, like the other creates, so that
// its record carries the call stack (the session's binds and destroy drain
// before they run).
func afterCreateVideoSessionKHR(device vk.Device, _ *vk.VideoSessionCreateInfoKHR, _ *vk.AllocationCallbacks, pSession *vk.VideoSessionKHR, result vk.Result) {
	if result == vk.Success && pSession != nil && *pSession != 0 {
		st.videoSessionCreated(uintptr(device), uint64(*pSession), sites.current())
	}
}

func preDestroyVideoSessionKHR(device vk.Device, session vk.VideoSessionKHR, _ *vk.AllocationCallbacks) {
	st.resourceDestroyed(uintptr(device), accounting.KindVideoSession, uint64(session))
}

func postBindVideoSessionMemoryKHR(device vk.Device, session vk.VideoSessionKHR, n uint32, infos *vk.BindVideoSessionMemoryInfoKHR, result vk.Result) {
	if result != vk.Success {
		return
	}
	for _, b := range cslice(infos, n) {
		st.videoSessionBound(uintptr(device), uint64(session), b.MemoryBindIndex, uint64(b.Memory), uint64(b.MemoryOffset), uint64(b.MemorySize))
	}
}
