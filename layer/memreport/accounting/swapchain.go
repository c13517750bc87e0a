package accounting

import "slices"

// Swapchain images hold memory of the presentation engine, not of the
// application: they are known so that binds, size queries and destroys of
// them change no counter, and they are reported as BIND/DESTROY events with
// memory_type SwapchainMemoryType, size 0 and memory_object_id 0, so trace
// readers list them as swapchain images.

// SwapchainImages records the images vkGetSwapchainImagesKHR returned for a
// swapchain. Images already known as its images are left alone (the
// application asks again), a handle known as anything else is retired
// first.
func (e *Engine) SwapchainImages(dev, swapchain uint64, images []uint64) {
	if swapchain == 0 {
		return
	}
	e.lock()
	defer e.unlock()
	d := e.dev(dev)
	for _, h := range images {
		if h == 0 {
			e.stats.InvalidCalls++
			continue
		}
		k := resKey{KindImage, h}
		if old := d.resources.At(k); old != nil {
			if old.presentable && old.swapchain == swapchain {
				continue
			}
			e.forget(d, old)
		}
		r := &resource{key: k, presentable: true}
		d.resources.Set(k, r)
		e.joinSwapchain(d, r, swapchain)
	}
}

// SwapchainBound records a successful bind of an application image to
// swapchain memory (VkBindImageMemorySwapchainInfoKHR, memory
// VK_NULL_HANDLE).
func (e *Engine) SwapchainBound(dev, image, swapchain uint64) {
	e.lock()
	defer e.unlock()
	e.stats.NullMemoryBinds++
	d := e.devices[dev]
	var r *resource
	if d != nil {
		r = d.resources.At(resKey{KindImage, image})
	}
	switch {
	case r == nil || swapchain == 0:
		e.stats.DroppedBinds++
	case r.presentable || r.swapchain == swapchain:
	default:
		e.unbindAll(r)
		if r.swapchain != 0 {
			e.leaveSwapchain(d, r)
		}
		e.joinSwapchain(d, r, swapchain)
	}
}

// SwapchainDestroyed records vkDestroySwapchainKHR (call it before calling
// down): its images are forgotten, images bound to its memory are unbound.
// It returns the swapchain's own images, the handles that ended with it.
func (e *Engine) SwapchainDestroyed(dev, swapchain uint64) []uint64 {
	e.lock()
	defer e.unlock()
	d := e.devices[dev]
	if d == nil || swapchain == 0 {
		return nil
	}
	var own []uint64
	for _, r := range slices.Clone(d.swapchains[swapchain]) {
		if r.presentable {
			own = append(own, r.key.handle)
			e.forget(d, r)
		} else {
			e.leaveSwapchain(d, r)
		}
	}
	delete(d.swapchains, swapchain)
	return own
}

func (e *Engine) joinSwapchain(d *device, r *resource, swapchain uint64) {
	r.swapchain = swapchain
	d.swapchains[swapchain] = append(d.swapchains[swapchain], r)
	e.emitSwapchain(d, r, OpBind)
}

// leaveSwapchain reports the end of r's swapchain memory and drops it from
// the swapchain's list.
func (e *Engine) leaveSwapchain(d *device, r *resource) {
	e.emitSwapchain(d, r, OpDestroy)
	list := d.swapchains[r.swapchain]
	if i := slices.Index(list, r); i >= 0 {
		d.swapchains[r.swapchain] = slices.Delete(list, i, i+1)
	}
	if len(d.swapchains[r.swapchain]) == 0 {
		delete(d.swapchains, r.swapchain)
	}
	r.swapchain = 0
}

func (e *Engine) emitSwapchain(d *device, r *resource, op Operation) {
	e.emit(swapchainEvent(d, r, op))
}

func swapchainEvent(d *device, r *resource, op Operation) AllocationEvent {
	return AllocationEvent{Operation: op, Source: SourceImage, Device: d.key, ObjectHandle: r.key.handle,
		MemoryType: SwapchainMemoryType, Swapchain: r.swapchain, Site: r.site}
}
