package layer

/*
#include "vkgen_defer.h"
*/
import "C"

import (
	"sync"
	"unsafe"

	"github.com/vkgen/vkgen/layer/vk"
	"github.com/vkgen/vkgen/objectnames"
)

// Object names are the framework's: for the layers that declare
// object_names, the naming trampolines record vkSetDebugUtilsObjectNameEXT
// and vkDebugMarkerSetObjectNameEXT before the call down (durable records:
// the exit watcher writes the pending ones into the trace files), the
// destroy trampolines record the ended objects that may have been named,
// and vkDestroyDevice the device; the drain applies them to
// objectnames.Shared(), where the layers read names and subscribe to
// changes (objectnames.SharedHub). A device chain records each call once:
// a layer with such a layer of this library above it hands out the next
// layer's naming commands (vkgen_runtime.c, names_above).

var namesOnce sync.Once

// RecordNames registers the drain of the framework's object-name records
// (the generated glue of a layer declaring object_names calls it in init).
func RecordNames() {
	namesOnce.Do(func() {
		const who = "vkgen object names"
		RegisterDeferred(unsafe.Pointer(&C.vkgen_cap_names_SetDebugUtilsObjectNameEXT), who, "vkSetDebugUtilsObjectNameEXT", nameUtils)
		RegisterDeferred(unsafe.Pointer(&C.vkgen_cap_names_DebugMarkerSetObjectNameEXT), who, "vkDebugMarkerSetObjectNameEXT", nameMarker)
		RegisterDeferred(unsafe.Pointer(&C.vkgen_cap_names_forget), who, "forget", forgetName)
	})
}

// Errors are names the specifications forbid (UNKNOWN type, null handle,
// a debug-report type with no object type): the store keeps nothing.

func nameUtils(r *Record) {
	if info := (*vk.DebugUtilsObjectNameInfoEXT)(r.Pointer(1)); info != nil {
		_ = objectnames.Shared().SetName(r.Value(0), info.ObjectType, info.ObjectHandle, CStringView(unsafe.Pointer(info.PObjectName)))
	}
}

func nameMarker(r *Record) {
	if info := (*vk.DebugMarkerObjectNameInfoEXT)(r.Pointer(1)); info != nil {
		_ = objectnames.Shared().SetDebugMarkerObjectName(r.Value(0), &objectnames.DebugMarkerObjectNameInfo{
			ObjectType: info.ObjectType, Object: info.Object, ObjectName: CStringView(unsafe.Pointer(info.PObjectName)),
		})
	}
}

// forgetName drops an ended object's name; for a device, its objects' too.
func forgetName(r *Record) {
	objectnames.Shared().ObjectDestroyed(r.Value(0), vk.ObjectType(int32(r.Value(1))), r.Value(2))
}
