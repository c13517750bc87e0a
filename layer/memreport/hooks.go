package memreport

import (
	"runtime"
	"unsafe"

	"github.com/vkgen/vkgen/layer/memreport/accounting"
	"github.com/vkgen/vkgen/layer/memreport/describe"
	"github.com/vkgen/vkgen/layer/vk"
)

// The layer's hooks of memory, buffers and images (the framework records
// object names: the spec declares object_names). The frequent ones
// are deferred (after<Cmd>, before<Cmd>): the application's thread only
// records the call, and the framework's drain runs them in call order, with
// the call's time (deferred records carry it while a session runs). Destroys
// and frees are before the call down, so a handle the driver hands out again
// cannot overtake its own destroy. They decode the structures into plain
// values for state; pointers are never retained.

func preDestroyDevice(device vk.Device, _ *vk.AllocationCallbacks) {
	st.deviceDestroying(uintptr(device))
	sampleBudgetNow(uintptr(device), true)
}

func postDestroyDevice(device vk.Device, _ *vk.AllocationCallbacks) {
	st.deviceDestroyed(uintptr(device))
	dropDevice(device)
}

// afterQueuePresentKHR ends a frame (overtime.go) and samples the budget,
// whatever the present's result: the application's frame ended.
func afterQueuePresentKHR(queue vk.Queue, _ *vk.PresentInfoKHR, _ vk.Result) {
	st.ot.present()
	sampleBudgetNow(uintptr(deviceOfQueue(queue)), false)
}

func afterAllocateMemory(device vk.Device, info *vk.MemoryAllocateInfo, _ *vk.AllocationCallbacks, pMemory *vk.DeviceMemory, result vk.Result) {
	if info == nil {
		return
	}
	defer sampleBudgetNow(uintptr(device), false)
	if result != vk.Success {
		st.allocationFailed(uintptr(device), uint64(info.AllocationSize), info.MemoryTypeIndex)
		return
	}
	if pMemory == nil {
		return
	}
	mi := memoryInfo(info.PNext)
	mi.Site = sites.current()
	st.memoryAllocated(uintptr(device), uint64(*pMemory), uint64(info.AllocationSize), info.MemoryTypeIndex, mi)
}

// beforeFreeMemory samples the budget as of before the free, before the
// layer's counters drop, so both still hold the memory: what the free
// releases shows at the next sample.
func beforeFreeMemory(device vk.Device, memory vk.DeviceMemory, _ *vk.AllocationCallbacks) {
	sampleBudgetNow(uintptr(device), false)
	st.memoryFreed(uintptr(device), uint64(memory))
}

func afterCreateBuffer(device vk.Device, info *vk.BufferCreateInfo, _ *vk.AllocationCallbacks, pBuffer *vk.Buffer, result vk.Result) {
	if result != vk.Success || info == nil || pBuffer == nil || *pBuffer == 0 {
		return
	}
	st.bufferCreated(uintptr(device), uint64(*pBuffer), uint64(info.Usage), uint64(info.Size), sites.current())
}

func afterCreateImage(device vk.Device, info *vk.ImageCreateInfo, _ *vk.AllocationCallbacks, pImage *vk.Image, result vk.Result) {
	if result != vk.Success || info == nil || pImage == nil || *pImage == 0 {
		return
	}
	st.imageCreated(uintptr(device), uint64(*pImage), describe.Image{
		Type: int32(info.ImageType), Format: int32(info.Format), Tiling: int32(info.Tiling),
		Width: info.Extent.Width, Height: info.Extent.Height, Depth: info.Extent.Depth,
		MipLevels: info.MipLevels, ArrayLayers: info.ArrayLayers, Samples: uint32(info.Samples),
		Usage: uint32(info.Usage), Flags: uint32(info.Flags),
	}, sites.current())
}

func beforeDestroyBuffer(device vk.Device, buffer vk.Buffer, _ *vk.AllocationCallbacks) {
	st.resourceDestroyed(uintptr(device), accounting.KindBuffer, uint64(buffer))
}

func beforeDestroyImage(device vk.Device, image vk.Image, _ *vk.AllocationCallbacks) {
	st.resourceDestroyed(uintptr(device), accounting.KindImage, uint64(image))
}

func afterGetBufferMemoryRequirements(device vk.Device, buffer vk.Buffer, r *vk.MemoryRequirements) {
	if r != nil {
		st.requirements(uintptr(device), accounting.KindBuffer, uint64(buffer), uint64(r.Size))
	}
}

func afterGetImageMemoryRequirements(device vk.Device, image vk.Image, r *vk.MemoryRequirements) {
	if r != nil {
		st.requirements(uintptr(device), accounting.KindImage, uint64(image), uint64(r.Size))
	}
}

func afterGetBufferMemoryRequirements2(device vk.Device, info *vk.BufferMemoryRequirementsInfo2, r *vk.MemoryRequirements2) {
	if info != nil && r != nil {
		st.requirements(uintptr(device), accounting.KindBuffer, uint64(info.Buffer), uint64(r.MemoryRequirements.Size))
	}
}

func afterGetImageMemoryRequirements2(device vk.Device, info *vk.ImageMemoryRequirementsInfo2, r *vk.MemoryRequirements2) {
	if info == nil || r == nil {
		return
	}
	image, size := uint64(info.Image), uint64(r.MemoryRequirements.Size)
	if p := vk.Find[vk.ImagePlaneMemoryRequirementsInfo](info.PNext); p != nil {
		st.planeRequirements(uintptr(device), image, uint32(p.PlaneAspect), size)
		return
	}
	st.requirements(uintptr(device), accounting.KindImage, image, size)
}

// afterBindBufferMemory has the buffer's requirements from when the call was
// recorded: the drain may run after the buffer is gone.
//
//vkgen:query vkGetBufferMemoryRequirements
func afterBindBufferMemory(device vk.Device, buffer vk.Buffer, memory vk.DeviceMemory, offset vk.DeviceSize, result vk.Result, r *vk.MemoryRequirements) {
	if result == vk.Success {
		st.bound(uintptr(device), accounting.KindBuffer, uint64(buffer), uint64(memory), uint64(offset), planeAspectNone, func() uint64 { return uint64(r.Size) })
	}
}

//vkgen:query vkGetImageMemoryRequirements
func afterBindImageMemory(device vk.Device, image vk.Image, memory vk.DeviceMemory, offset vk.DeviceSize, result vk.Result, r *vk.MemoryRequirements) {
	if result == vk.Success {
		st.bound(uintptr(device), accounting.KindImage, uint64(image), uint64(memory), uint64(offset), planeAspectNone, func() uint64 { return uint64(r.Size) })
	}
}

// The *2 binds stay synchronous: one call binds several resources, and a
// resource whose requirements the application never queried is asked for
// them while it still exists.

func postBindBufferMemory2(device vk.Device, n uint32, infos *vk.BindBufferMemoryInfo, result vk.Result) {
	for _, b := range cslice(infos, n) {
		if bindTookEffect(result, b.PNext) {
			bindBuffer(device, b.Buffer, b.Memory, b.MemoryOffset)
		}
	}
}

func postBindImageMemory2(device vk.Device, n uint32, infos *vk.BindImageMemoryInfo, result vk.Result) {
	for _, b := range cslice(infos, n) {
		if !bindTookEffect(result, b.PNext) {
			continue
		}
		if p := vk.Find[vk.BindImageMemorySwapchainInfoKHR](b.PNext); p != nil && b.Memory == 0 {
			st.swapchainBound(uintptr(device), uint64(b.Image), uint64(p.Swapchain))
			continue
		}
		aspect := uint32(planeAspectNone)
		if p := vk.Find[vk.BindImagePlaneMemoryInfo](b.PNext); p != nil {
			aspect = uint32(p.PlaneAspect)
		}
		bindImage(device, b.Image, b.Memory, b.MemoryOffset, aspect)
	}
}

func bindBuffer(device vk.Device, buffer vk.Buffer, memory vk.DeviceMemory, offset vk.DeviceSize) {
	st.bound(uintptr(device), accounting.KindBuffer, uint64(buffer), uint64(memory), uint64(offset), planeAspectNone, func() uint64 {
		var r vk.MemoryRequirements
		next.GetBufferMemoryRequirements(device, buffer, &r)
		return uint64(r.Size)
	})
}

func bindImage(device vk.Device, image vk.Image, memory vk.DeviceMemory, offset vk.DeviceSize, aspect uint32) {
	st.bound(uintptr(device), accounting.KindImage, uint64(image), uint64(memory), uint64(offset), aspect, func() uint64 {
		if aspect != planeAspectNone {
			return imagePlaneSize(device, image, aspect)
		}
		var r vk.MemoryRequirements
		next.GetImageMemoryRequirements(device, image, &r)
		return uint64(r.Size)
	})
}

// imagePlaneSize asks for one plane's requirements (through the core or the
// KHR name, whichever the chain has).
func imagePlaneSize(device vk.Device, image vk.Image, aspect uint32) uint64 {
	plane := vk.ImagePlaneMemoryRequirementsInfo{SType: vk.StructureTypeImagePlaneMemoryRequirementsInfo, PlaneAspect: vk.ImageAspectFlagBits(aspect)}
	info := vk.ImageMemoryRequirementsInfo2{SType: vk.StructureTypeImageMemoryRequirementsInfo2, PNext: unsafe.Pointer(&plane), Image: image}
	r := vk.MemoryRequirements2{SType: vk.StructureTypeMemoryRequirements2}
	var pin runtime.Pinner
	defer pin.Unpin()
	pin.Pin(&plane)
	if !next.GetImageMemoryRequirements2(device, &info, &r) {
		next.GetImageMemoryRequirements2KHR(device, &info, &r)
	}
	return uint64(r.MemoryRequirements.Size)
}

// cslice views an array of n elements; nil for a NULL pointer.
func cslice[T any](p *T, n uint32) []T {
	if p == nil || n == 0 {
		return nil
	}
	return unsafe.Slice(p, int(n))
}
