// Package debugmarker is VK_LAYER_VKGEN_DebugMarker: it implements
// VK_EXT_debug_utils (instance) and VK_EXT_debug_marker (device) on top of
// whatever the driver provides and publishes the object names the
// application sets (kept in the objectnames store shared by the project's
// layers) to Perfetto traces as VulkanApiEvent.VkDebugUtilsObjectName
// packets, live and as a replay at the start of every session. See
// docs/debugmarker.md.
//
// It owns its hooks (the Go functions of this file) and its spec; the
// hook table, Go glue and manifest are generated (vkgen generate). The
// framework forwards everything of the two extensions it claims in C and
// stands in for a driver without them (vkgen_runtime.h), and, as the spec
// declares object_names, records the names into the shared store itself:
// deferred and durable (a naming call still in the ring when the process
// dies is written into the trace files by the exit watcher), whatever the
// call's result (the reference's choice: the name is what the application
// meant), and forgets the names of ended objects (layer/naming). The
// layer publishes what the store reports. It must not import other layers.
package debugmarker

import (
	"unsafe"

	"github.com/vkgen/vkgen/layer"
	"github.com/vkgen/vkgen/layer/tracing"
	"github.com/vkgen/vkgen/layer/vk"
	"github.com/vkgen/vkgen/objectnames"
	"github.com/vkgen/vkgen/perfetto"
)

// LayerName is the name the loader knows the layer by.
const LayerName = "VK_LAYER_VKGEN_DebugMarker"

// names is the process-wide store every project layer records into; while
// this layer has a live instance, presence publishes its changes to all
// running trace sessions as raw packets and replays every current name to
// each session that starts (or was already running when the layer was put
// in an instance chain).
var (
	names    = objectnames.Shared()
	presence = tracing.Presence{
		Layer:  LayerName,
		Names:  objectnames.EmitterFunc(emitLive),
		Replay: replayInto(names),
	}
)

// emitLive writes one name change as a raw VkDebugUtilsObjectName packet.
// A removal (null or empty name) is a packet with an empty object_name.
func emitLive(r objectnames.Record) {
	if perfetto.Enabled() { // no clock read for nobody
		perfetto.Stamp(layer.EventTime()).VkObjectNameMarked(layer.DurableMark(), r.Device, int32(r.Type), r.Handle, r.Name)
	}
}

// replayInto returns the session-start hook replaying s into one session.
func replayInto(s *objectnames.Store) func(*perfetto.Emitter) {
	return func(e *perfetto.Emitter) {
		s.EmitAll(objectnames.EmitterFunc(func(r objectnames.Record) {
			e.VkObjectName(r.Device, int32(r.Type), r.Handle, r.Name)
		}))
	}
}

// postCreateInstance publishes the layer (and starts the configured trace
// sessions) once the loader has put it in an instance chain.
func postCreateInstance(info *vk.InstanceCreateInfo, _ *vk.AllocationCallbacks, _ *vk.Instance, result vk.Result) {
	if result == vk.Success {
		presence.InstanceCreated(unsafe.Pointer(info))
	}
}

// postDestroyInstance makes everything emitted so far reach the trace files
// (sessions keep running for later instances); after the last instance the
// layer stops publishing.
func postDestroyInstance(vk.Instance, *vk.AllocationCallbacks) {
	presence.InstanceDestroyed()
}
