// Package objectnames is the object-name store shared by the vkgen layers:
// the names applications give Vulkan objects through vkSetDebugUtilsObjectNameEXT
// and vkDebugMarkerSetObjectNameEXT, kept so that a trace session started
// later can be told every current name (EmitAll), and published live as they
// change through an Emitter that each layer supplies.
//
// The package owns the name records, their keying, locking and replay order.
// It must not touch tracing, cgo or the Vulkan loader: it imports only the
// standard library and the generated registry tables (package generated), so
// its tests run anywhere. Names leave the store only through Emitter; how a
// record becomes a trace packet is the layer's business.
//
// # Keying
//
// A record is keyed by (object type, handle) plus the owning device for
// non-dispatchable handles of device-level types, whose handle values are only
// unique per device. Dispatchable handles (VkInstance, VkPhysicalDevice,
// VkDevice, VkQueue, VkCommandBuffer) are pointers and unique process-wide, and
// instance-level non-dispatchable objects (VkSurfaceKHR, VkDisplayKHR,
// VkDebugUtilsMessengerEXT, ...) do not belong to a device although they are
// named through one, so those are keyed without the device. "Device-level"
// is derived from the generated parent table (the parent chain reaches
// VkDevice). An object type newer than the generated registry is treated as a
// device-level non-dispatchable type: keying it by device can never make two
// objects collide. Every record carries the device it was named through.
//
// # Ordering and locking
//
// The store is split into shards, each a mutex and a map; an object always
// lives in the same shard. A name change is stored and emitted while its
// shard's lock is held, and EmitAll emits each record while holding that
// record's shard lock, so for any one object the emission order (live and
// replay together) equals the store order: a replay running concurrently with
// renames can never deliver an older name after a newer one. A slow emitter
// therefore delays only the naming threads whose objects share its shard (one
// in 64), instead of every naming thread in the process as the reference's
// single mutex did, and a replay holds one shard for one emission at a time,
// so it delays a naming thread by one record, not by the whole replay.
// Emitting outside the locks with sequence numbers would shorten the hold
// further but push reordering onto every emitter (a trace writer cannot take
// back a packet), so the lock is kept across emission. The price: emitters run
// concurrently on different shards and must be safe for concurrent use, and
// EmitAll is not an atomic snapshot of the whole store. It walks a sorted
// snapshot of the keys and emits each object's name as current at the moment
// it is emitted; an object named after the key snapshot is not replayed, and
// one removed before its turn is skipped, both of which the live stream
// reports to any session already receiving it.
//
// An emitter must never call back into the store (naming, destroying,
// replaying or querying): the calling goroutine holds a shard lock, so a call
// that lands on the same shard deadlocks and one that lands on another merely
// appears to work. This is not detected at run time, because Go offers no
// cheap goroutine identity to compare against the lock holder.
//
// # Use by a layer
//
// The layers of a process share one store, Shared, so they agree on what
// each object is called whichever of them saw the naming call (the reference
// compiled a private copy into each layer module). While a layer is enabled
// it attaches its live emitter, which writes to every active trace session in
// that layer's own event format, to SharedHub. It names through
// SetDebugUtilsObjectName,
// SetDebugMarkerObjectName or SetNameBytes, reports destruction through
// CommandDestroyed, and on a session start first makes the session receive
// the live stream and then calls EmitAll with an emitter writing to that
// session only. In that order a session misses no change: an object renamed
// after its replay record is delivered live, one named after the key snapshot
// likewise. A store of one's own (New) serves tools and tests.
//
// # Deviations from the C++ reference (layersvt::VulkanObjectNames)
//
//   - A null or empty name removes the name, as VK_EXT_debug_utils specifies;
//     the removal is emitted once as a Record with Removed set, and removing
//     a name that does not exist emits nothing. The reference stored the text
//     "NULL" (or "") and replayed it forever.
//   - Re-applying an unchanged name (same name, same device) emits nothing and
//     allocates nothing; applications rename objects every frame. The
//     reference emitted on every call.
//   - Names are forgotten when their object is destroyed (ObjectDestroyed,
//     CommandDestroyed using the generated destroy/free command table) and when
//     their device is destroyed (DeviceDestroyed), so memory stays bounded and
//     a recycled handle does not inherit a stale name. Forgetting emits
//     nothing: a trace keeps the name for the object's past events. Children
//     freed implicitly with their pool (command buffers with vkDestroyCommandPool,
//     descriptor sets with vkDestroyDescriptorPool/vkResetDescriptorPool) are
//     not tracked and are forgotten with their device.
//   - Shard maps shrink as names are forgotten (internal/hashmap), so a
//     burst of objects does not keep its memory.
//   - A store keeps at most MaxNames names (limit.go): a program that names
//     objects it never destroys leaks handles, and must not take the host's
//     memory with them. A new name past the limit is emitted live but not
//     kept (ErrFull), counted (Refused), and the first one is told to
//     OnFull; renames of kept names and removals work as ever.
//   - The device is part of the key for non-dispatchable device-level handles,
//     so equal handle values on two devices do not collide.
//   - A legacy VkDebugReportObjectTypeEXT is mapped through the generated table
//     (every registry value, including CUDA_MODULE_NV and CUDA_FUNCTION_NV); a
//     value with no mapping is rejected with ErrUnmappedLegacyType instead of
//     being stored under VK_OBJECT_TYPE_UNKNOWN, where unrelated objects would
//     collide. VK_OBJECT_TYPE_UNKNOWN and VK_NULL_HANDLE are rejected too
//     (the specifications forbid naming them).
//   - Live emission goes to the store's own emitter while EmitAll takes the
//     emitter to replay into, so a layer can replay into just the session that
//     started; the reference linked one emitter for both.
//   - Locking is per shard, not one store mutex (see above).
//   - Names passed in are borrowed for the duration of the call and copied
//     only when stored, so cgo code can pass a view of a C string
//     (SetNameBytes, or an unsafe.String in the info structs) without
//     allocating on the common unchanged path.
//
// Whether to record a name before or after the downstream call, and only on
// success, is the calling layer's decision; the store records what it is told.
package objectnames
