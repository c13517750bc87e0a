package accounting

// AllocationFailed records a failed vkAllocateMemory (any result but
// VK_SUCCESS) of size bytes of memory type typeIndex. On a device without the
// callback it is reported as an OpAllocationFailed event and counted; on a
// callback device the driver's ALLOCATION_FAILED callback reports the same
// failure, so this records nothing (one event per failure).
func (e *Engine) AllocationFailed(dev, size uint64, typeIndex uint32) {
	e.lock()
	defer e.unlock()
	d := e.dev(dev)
	if d.hasCallback {
		return
	}
	_, heap := d.typeInfo(typeIndex)
	e.failed(AllocationEvent{Operation: OpAllocationFailed, Source: SourceDeviceMemory, Device: dev, Size: size, Heap: uint32(heap)})
}

func (e *Engine) failed(ev AllocationEvent) {
	e.stats.AllocationFailures++
	e.stats.FailedBytes = addSat(e.stats.FailedBytes, ev.Size)
	e.emit(ev)
}

// Leaks returns what is still alive on the device and was not returned by an
// earlier Leaks call: each created allocation (its CREATE event) followed by
// its bound resources (their BIND events; each range of a sparse resource or
// video session), in Snapshot order. Swapchain images hold no memory of the
// application and are no leaks; driver allocations reported for the
// VkDevice itself are the device's own memory, which the driver frees in
// vkDestroyDevice: never leaks. It changes
// nothing else: the layer calls it at vkDestroyDevice before
// DeviceDestroyed, at vkDestroyInstance and at process exit, and each object
// is a leak once. A binding made after the call is a new object.
func (e *Engine) Leaks(dev uint64) []AllocationEvent {
	e.lock()
	defer e.unlock()
	d := e.devices[dev]
	if d == nil {
		return nil
	}
	var out []AllocationEvent
	for _, a := range sortedAllocs(d) {
		if a.created && !a.leaked && !(a.driver && a.objectType == ObjectTypeDevice) {
			a.leaked = true
			out = append(out, allocationEvent(a, OpCreate))
		}
		for s := range a.subs.all() {
			sl := s.res.at(int(s.plane))
			if !sl.leaked {
				sl.leaked = true
				out = append(out, bindingEvent(s.res, int(s.plane), OpBind))
			}
		}
		for _, b := range a.ranges {
			if !b.leaked {
				b.leaked = true
				out = append(out, rangeEvent(b, OpBind))
			}
		}
	}
	return out
}
