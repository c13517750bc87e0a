package memreport

import (
	"unsafe"

	"github.com/vkgen/vkgen/layer"
	"github.com/vkgen/vkgen/layer/vk"
)

// buildCreateInfo returns the VkDeviceCreateInfo the layer passes down: a
// copy of app (never app's structures themselves, which the application
// owns) whose pNext chain starts with a VkDeviceDeviceMemoryReportCreateInfoEXT
// (cb, token) and, unless the application already enabled it, the
// deviceMemoryReport feature, and whose extensions include
// VK_EXT_device_memory_report, when use is set and that can be done without
// changing the application's structures (an application feature struct with
// deviceMemoryReport = VK_FALSE cannot be overridden: a second one would be
// invalid); then chained is true. Otherwise the copy equals app. The
// application's own report callbacks stay in the chain. nil when app is nil
// or a is out of memory.
func buildCreateInfo(a layer.Arena, app *vk.DeviceCreateInfo, use bool, token uint64, cb vk.PFNDeviceMemoryReportCallbackEXT) (ci *vk.DeviceCreateInfo, chained bool) {
	if app == nil {
		return nil, false
	}
	if ci = layer.Clone(a, app); ci == nil {
		return nil, false
	}
	feat := vk.Find[vk.PhysicalDeviceDeviceMemoryReportFeaturesEXT](app.PNext)
	if !use || cb == nil || feat != nil && feat.DeviceMemoryReport == vk.Bool32(vk.False) {
		return ci, false
	}
	exts := cslice(app.PpEnabledExtensionNames, app.EnabledExtensionCount)
	have := false
	for _, e := range exts {
		have = have || layer.CStringView(unsafe.Pointer(e)) == extDeviceMemoryReport
	}
	if !have {
		names := layer.NewSlice[*byte](a, len(exts)+1)
		name := layer.CString(a, extDeviceMemoryReport)
		if names == nil || name == nil {
			return nil, false
		}
		copy(names, exts)
		names[len(exts)] = name
		ci.EnabledExtensionCount, ci.PpEnabledExtensionNames = uint32(len(names)), &names[0]
	}
	rest := app.PNext
	if feat == nil {
		f := layer.New[vk.PhysicalDeviceDeviceMemoryReportFeaturesEXT](a)
		if f == nil {
			return nil, false
		}
		f.SType, f.PNext, f.DeviceMemoryReport = vk.StructureTypePhysicalDeviceDeviceMemoryReportFeaturesEXT, rest, vk.Bool32(vk.True)
		rest = unsafe.Pointer(f)
	}
	r := layer.New[vk.DeviceDeviceMemoryReportCreateInfoEXT](a)
	if r == nil {
		return nil, false
	}
	r.SType, r.PNext, r.PfnUserCallback = vk.StructureTypeDeviceDeviceMemoryReportCreateInfoEXT, rest, cb
	*(*uintptr)(unsafe.Pointer(&r.PUserData)) = uintptr(token) // an integer the callback gets back, never dereferenced
	ci.PNext = unsafe.Pointer(r)
	return ci, true
}
