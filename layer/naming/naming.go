// Package naming records the object names applications set through Vulkan
// into the process-wide name store (objectnames.Shared()) for the layers
// that declare object_names: the framework's naming trampolines record
// vkSetDebugUtilsObjectNameEXT and vkDebugMarkerSetObjectNameEXT before the
// call down (durable records: the exit watcher writes the pending ones into
// the trace files), the destroy trampolines record the ended objects that
// may have been named, and vkDestroyDevice the device; the drain applies
// them here, where the layers read names and subscribe to changes
// (objectnames.SharedHub). A device chain records each call once: a layer
// with such a layer of this library above it hands out the next layer's
// naming commands (vkgen_runtime.c, names_above).
//
// It sits between the framework (package layer, which knows no name store)
// and the store; the generated glue of a layer declaring object_names calls
// Record. It must not import tracing or product layers.
package naming

/*
#cgo CFLAGS: -I${SRCDIR}/..
#include "vkgen_defer.h"
*/
import "C"

import (
	"sync"
	"unsafe"

	"github.com/vkgen/vkgen/layer"
	"github.com/vkgen/vkgen/layer/vk"
	"github.com/vkgen/vkgen/objectnames"
)

var namesOnce sync.Once

// Record registers the drain of the framework's object-name records
// (the generated glue of a layer declaring object_names calls it in init).
func Record() {
	namesOnce.Do(func() {
		const who = "vkgen object names"
		layer.RegisterDeferred(unsafe.Pointer(&C.vkgen_cap_names_SetDebugUtilsObjectNameEXT), who, "vkSetDebugUtilsObjectNameEXT", nameUtils)
		layer.RegisterDeferred(unsafe.Pointer(&C.vkgen_cap_names_DebugMarkerSetObjectNameEXT), who, "vkDebugMarkerSetObjectNameEXT", nameMarker)
		layer.RegisterDeferred(unsafe.Pointer(&C.vkgen_cap_names_forget), who, "forget", forgetName)
	})
}

// Errors are names the specifications forbid (UNKNOWN type, null handle,
// a debug-report type with no object type): the store keeps nothing.

func nameUtils(r *layer.Record) {
	if info := (*vk.DebugUtilsObjectNameInfoEXT)(r.Pointer(1)); info != nil {
		_ = objectnames.Shared().SetName(r.Value(0), info.ObjectType, info.ObjectHandle, layer.CStringView(unsafe.Pointer(info.PObjectName)))
	}
}

func nameMarker(r *layer.Record) {
	if info := (*vk.DebugMarkerObjectNameInfoEXT)(r.Pointer(1)); info != nil {
		_ = objectnames.Shared().SetDebugMarkerObjectName(r.Value(0), &objectnames.DebugMarkerObjectNameInfo{
			ObjectType: info.ObjectType, Object: info.Object, ObjectName: layer.CStringView(unsafe.Pointer(info.PObjectName)),
		})
	}
}

// forgetName drops an ended object's name; for a device, its objects' too.
func forgetName(r *layer.Record) {
	objectnames.Shared().ObjectDestroyed(r.Value(0), vk.ObjectType(int32(r.Value(1))), r.Value(2))
}
