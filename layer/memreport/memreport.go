// Package memreport is VK_LAYER_VKGEN_DeviceMemoryReport: it attributes
// device memory to buffers and images by usage cluster and writes it to
// Perfetto as counter tracks vulkan.mem.{app|driver}.usage.<cluster>,
// VulkanMemoryAllocation and VulkanObjectName instant events (category
// VulkanDeviceMemoryReport), replaying the live state at every session start.
//
// It owns the layer's hooks (Go functions; what it hooks is what it
// implements), the device-key mapping and the trace output; the frequent
// hooks are deferred off the application's thread (hooks.go). The
// bookkeeping is package accounting's,
// names live in the objectnames store shared by the project's layers, trace
// encoding is package perfetto's.
// Trampolines, glue and manifest are generated from vkgen-layer.json and
// the hooks. It has no C of its own and must not import other layers.
//
// Memory sources: when the driver offers VK_EXT_device_memory_report (and
// its deviceMemoryReport feature), vkCreateDevice passes down a copy of the
// application's create info with the extension, the feature and the layer's
// callback chained in (device.go, createinfo.go); the callback reports driver-internal
// and application allocations. Otherwise vkAllocateMemory/vkFreeMemory are
// the source. Buffers and images come from their create, requirements, bind
// and destroy calls; swapchain images, sparse binds and video sessions from
// theirs, dedication and import/export from vkAllocateMemory's chain
// (bindhooks.go, bindstate.go). The layer claims no extension: it sees
// object naming only when something below implements it. Where the
// application made each object comes from the call stacks the framework
// captures for its creates (callstack.go).
//
// Besides counters (process-wide and per heap) and instants, every
// allocation and binding is a slice on a lane (a track reused once its
// lifetime ended) under process > device > heap (lifetimes.go), objects still alive when their device's life
// ends are VulkanMemoryLeak events (vkDestroyDevice, vkDestroyInstance,
// exit), failed allocations VulkanMemoryAllocationFailed events, and
// VK_EXT_memory_budget is sampled into counters (budget.go). Memory over
// time: frames (presents, or windows before the first), what each
// allocated, freed and bound, growth of live bytes per name or type while
// the program runs, and budget thresholds (overtime.go, growth.go,
// budgetwatch.go).
//
// Tracing starts at vkCreateInstance from $VK_VKGEN_TRACE_FILE or
// vk_layer_settings.txt (package layer/tracing) and is flushed at
// vkDestroyInstance. See docs/memreport.md.
package memreport

import (
	"github.com/vkgen/vkgen/layer"
	"github.com/vkgen/vkgen/layer/tracing"
	"github.com/vkgen/vkgen/objectnames"
)

// layerName prefixes the layer's log lines.
const layerName = "VK_LAYER_VKGEN_DeviceMemoryReport"

// st is the process-wide layer state: the library is never unloaded and
// devices are keyed individually, so one state serves every instance.
// Names go to the process-wide store shared with the other project layers,
// so a name set through any of them reaches this layer's VulkanObjectName
// events; presence publishes names and replays state only while the layer
// has a live instance.
var (
	lives    = newLifetimes()
	over     = newOverTime(traceSink{})
	st       = newState(traceSink{lt: lives, ot: over}, objectnames.Shared(), lives)
	presence = tracing.Presence{Layer: layerName, Names: nameSink{lt: lives}, Replay: st.replay}
)

// At exit, objects still alive are reported as leaks before the exit flush.
func init() {
	st.ot, over.name, over.mu, over.tick = over, st.objectName, st.engine.Locker(), layer.Now
	tracing.OnExit(st.exiting)
}
