package memreport

/*
#include "vkgen_memreport.h"
*/
import "C"

import (
	"unsafe"

	"github.com/vkgen/vkgen/layer"
	"github.com/vkgen/vkgen/layer/memreport/accounting"
)

// memreportCallback receives one VK_EXT_device_memory_report event from the
// C callback, on whatever thread the driver reports from.
//
//export memreportCallback
func memreportCallback(token uint64, typ uint32, memoryObjectID, size uint64, objectType int32, objectHandle uint64, heapIndex, flags uint32) {
	defer layer.Recover(layerName, "device memory report callback")
	st.callback(token, accounting.CallbackEvent{
		Type: accounting.CallbackType(typ), MemoryObjectID: memoryObjectID, Size: size,
		ObjectType: objectType, ObjectHandle: objectHandle, HeapIndex: heapIndex,
		// The reference reads an INTERNAL_OBJECT bit (0x1) that the registry
		// does not define; drivers following the specification send 0 and
		// report application memory as VK_OBJECT_TYPE_DEVICE_MEMORY, so any
		// other object type is internal too.
		Internal: flags&1 != 0 || objectType != accounting.ObjectTypeDeviceMemory,
	})
}

// memreportDeviceCreated is called by the C post hook of a successful
// vkCreateDevice with the memory type flags and heap indices of its
// physical device (n entries each), its instance, and whether its
// VK_EXT_memory_budget can be sampled (then it is, once, at once).
//
//export memreportDeviceCreated
func memreportDeviceCreated(device, instance uintptr, token uint64, hasCallback C.int, flags, heaps *C.uint32_t, n C.uint32_t, budget C.int) {
	defer layer.Recover(layerName, "postCreateDevice")
	var props accounting.MemoryProperties
	if flags != nil && heaps != nil && n > 0 {
		props.TypeFlags = unsafe.Slice((*uint32)(unsafe.Pointer(flags)), int(n))
		props.TypeHeaps = unsafe.Slice((*uint32)(unsafe.Pointer(heaps)), int(n))
	}
	st.deviceCreated(device, instance, token, hasCallback != 0, budget != 0, props) // the engine copies both
	sampleBudgetNow(device, true)
}

// memreportDeviceFailed is called when vkCreateDevice failed after the
// layer handed out a callback token.
//
//export memreportDeviceFailed
func memreportDeviceFailed(token uint64) {
	defer layer.Recover(layerName, "postCreateDevice")
	st.deviceFailed(token)
}
