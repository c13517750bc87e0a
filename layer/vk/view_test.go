package vk

import (
	"testing"
	"unsafe"

	"github.com/vkgen/vkgen/internal/cmem"
)

// TestSliceOverCMemory: a counted pointer's accessor is a slice over the C
// memory it points to, and nil for a nil pointer, a zero count or an
// absurd one.
func TestSliceOverCMemory(t *testing.T) {
	const n = 3
	info := (*DeviceCreateInfo)(cmem.Alloc(int(unsafe.Sizeof(DeviceCreateInfo{}))))
	defer cmem.Free(unsafe.Pointer(info))
	queues := cmem.Alloc(n * int(unsafe.Sizeof(DeviceQueueCreateInfo{})))
	defer cmem.Free(queues)
	if info.QueueCreateInfos() != nil {
		t.Error("a nil pointer gives a slice")
	}
	info.PQueueCreateInfos = (*DeviceQueueCreateInfo)(queues)
	if info.QueueCreateInfos() != nil {
		t.Error("a zero count gives a slice")
	}
	info.QueueCreateInfoCount = n
	got := info.QueueCreateInfos()
	if len(got) != n || unsafe.Pointer(&got[0]) != queues {
		t.Fatalf("QueueCreateInfos: %d elements at %p, want %d at %p", len(got), got, n, queues)
	}
	for i := range got {
		got[i].QueueFamilyIndex = uint32(10 + i)
	}
	third := (*DeviceQueueCreateInfo)(unsafe.Add(queues, 2*unsafe.Sizeof(DeviceQueueCreateInfo{})))
	if third.QueueFamilyIndex != 12 {
		t.Errorf("the slice does not view the C array: element 2 has %d", third.QueueFamilyIndex)
	}

	code := cmem.Alloc(16)
	defer cmem.Free(code)
	sm := ShaderModuleCreateInfo{PCode: (*uint32)(code), CodeSize: 16}
	if len(sm.Code()) != 4 {
		t.Errorf("Code: %d words for 16 bytes (altlen codeSize / 4)", len(sm.Code()))
	}
	sm.CodeSize = 1 << 62
	if sm.Code() != nil {
		t.Error("an absurd count gives a slice")
	}
	data := PipelineCacheCreateInfo{PInitialData: code, InitialDataSize: 16}
	if b := data.InitialData(); len(b) != 16 || unsafe.Pointer(&b[0]) != code {
		t.Errorf("InitialData: %d bytes, want the 16 bytes of a void pointer", len(b))
	}
}
