package memreport

import (
	"testing"
	"unsafe"

	"github.com/vkgen/vkgen/layer"
	"github.com/vkgen/vkgen/layer/vk"
)

// goArena gives Go memory, kept alive by the arena (the layer's is C memory
// that lives for one call).
type goArena struct{ blocks [][]uint64 }

func (a *goArena) Alloc(n uintptr) unsafe.Pointer {
	b := make([]uint64, (n+7)/8+1)
	a.blocks = append(a.blocks, b)
	return unsafe.Pointer(&b[0])
}

func cstr(s string) *byte { return &append([]byte(s), 0)[0] }

func names(ci *vk.DeviceCreateInfo) []string {
	var out []string
	for _, n := range cslice(ci.PpEnabledExtensionNames, ci.EnabledExtensionCount) {
		out = append(out, layer.CStringView(unsafe.Pointer(n)))
	}
	return out
}

// TestBuildCreateInfo: what vkCreateDevice passes down (buildCreateInfo):
// always a copy, the application's structures untouched.
func TestBuildCreateInfo(t *testing.T) {
	cb := vk.PFNDeviceMemoryReportCallbackEXT(unsafe.Pointer(&struct{ x int }{}))
	ext := []*byte{cstr("VK_KHR_swapchain")}
	app := vk.DeviceCreateInfo{SType: vk.StructureTypeDeviceCreateInfo, EnabledExtensionCount: 1, PpEnabledExtensionNames: &ext[0]}
	snapshot := app

	// The driver lacks the extension: an unchanged copy.
	a := &goArena{}
	ci, chained := buildCreateInfo(a, &app, false, 7, cb)
	if ci == nil || chained || *ci != app || ci == &app {
		t.Fatalf("without the extension: %+v chained=%v, want a copy of %+v", ci, chained, app)
	}

	// A plain application: extension appended, report and feature chained.
	ci, chained = buildCreateInfo(a, &app, true, 7, cb)
	if !chained || app != snapshot {
		t.Fatalf("chained=%v, application's info changed: %+v", chained, app)
	}
	if got := names(ci); len(got) != 2 || got[0] != "VK_KHR_swapchain" || got[1] != extDeviceMemoryReport {
		t.Errorf("extensions %v", got)
	}
	r := (*vk.DeviceDeviceMemoryReportCreateInfoEXT)(ci.PNext)
	if r.SType != vk.StructureTypeDeviceDeviceMemoryReportCreateInfoEXT || r.PfnUserCallback != cb || uintptr(r.PUserData) != 7 {
		t.Errorf("report info %+v", r)
	}
	f := vk.Find[vk.PhysicalDeviceDeviceMemoryReportFeaturesEXT](ci.PNext)
	if f == nil || f.DeviceMemoryReport != vk.Bool32(vk.True) || f.PNext != nil {
		t.Errorf("feature %+v", f)
	}

	// The application enabled it itself, with its own callback and feature:
	// both stay, the layer's report comes first, nothing is added twice.
	own := vk.DeviceDeviceMemoryReportCreateInfoEXT{SType: vk.StructureTypeDeviceDeviceMemoryReportCreateInfoEXT, PUserData: unsafe.Pointer(&app)}
	feat := vk.PhysicalDeviceDeviceMemoryReportFeaturesEXT{SType: vk.StructureTypePhysicalDeviceDeviceMemoryReportFeaturesEXT, PNext: unsafe.Pointer(&own), DeviceMemoryReport: vk.Bool32(vk.True)}
	ext2 := []*byte{cstr(extDeviceMemoryReport)}
	app2 := vk.DeviceCreateInfo{SType: vk.StructureTypeDeviceCreateInfo, PNext: unsafe.Pointer(&feat), EnabledExtensionCount: 1, PpEnabledExtensionNames: &ext2[0]}
	ci, chained = buildCreateInfo(a, &app2, true, 8, cb)
	var chain []vk.StructureType
	for st := range vk.Chain(ci.PNext) {
		chain = append(chain, st)
	}
	want := []vk.StructureType{vk.StructureTypeDeviceDeviceMemoryReportCreateInfoEXT, vk.StructureTypePhysicalDeviceDeviceMemoryReportFeaturesEXT, vk.StructureTypeDeviceDeviceMemoryReportCreateInfoEXT}
	if !chained || len(chain) != 3 || chain[0] != want[0] || chain[1] != want[1] || chain[2] != want[2] || len(names(ci)) != 1 {
		t.Errorf("application's own report: chain %v, extensions %v", chain, names(ci))
	}

	// The feature chained as VK_FALSE cannot be overridden: no callback.
	feat.DeviceMemoryReport = vk.Bool32(vk.False)
	if ci, chained = buildCreateInfo(a, &app2, true, 9, cb); chained || ci.PNext != app2.PNext {
		t.Errorf("feature VK_FALSE: chained=%v", chained)
	}

	// No create info, no callback function: harmless.
	if ci, _ := buildCreateInfo(a, nil, true, 1, cb); ci != nil {
		t.Error("a nil create info gave a copy")
	}
	if _, chained := buildCreateInfo(a, &app, true, 1, nil); chained {
		t.Error("chained without a callback")
	}
}
