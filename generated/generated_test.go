package generated_test

import (
	"sort"
	"testing"

	. "github.com/vkgen/vkgen/generated"
)

func TestObjectTypeAPI(t *testing.T) {
	if got := ObjectTypeBuffer.String(); got != "VK_OBJECT_TYPE_BUFFER" {
		t.Errorf("String = %q", got)
	}
	if got := ObjectType(12345).String(); got != "VkObjectType(12345)" {
		t.Errorf("unknown String = %q", got)
	}
	cases := []struct {
		t            ObjectType
		handle       string
		dispatchable bool
		parent       ObjectType
	}{
		{ObjectTypeUnknown, "", false, ObjectTypeUnknown},
		{ObjectTypeInstance, "VkInstance", true, ObjectTypeUnknown},
		{ObjectTypeDevice, "VkDevice", true, ObjectTypePhysicalDevice},
		{ObjectTypeCommandBuffer, "VkCommandBuffer", true, ObjectTypeCommandPool},
		{ObjectTypeBuffer, "VkBuffer", false, ObjectTypeDevice},
		{ObjectTypeSurfaceKHR, "VkSurfaceKHR", false, ObjectTypeInstance},
		{ObjectTypeExternalComputeQueueNV, "VkExternalComputeQueueNV", true, ObjectTypeDevice},
		{ObjectType(12345), "", false, ObjectTypeUnknown},
	}
	for _, c := range cases {
		if c.t.HandleName() != c.handle || c.t.Dispatchable() != c.dispatchable || c.t.Parent() != c.parent {
			t.Errorf("%v: handle %q dispatchable %v parent %v; want %q %v %v", c.t,
				c.t.HandleName(), c.t.Dispatchable(), c.t.Parent(), c.handle, c.dispatchable, c.parent)
		}
	}
	if ObjectType(12345).Valid() || !ObjectTypeCudaModuleNV.Valid() {
		t.Error("Valid wrong")
	}
	if !sort.SliceIsSorted(ObjectTypes, func(i, j int) bool { return ObjectTypes[i] < ObjectTypes[j] }) {
		t.Error("ObjectTypes not ascending")
	}
	for _, o := range ObjectTypes {
		if !o.Valid() {
			t.Errorf("%v listed but not Valid", o)
		}
	}
	if ObjectTypeDescriptorUpdateTemplateKHR != ObjectTypeDescriptorUpdateTemplate {
		t.Error("alias constant differs from its target")
	}
}

func TestDebugReportMapping(t *testing.T) {
	cases := map[DebugReportObjectType]ObjectType{
		DebugReportObjectTypeUnknown:                ObjectTypeUnknown,
		DebugReportObjectTypeBuffer:                 ObjectTypeBuffer,
		DebugReportObjectTypeSurfaceKHR:             ObjectTypeSurfaceKHR, // 26 -> 1000000000: not a cast
		DebugReportObjectTypeDebugReportCallbackEXT: ObjectTypeDebugReportCallbackEXT,
		DebugReportObjectTypeValidationCacheEXT:     ObjectTypeValidationCacheEXT,
		DebugReportObjectTypeCudaModuleNV:           ObjectTypeCudaModuleNV,
		DebugReportObjectTypeCudaFunctionNV:         ObjectTypeCudaFunctionNV,
	}
	for d, want := range cases {
		got, ok := d.ObjectType()
		if !ok || got != want {
			t.Errorf("%v.ObjectType() = %v, %v; want %v", d, got, ok, want)
		}
		back, ok := want.DebugReportObjectType()
		if !ok || back != d {
			t.Errorf("%v.DebugReportObjectType() = %v, %v; want %v", want, back, ok, d)
		}
	}
	if o, _ := DebugReportObjectTypeDebugReport.ObjectType(); o != ObjectTypeDebugReportCallbackEXT { // alias
		t.Errorf("alias DEBUG_REPORT_EXT maps to %v", o)
	}
	if o, ok := DebugReportObjectType(0x7FFFFFFF).ObjectType(); ok {
		t.Errorf("MAX_ENUM mapped to %v", o)
	}
	if d, ok := ObjectTypeTensorARM.DebugReportObjectType(); ok {
		t.Errorf("TensorARM has no legacy value, got %v", d)
	}
	if got := DebugReportObjectTypeSurfaceKHR.String(); got != "VK_DEBUG_REPORT_OBJECT_TYPE_SURFACE_KHR_EXT" {
		t.Errorf("String = %q", got)
	}
	if got := DebugReportObjectType(31).String(); got != "VkDebugReportObjectTypeEXT(31)" {
		t.Errorf("String = %q", got)
	}
}

func TestDestroyers(t *testing.T) {
	if !sort.SliceIsSorted(Destroyers, func(i, j int) bool { return Destroyers[i].Command < Destroyers[j].Command }) {
		t.Fatal("Destroyers not sorted")
	}
	want := []Destroyer{
		{"vkDestroyBuffer", ObjectTypeBuffer, 1, -1},
		{"vkDestroyDevice", ObjectTypeDevice, 0, -1},
		{"vkDestroyInstance", ObjectTypeInstance, 0, -1},
		{"vkDestroySurfaceKHR", ObjectTypeSurfaceKHR, 1, -1},
		{"vkDestroyExternalComputeQueueNV", ObjectTypeExternalComputeQueueNV, 1, -1},
		{"vkFreeMemory", ObjectTypeDeviceMemory, 1, -1},
		{"vkFreeCommandBuffers", ObjectTypeCommandBuffer, 3, 2},
		{"vkFreeDescriptorSets", ObjectTypeDescriptorSet, 3, 2},
		{"vkDestroyDescriptorUpdateTemplateKHR", ObjectTypeDescriptorUpdateTemplate, 1, -1},
		{"vkReleasePerformanceConfigurationINTEL", ObjectTypePerformanceConfigurationINTEL, 1, -1},
	}
	for _, w := range want {
		got, ok := DestroyerByCommand(w.Command)
		if !ok || got != w {
			t.Errorf("DestroyerByCommand(%q) = %+v, %v; want %+v", w.Command, got, ok, w)
		}
	}
	for _, name := range []string{"vkReleaseProfilingLockKHR", "vkReleaseDisplayEXT", "vkCreateBuffer", ""} {
		if d, ok := DestroyerByCommand(name); ok {
			t.Errorf("%q listed as destroyer: %+v", name, d)
		}
	}
	ds := DestroyersOf(ObjectTypeDescriptorUpdateTemplate)
	if len(ds) != 2 || ds[0].Command != "vkDestroyDescriptorUpdateTemplate" || ds[1].Command != "vkDestroyDescriptorUpdateTemplateKHR" {
		t.Errorf("DestroyersOf(DescriptorUpdateTemplate) = %+v", ds)
	}
	if ds := DestroyersOf(ObjectTypeQueue); len(ds) != 0 {
		t.Errorf("queues are not destroyed, got %+v", ds)
	}
}
