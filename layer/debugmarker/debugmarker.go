// Package debugmarker is VK_LAYER_VKGEN_DebugMarker: it implements
// VK_EXT_debug_utils (instance) and VK_EXT_debug_marker (device) on top of
// whatever the driver provides, records every object name the application
// sets in the objectnames store shared by the project's layers, and publishes the names to Perfetto traces
// as VulkanApiEvent.VkDebugUtilsObjectName packets, live and as a replay at
// the start of every session. See docs/debugmarker.md.
//
// It owns its hooks (the Go functions of this file) and its spec; the
// hook table, Go glue and manifest are generated (vkgen generate). The
// framework forwards everything else of the two extensions it claims in C
// and stands in for a driver without them (vkgen_runtime.h); Go sees only
// name changes (the C name cache drops re-applied names), destroys of
// objects that may have been named (the framework's filter, forgetNamed,
// deferred: the drain runs them before the layer's next hook), and
// instance/device lifetime. It must not import other layers.
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
		perfetto.Stamp(layer.EventTime()).VkObjectName(r.Device, int32(r.Type), r.Handle, r.Name)
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

// beforeSetDebugUtilsObjectNameEXT records the name as the call goes down,
// whatever its result (the reference's choice): the name is what the
// application meant, and a driver without the extension has no result to
// wait for. It is deferred (the application's thread only copies the call)
// and durable: a record still in the ring when the process dies (abort,
// SIGKILL, a Go host returning from main) is written into the trace files by
// the exit watcher, so the trace has every name set before the end. Names
// the store refuses (VK_OBJECT_TYPE_UNKNOWN, VK_NULL_HANDLE) are invalid
// usage that the call down or the validation layer reports.
//
//vkgen:durable
func beforeSetDebugUtilsObjectNameEXT(device vk.Device, info *vk.DebugUtilsObjectNameInfoEXT) {
	if info == nil {
		return
	}
	_ = names.SetDebugUtilsObjectName(uint64(device), &objectnames.DebugUtilsObjectNameInfo{
		ObjectType:   info.ObjectType,
		ObjectHandle: info.ObjectHandle,
		ObjectName:   layer.CStringView(unsafe.Pointer(info.PObjectName)),
	})
}

// beforeDebugMarkerSetObjectNameEXT maps the legacy object type to
// VkObjectType through the generated table; an unmapped type is not stored.
// Deferred and durable as beforeSetDebugUtilsObjectNameEXT.
//
//vkgen:durable
func beforeDebugMarkerSetObjectNameEXT(device vk.Device, info *vk.DebugMarkerObjectNameInfoEXT) {
	if info == nil {
		return
	}
	_ = names.SetDebugMarkerObjectName(uint64(device), &objectnames.DebugMarkerObjectNameInfo{
		ObjectType: info.ObjectType,
		Object:     info.Object,
		ObjectName: layer.CStringView(unsafe.Pointer(info.PObjectName)),
	})
}

// forgetNamed drops the name of a destroyed object (called only for handles
// that may have been named through this layer).
func forgetNamed(device vk.Device, objectType vk.ObjectType, handle uint64) {
	names.ObjectDestroyed(uint64(device), objectType, handle)
}

// preDestroyDevice forgets the device's name and those of its objects
// before the handle can be reused.
func preDestroyDevice(device vk.Device, _ *vk.AllocationCallbacks) {
	if device != 0 {
		names.DeviceDestroyed(uint64(device))
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
