package vk

import (
	"slices"
	"testing"
	"unsafe"
)

func TestFindAndChain(t *testing.T) {
	f12 := PhysicalDeviceVulkan12Features{SType: StructureTypePhysicalDeviceVulkan12Features, BufferDeviceAddress: 1}
	usage := ExternalMemoryBufferCreateInfo{SType: StructureTypeExternalMemoryBufferCreateInfo, PNext: unsafe.Pointer(&f12), HandleTypes: 0x20}
	ci := BufferCreateInfo{SType: StructureTypeBufferCreateInfo, PNext: unsafe.Pointer(&usage), Size: 4096}

	if got := Find[ExternalMemoryBufferCreateInfo](ci.PNext); got != &usage || got.HandleTypes != 0x20 {
		t.Errorf("Find usage = %p, want %p", got, &usage)
	}
	if got := Find[PhysicalDeviceVulkan12Features](ci.PNext); got != &f12 || got.BufferDeviceAddress != 1 {
		t.Errorf("Find features = %p, want %p", got, &f12)
	}
	if got := Find[PhysicalDeviceVulkan11Features](ci.PNext); got != nil {
		t.Errorf("Find absent struct = %p, want nil", got)
	}
	if got := Find[BufferCreateInfo](nil); got != nil {
		t.Errorf("Find in a nil chain = %p", got)
	}
	var types []StructureType
	var ptrs []unsafe.Pointer
	for st, p := range Chain(unsafe.Pointer(&ci)) {
		types, ptrs = append(types, st), append(ptrs, p)
	}
	if want := []StructureType{StructureTypeBufferCreateInfo, StructureTypeExternalMemoryBufferCreateInfo, StructureTypePhysicalDeviceVulkan12Features}; !slices.Equal(types, want) {
		t.Errorf("Chain types = %v, want %v", types, want)
	}
	if want := []unsafe.Pointer{unsafe.Pointer(&ci), unsafe.Pointer(&usage), unsafe.Pointer(&f12)}; !slices.Equal(ptrs, want) {
		t.Errorf("Chain pointers = %v, want %v", ptrs, want)
	}
	for range Chain(unsafe.Pointer(&ci)) {
		break // stopping early must not walk on
	}
}

// A chain looping back on itself ends after MaxChainLength structs.
func TestChainLoopEnds(t *testing.T) {
	a := BaseInStructure{SType: StructureTypeBufferCreateInfo}
	b := BaseInStructure{SType: StructureTypeExternalMemoryBufferCreateInfo, PNext: &a}
	a.PNext = &b
	n := 0
	for range Chain(unsafe.Pointer(&a)) {
		n++
	}
	if n != MaxChainLength {
		t.Errorf("walked %d structs, want %d", n, MaxChainLength)
	}
	if got := Find[PhysicalDeviceVulkan12Features](unsafe.Pointer(&a)); got != nil {
		t.Errorf("Find in a loop = %p, want nil", got)
	}
}

func TestStructureTypeMethods(t *testing.T) {
	for _, c := range []struct {
		s    Chained
		want StructureType
	}{
		{&BufferCreateInfo{}, 12},
		{&PhysicalDeviceVulkan12Features{}, 51},
		{&InstanceCreateInfo{}, 1},
	} {
		if got := c.s.StructureType(); got != c.want {
			t.Errorf("%T.StructureType() = %d, want %d", c.s, got, c.want)
		}
	}
}

func TestBitfields(t *testing.T) {
	var s AccelerationStructureInstanceKHR
	s.SetInstanceCustomIndex(0x1234567) // 25 bits: the 25th is dropped
	s.SetMask(0xab)
	s.SetInstanceShaderBindingTableRecordOffset(0xfedcba)
	s.SetFlags(0x5)
	if s.InstanceCustomIndex() != 0x234567 || s.Mask() != 0xab || s.InstanceShaderBindingTableRecordOffset() != 0xfedcba || s.Flags() != 5 {
		t.Errorf("read back %#x %#x %#x %#x", s.InstanceCustomIndex(), s.Mask(), s.InstanceShaderBindingTableRecordOffset(), s.Flags())
	}
	// C packs instanceCustomIndex:24 then mask:8 into the uint32 at 48.
	raw := (*[2]uint32)(unsafe.Add(unsafe.Pointer(&s), 48))
	if raw[0] != 0xab234567 || raw[1] != 0x05fedcba {
		t.Errorf("storage %#x %#x, want 0xab234567 0x05fedcba", raw[0], raw[1])
	}
}

func TestUnionViews(t *testing.T) {
	var v ClearValue
	v.Color().Float32()[2] = 0.5
	if got := v.Color().Uint32()[2]; got != 0x3f000000 {
		t.Errorf("uint32 view of 0.5 = %#x", got)
	}
	v.DepthStencil().Stencil = 7
	if got := v.Color().Uint32()[1]; got != 7 {
		t.Errorf("stencil through color view = %d, want 7", got)
	}
	if unsafe.Pointer(v.DepthStencil()) != unsafe.Pointer(&v) {
		t.Error("union member view does not start at the union")
	}
}

func TestHandlesAreIntegers(t *testing.T) {
	var d Device = 1 // drivers may use small integers
	var b Buffer = 0xffff_ffff_ffff_fff0
	if unsafe.Sizeof(d) != 8 || unsafe.Sizeof(b) != 8 || d != 1 || b>>60 != 0xf {
		t.Error("handle types are not 64-bit integers")
	}
	if WholeSize != ^uint64(0) || QueueFamilyIgnored != ^uint32(0) || MaxExtensionNameSize != 256 || LodClampNone != 1000 {
		t.Errorf("API constants: %#x %#x %d %v", WholeSize, QueueFamilyIgnored, MaxExtensionNameSize, LodClampNone)
	}
	if Success != 0 || ErrorOutOfHostMemory != -1 || PipelineCacheHeaderVersionOneValue != 1 {
		t.Error("enumerant values")
	}
}
