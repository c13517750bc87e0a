package memreport

import "github.com/vkgen/vkgen/layer/memreport/accounting"

// The state methods of the binds beyond buffers and images bound whole:
// per-bind results, swapchain images, sparse binds, video sessions.

// bindOK tells whether one bind of a vkBind*Memory2 call took effect. The
// call's result covers every bind; when it failed, only a bind whose
// VkBindMemoryStatus (maintenance6) says VK_SUCCESS did: without one, the
// specification leaves the resources of a failed batch indeterminate (they
// must not be used), so nothing is recorded for them.
func bindOK(callOK bool, status *int32) bool {
	return callOK || (status != nil && *status == 0)
}

func (s *state) swapchainImages(device uintptr, swapchain uint64, images []uint64) {
	s.engine.SwapchainImages(s.key(device), swapchain, images)
}

func (s *state) swapchainBound(device uintptr, image, swapchain uint64) {
	s.engine.SwapchainBound(s.key(device), image, swapchain)
}

// swapchainDestroyed ends the swapchain's images (the framework forgets
// their names: docs/layers.md, "Object names").
func (s *state) swapchainDestroyed(device uintptr, swapchain uint64) {
	s.engine.SwapchainDestroyed(s.key(device), swapchain)
}

// sparseBound records one VkSparseMemoryBind of a buffer or an opaque image
// range.
func (s *state) sparseBound(device uintptr, kind accounting.ResourceKind, handle, resourceOffset, size, memory, memoryOffset uint64) {
	s.engine.SparseBound(s.key(device), kind, handle, resourceOffset, size, memory, memoryOffset)
}

// sparseImageBound records one VkSparseImageMemoryBind; size asks the driver
// for the bytes it binds, only when memory is bound.
func (s *state) sparseImageBound(device uintptr, image uint64, region accounting.ImageRegion, memory, memoryOffset uint64, size func() uint64) {
	var n uint64
	if memory != 0 {
		n = size()
	}
	s.engine.SparseImageBound(s.key(device), image, region, n, memory, memoryOffset)
}

func (s *state) videoSessionCreated(device uintptr, session uint64, site uint32) {
	s.engine.VideoSessionCreated(s.key(device), session, site)
}

func (s *state) videoSessionBound(device uintptr, session uint64, bindIndex uint32, memory, offset, size uint64) {
	s.engine.VideoSessionBound(s.key(device), session, bindIndex, memory, offset, size)
}
