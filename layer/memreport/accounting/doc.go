// Package accounting is the pure-Go memory accounting engine of the
// DeviceMemoryReport layer: it attributes device memory to buffers and images
// by usage cluster and reports counter totals and VulkanMemoryAllocation
// events through a Sink. It owns only this bookkeeping; it must not import
// cgo, Vulkan headers, tracing or layer code. Handles are plain uint64 values
// and flags use the Vulkan bit values (constants in cluster.go); the layer
// maps intercepts one-to-one onto the Engine's methods and adapts the Sink to
// Perfetto.
//
// # Reference rules implemented (reference-behaviour.md section 5)
//
//   - Clusters and precedence of 4.7 (ClassifyBuffer, ClassifyImage), with
//     two rules first that fit real programs (docs/memreport.md
//     "Clusters"): a buffer of three functional usage kinds or more is
//     general_buffer, an image with every usage of a GL texture is
//     static_texture (Zink gives them all); tracks
//     "vulkan.mem.{app|driver}.usage.<cluster>" (TrackName).
//   - Callback keys (5.2), driver vs app prefix (5.3), ALLOCATE/IMPORT and
//     FREE/UNIMPORT (5.4), fallback vs callback devices (5.5): on a callback
//     device vkAllocateMemory only supplies the memory type's flags.
//   - Bind, rebind replaces, destroy removes the binding (5.6); every bound
//     resource counts its full size in its cluster.
//   - Unbound bytes = total minus the union of bound intervals, merging
//     overlapping and adjacent ranges, interval ends saturating (5.7).
//   - Frees (5.8) report one DESTROY per sub-allocation, then the allocation
//     DESTROY with the tracked size; driver allocations made for a buffer or
//     image before it was created move to its cluster on creation (5.9).
//
// # Fixes of the reference's weak points (7.2, 7.3)
//
//   - Device scope: allocations and resources live per device key; the same
//     handle value on two devices never collides. DeviceDestroyed releases
//     the device's allocations with their DESTROY events, so its counters
//     return to 0 even when the driver never sent FREE callbacks. The device
//     key is any stable uint64 the layer picks (the VkDevice, or a token
//     passed as the callback's pUserData so callbacks fired inside
//     vkCreateDevice land on the same device); events for an unseen key
//     create its state, DeviceCreated keeps it.
//   - Key spaces: VkDeviceMemory handles and callback memoryObjectIds are
//     separate key spaces (KeySpace) and are never merged.
//   - Resource kind: every resource call names its kind, and resources are
//     keyed by (kind, handle), so an image first seen through its memory
//     requirements stays an image (cluster and BIND source IMAGE).
//   - Disjoint multi-planar images: each plane has its own size
//     (PlaneRequirementsKnown) and bind (PlaneBound); the image's bytes are
//     the sum of its planes, and NeedsPlaneSize lets the layer query a
//     missing plane size at bind time instead of dropping the bind.
//   - Binds to memory VK_NULL_HANDLE (swapchain binds) are ignored and
//     counted (Stats.NullMemoryBinds); ALLOCATION_FAILED, and a failed
//     vkAllocateMemory on a device without the callback (AllocationFailed),
//     are OpAllocationFailed events and counted (Stats.AllocationFailures,
//     FailedBytes), never allocations; frees of unknown
//     memory are ignored and counted (Stats.UnknownFrees). No input panics.
//   - Binds before the memory is known create a placeholder (no CREATE, app,
//     size 0) whose BINDs count and are replayed by Snapshot as they were
//     reported live. A placeholder is removed, with DESTROYs for its
//     sub-allocations, by vkFreeMemory of its handle even on a callback
//     device, so a callback that never reports the memory leaves nothing
//     behind; a later ALLOCATE/IMPORT for the handle adopts its bindings.
//   - Memory flags learned after a bind re-classify the bound
//     sub-allocations too (reported as DESTROY + BIND on the new cluster),
//     not only the unbound bytes: on a callback device the flags arrive with
//     vkAllocateMemory's return, after the ALLOCATE callback, and binds that
//     raced ahead to a placeholder are corrected.
//   - A resource whose requirement size changes while bound is rebound in
//     place with the new size; a handle reused without a seen destroy/free
//     retires the stale record first.
//   - Heaps (7.2.10): every counter also exists per memory heap (the
//     memory type's heapIndex from MemoryProperties.TypeHeaps, or the
//     callback's heapIndex), reported to a HeapSink with its process-wide
//     value (heaps.go).
//   - Leaks: Leaks lists, once, what is still alive on a device (leaks.go).
//   - Counters: totals are exact unsigned 128-bit sums of uint64 sizes and
//     are reported as int64 saturating at math.MaxInt64, so huge sizes never
//     make a counter drift; subtraction clamps at 0. Every counter returns
//     to exactly 0 when the application frees everything. Snapshot order is
//     deterministic (sorted devices and keys, sub-allocations in offset
//     order), not hash-map order.
//
// # Beyond the reference (issue 15: every way memory is bound)
//
//   - Dedicated allocations (MemoryInfo.Dedicated): the allocation is owned
//     by its image or buffer, so its unbound bytes count in that resource's
//     cluster while the resource lives (the whole allocation is the
//     resource's from allocation to free); when the resource is destroyed
//     first they go back to unbound_memory. CREATE/DESTROY carry the
//     resource (AllocationEvent.Dedicated, DedicatedHandle).
//   - External memory (MemoryInfo.External, or a callback IMPORT) is marked
//     IMPORTED or EXPORTED with its handle types on CREATE/DESTROY; it
//     still counts like other application memory (the device uses it).
//   - Swapchain images (SwapchainImages, SwapchainBound for application
//     images bound to swapchain memory, SwapchainDestroyed): known as the
//     presentation engine's, in no counter; size queries, binds and
//     destroys of them are counted as invalid calls and change nothing;
//     BIND/DESTROY events with memory_type SwapchainMemoryType and size 0
//     list them (swapchain.go).
//   - Range binds (sparse.go): sparse buffer and opaque image ranges
//     (SparseBound: a bind replaces what it overlaps, memory 0 unbinds),
//     sparse image regions (SparseImageBound: keyed by subresource and
//     offset) and video session bindings (VideoSessionBound, cluster
//     video_session, source VIDEO_SESSION); each range is a
//     sub-allocation of its memory.
//
// Kept from the reference on purpose: an ALLOCATE/IMPORT for a key that is
// already live updates it and reports CREATE again; a driver allocation keeps
// its resource cluster when the resource is destroyed (the driver frees it
// in the same vkDestroy* call).
//
// # Wiring (one method per intercept)
//
//	vkCreateDevice ok          DeviceCreated (after the call; callbacks fired
//	                           during it use the same device key)
//	vkDestroyDevice            Leaks before the call, DeviceDestroyed after
//	vkCreateBuffer/Image ok    BufferCreated / ImageCreated
//	vkDestroyBuffer/Image      ResourceDestroyed, before calling down
//	vkGet*MemoryRequirements*  RequirementsKnown, or PlaneRequirementsKnown
//	                           with VkImagePlaneMemoryRequirementsInfo
//	vkBind*Memory* ok          Bound, or PlaneBound with
//	                           VkBindImagePlaneMemoryInfo, or SwapchainBound
//	                           with VkBindImageMemorySwapchainInfoKHR; query
//	                           requirements first when NeedsSize/
//	                           NeedsPlaneSize says so (per bind of a failed
//	                           *2 call whose VkBindMemoryStatus says so), or
//	                           BoundQuerying, which does both for a whole
//	                           resource
//	vkAllocateMemory ok        MemoryAllocatedWith (the chain's dedicated,
//	                           import and export structs)
//	vkAllocateMemory failed    AllocationFailed
//	vkGetSwapchainImagesKHR    SwapchainImages
//	vkDestroySwapchainKHR      SwapchainDestroyed, before calling down
//	vkQueueBindSparse ok       SparseBound, SparseImageBound per bind
//	vkCreateVideoSessionKHR ok VideoSessionCreated (destroy:
//	                           ResourceDestroyed with KindVideoSession)
//	vkBindVideoSessionMemoryKHR ok  VideoSessionBound per binding
//	vkFreeMemory               MemoryFreed, before calling down
//	memory report callback     Callback
//	tracing session start      Snapshot, then the name store's replay
//
// # Concurrency
//
// One mutex guards all state (calls come from application threads and from
// driver callback threads). The Sink is called with the lock held, so the
// order of events and counter values equals the order of state changes, as
// in the name store; the Sink must therefore be quick and must not call the
// Engine. A sink that implements EventCounterSink gets the counter changes
// of a call with the call's next event (the layer writes them in that
// event's packet); the order is the same. A sink that implements IdleSink
// and is idle (no trace session) gets no counter changes at all; the totals
// are kept, so a Snapshot replays them. Every allocation and binding event
// points at a word of the record it comes from (AllocationEvent.Mark) where
// the sink keeps a value of its own (the layer: its index of the object),
// and Locker lends the sink the engine's lock for its own state. Hot paths
// use small integer track
// ids instead of strings; records of destroyed resources and freed
// allocations are reused, so a create+bind+destroy (+ allocate and free)
// allocates nothing.
package accounting
