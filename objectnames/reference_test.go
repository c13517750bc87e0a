package objectnames

import (
	"errors"
	"testing"

	gen "github.com/vkgen/vkgen/generated"
)

// The tests in this file follow the C++ reference's test_objectnames.cpp
// (reference-behaviour.md section 6.1) one by one, adapted where the package
// deliberately deviates (see the package doc).

func TestRefStoresAndEmitsName(t *testing.T) {
	s, r := newStore()
	mustSet(t, s, 0xd, gen.ObjectTypeBuffer, 0x1234, "vertices")
	if s.Len() != 1 {
		t.Fatalf("Len = %d, want 1", s.Len())
	}
	wantName(t, s, 0xd, gen.ObjectTypeBuffer, 0x1234, "vertices")
	wantRecords(t, r.take(), Record{Device: 0xd, Type: gen.ObjectTypeBuffer, Handle: 0x1234, Name: "vertices"})
}

func TestRefRenamingReplacesTheStoredName(t *testing.T) {
	s, r := newStore()
	mustSet(t, s, 1, gen.ObjectTypeImage, 2, "old")
	mustSet(t, s, 1, gen.ObjectTypeImage, 2, "new")
	if s.Len() != 1 {
		t.Fatalf("Len = %d, want 1", s.Len())
	}
	wantName(t, s, 1, gen.ObjectTypeImage, 2, "new")
	wantRecords(t, r.take(),
		Record{Device: 1, Type: gen.ObjectTypeImage, Handle: 2, Name: "old"},
		Record{Device: 1, Type: gen.ObjectTypeImage, Handle: 2, Name: "new"})
}

func TestRefHandlesAreScopedByObjectType(t *testing.T) {
	s, _ := newStore()
	mustSet(t, s, 1, gen.ObjectTypeBuffer, 42, "as buffer")
	mustSet(t, s, 1, gen.ObjectTypeImage, 42, "as image")
	if s.Len() != 2 {
		t.Fatalf("Len = %d, want 2", s.Len())
	}
	wantName(t, s, 1, gen.ObjectTypeBuffer, 42, "as buffer")
	wantName(t, s, 1, gen.ObjectTypeImage, 42, "as image")
}

// Reference: NullNameIsStoredAsNullLiteral. Deviation: a null name removes
// the name (VK_EXT_debug_utils); it is never stored as "NULL".
func TestRefNullNameRemovesInsteadOfStoringNullLiteral(t *testing.T) {
	s, r := newStore()
	mustSet(t, s, 1, gen.ObjectTypeBuffer, 3, "named")
	if err := s.SetNameBytes(1, gen.ObjectTypeBuffer, 3, nil); err != nil {
		t.Fatal(err)
	}
	if name, ok := s.Get(1, gen.ObjectTypeBuffer, 3); ok || name == "NULL" {
		t.Fatalf("null name stored as %q", name)
	}
	recs := r.take()
	if len(recs) != 2 || !recs[1].Removed || recs[1].Name != "" {
		t.Fatalf("want the name then one removal, got %+v", recs)
	}
}

func TestRefUnknownObjectHasNoName(t *testing.T) {
	s, _ := newStore()
	if name, ok := s.Get(1, gen.ObjectTypeBuffer, 99); ok || name != "" {
		t.Fatalf("Get = %q, %v for an unnamed object", name, ok)
	}
}

func TestRefDebugUtilsNameInfoIsStored(t *testing.T) {
	s, r := newStore()
	const device = 0xdead0000
	info := &DebugUtilsObjectNameInfo{ObjectType: gen.ObjectTypeRenderPass, ObjectHandle: 0x77, ObjectName: "main pass"}
	if err := s.SetDebugUtilsObjectName(device, info); err != nil {
		t.Fatal(err)
	}
	wantName(t, s, device, gen.ObjectTypeRenderPass, 0x77, "main pass")
	wantRecords(t, r.take(), Record{Device: device, Type: gen.ObjectTypeRenderPass, Handle: 0x77, Name: "main pass"})
}

func TestRefDebugMarkerNameInfoIsMappedToModernObjectType(t *testing.T) {
	s, r := newStore()
	info := &DebugMarkerObjectNameInfo{ObjectType: gen.DebugReportObjectTypeImage, Object: 0x88, ObjectName: "albedo"}
	if err := s.SetDebugMarkerObjectName(5, info); err != nil {
		t.Fatal(err)
	}
	wantName(t, s, 5, gen.ObjectTypeImage, 0x88, "albedo")
	wantRecords(t, r.take(), Record{Device: 5, Type: gen.ObjectTypeImage, Handle: 0x88, Name: "albedo"})
}

func TestRefNullNameInfoIsIgnored(t *testing.T) {
	s, r := newStore()
	if err := s.SetDebugUtilsObjectName(1, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.SetDebugMarkerObjectName(1, nil); err != nil {
		t.Fatal(err)
	}
	if s.Len() != 0 {
		t.Fatalf("Len = %d", s.Len())
	}
	wantRecords(t, r.take())
}

func TestRefEmitAllReplaysEveryKnownName(t *testing.T) {
	s, r := newStore()
	mustSet(t, s, 1, gen.ObjectTypeBuffer, 1, "A")
	mustSet(t, s, 1, gen.ObjectTypeBuffer, 2, "B")
	mustSet(t, s, 1, gen.ObjectTypeBuffer, 1, "A2")
	r.take()
	if n := s.EmitAll(r); n != 2 {
		t.Fatalf("EmitAll returned %d", n)
	}
	wantRecords(t, r.take(),
		Record{Device: 1, Type: gen.ObjectTypeBuffer, Handle: 1, Name: "A2"},
		Record{Device: 1, Type: gen.ObjectTypeBuffer, Handle: 2, Name: "B"})
}

// Reference: ClearDropsEverything (Clear is Reset here).
func TestRefClearDropsEverything(t *testing.T) {
	s, r := newStore()
	mustSet(t, s, 1, gen.ObjectTypeBuffer, 1, "A")
	mustSet(t, s, 1, gen.ObjectTypeImage, 1, "B")
	r.take()
	s.Reset()
	if s.Len() != 0 {
		t.Fatalf("Len = %d after Reset", s.Len())
	}
	s.EmitAll(r)
	wantRecords(t, r.take())
}

// Reference: LegacyObjectTypeMapping, extended to every mapped row of
// reference-behaviour.md 3.1 and 3.2. Deviation: 0x7FFFFFFF (MAX_ENUM) and
// the unassigned 31 and 32 are rejected instead of mapped to UNKNOWN.
func TestRefLegacyObjectTypeMapping(t *testing.T) {
	rows := []struct {
		legacy gen.DebugReportObjectType
		want   gen.ObjectType
	}{
		{gen.DebugReportObjectTypeUnknown, gen.ObjectTypeUnknown},
		{gen.DebugReportObjectTypeInstance, gen.ObjectTypeInstance},
		{gen.DebugReportObjectTypePhysicalDevice, gen.ObjectTypePhysicalDevice},
		{gen.DebugReportObjectTypeDevice, gen.ObjectTypeDevice},
		{gen.DebugReportObjectTypeQueue, gen.ObjectTypeQueue},
		{gen.DebugReportObjectTypeSemaphore, gen.ObjectTypeSemaphore},
		{gen.DebugReportObjectTypeCommandBuffer, gen.ObjectTypeCommandBuffer},
		{gen.DebugReportObjectTypeFence, gen.ObjectTypeFence},
		{gen.DebugReportObjectTypeDeviceMemory, gen.ObjectTypeDeviceMemory},
		{gen.DebugReportObjectTypeBuffer, gen.ObjectTypeBuffer},
		{gen.DebugReportObjectTypeImage, gen.ObjectTypeImage},
		{gen.DebugReportObjectTypeEvent, gen.ObjectTypeEvent},
		{gen.DebugReportObjectTypeQueryPool, gen.ObjectTypeQueryPool},
		{gen.DebugReportObjectTypeBufferView, gen.ObjectTypeBufferView},
		{gen.DebugReportObjectTypeImageView, gen.ObjectTypeImageView},
		{gen.DebugReportObjectTypeShaderModule, gen.ObjectTypeShaderModule},
		{gen.DebugReportObjectTypePipelineCache, gen.ObjectTypePipelineCache},
		{gen.DebugReportObjectTypePipelineLayout, gen.ObjectTypePipelineLayout},
		{gen.DebugReportObjectTypeRenderPass, gen.ObjectTypeRenderPass},
		{gen.DebugReportObjectTypePipeline, gen.ObjectTypePipeline},
		{gen.DebugReportObjectTypeDescriptorSetLayout, gen.ObjectTypeDescriptorSetLayout},
		{gen.DebugReportObjectTypeSampler, gen.ObjectTypeSampler},
		{gen.DebugReportObjectTypeDescriptorPool, gen.ObjectTypeDescriptorPool},
		{gen.DebugReportObjectTypeDescriptorSet, gen.ObjectTypeDescriptorSet},
		{gen.DebugReportObjectTypeFramebuffer, gen.ObjectTypeFramebuffer},
		{gen.DebugReportObjectTypeCommandPool, gen.ObjectTypeCommandPool},
		{gen.DebugReportObjectTypeSurfaceKHR, gen.ObjectTypeSurfaceKHR},
		{gen.DebugReportObjectTypeSwapchainKHR, gen.ObjectTypeSwapchainKHR},
		{gen.DebugReportObjectTypeDebugReportCallbackEXT, gen.ObjectTypeDebugReportCallbackEXT},
		{gen.DebugReportObjectTypeDisplayKHR, gen.ObjectTypeDisplayKHR},
		{gen.DebugReportObjectTypeDisplayModeKHR, gen.ObjectTypeDisplayModeKHR},
		{gen.DebugReportObjectTypeValidationCacheEXT, gen.ObjectTypeValidationCacheEXT},
		{gen.DebugReportObjectTypeSamplerYcbcrConversion, gen.ObjectTypeSamplerYcbcrConversion},
		{gen.DebugReportObjectTypeDescriptorUpdateTemplate, gen.ObjectTypeDescriptorUpdateTemplate},
		{gen.DebugReportObjectTypeAccelerationStructureNV, gen.ObjectTypeAccelerationStructureNV},
		{gen.DebugReportObjectTypeCuModuleNVX, gen.ObjectTypeCuModuleNVX},
		{gen.DebugReportObjectTypeCuFunctionNVX, gen.ObjectTypeCuFunctionNVX},
		{gen.DebugReportObjectTypeAccelerationStructureKHR, gen.ObjectTypeAccelerationStructureKHR},
		{gen.DebugReportObjectTypeBufferCollectionFUCHSIA, gen.ObjectTypeBufferCollectionFUCHSIA},
		{gen.DebugReportObjectTypeCudaModuleNV, gen.ObjectTypeCudaModuleNV},
		{gen.DebugReportObjectTypeCudaFunctionNV, gen.ObjectTypeCudaFunctionNV},
		// Aliases share their value with a row above.
		{gen.DebugReportObjectTypeDebugReport, gen.ObjectTypeDebugReportCallbackEXT},
		{gen.DebugReportObjectTypeSamplerYcbcrConversionKHR, gen.ObjectTypeSamplerYcbcrConversion},
	}
	for _, row := range rows {
		if got, ok := row.legacy.ObjectType(); !ok || got != row.want {
			t.Errorf("%v maps to %v, %v; want %v", row.legacy, got, ok, row.want)
		}
		if row.want == gen.ObjectTypeUnknown {
			continue // rejected by the store, tested in TestInvalidObjectsAreRejected
		}
		// Through the adapter, the name lands under the modern type.
		s, r := newStore()
		info := &DebugMarkerObjectNameInfo{ObjectType: row.legacy, Object: 0x100, ObjectName: "n"}
		if err := s.SetDebugMarkerObjectName(3, info); err != nil {
			t.Errorf("%v: %v", row.legacy, err)
			continue
		}
		if recs := r.take(); len(recs) != 1 || recs[0].Type != row.want {
			t.Errorf("%v: emitted %+v, want type %v", row.legacy, recs, row.want)
		}
	}

	s, r := newStore()
	for _, bad := range []gen.DebugReportObjectType{0x7FFFFFFF, 31, 32, -1} {
		err := s.SetDebugMarkerObjectName(1, &DebugMarkerObjectNameInfo{ObjectType: bad, Object: 1, ObjectName: "x"})
		if !errors.Is(err, ErrUnmappedLegacyType) {
			t.Errorf("legacy type %d: err = %v, want ErrUnmappedLegacyType", int32(bad), err)
		}
	}
	if s.Len() != 0 {
		t.Fatalf("rejected legacy types stored %d names", s.Len())
	}
	wantRecords(t, r.take())
}
