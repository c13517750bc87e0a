package objtypes_test

import (
	"slices"
	"testing"

	"github.com/vkgen/vkgen/gen/objtypes"
	"github.com/vkgen/vkgen/internal/testreg"
)

// TestMemoryHolders: the handle types that hold memory and the commands
// creating them, from the pinned registry.
func TestMemoryHolders(t *testing.T) {
	r := testreg.Load(t, "1.4.359")
	got := objtypes.MemoryHolders(r)
	for _, h := range []string{"VkDeviceMemory", "VkBuffer", "VkImage", "VkAccelerationStructureKHR", "VkAccelerationStructureNV",
		"VkMicromapEXT", "VkVideoSessionKHR"} {
		if !slices.Contains(got, h) {
			t.Errorf("MemoryHolders lacks %s: %v", h, got)
		}
	}
	for _, h := range []string{"VkDevice", "VkBufferView", "VkImageView", "VkSampler", "VkPipeline", "VkCommandBuffer"} {
		if slices.Contains(got, h) {
			t.Errorf("MemoryHolders has %s: %v", h, got)
		}
	}
	c := objtypes.MemoryCreators(r)
	for cmd, h := range map[string]string{"vkCreateBuffer": "VkBuffer", "vkCreateImage": "VkImage", "vkAllocateMemory": "VkDeviceMemory",
		"vkCreateAccelerationStructureKHR": "VkAccelerationStructureKHR", "vkCreateMicromapEXT": "VkMicromapEXT",
		"vkCreateVideoSessionKHR": "VkVideoSessionKHR"} {
		if c[cmd] != h {
			t.Errorf("MemoryCreators[%s] = %q, want %s", cmd, c[cmd], h)
		}
	}
	for _, cmd := range []string{"vkCreateBufferView", "vkAllocateCommandBuffers", "vkAllocateDescriptorSets", "vkCreateDevice"} {
		if h, ok := c[cmd]; ok {
			t.Errorf("MemoryCreators has %s (%s)", cmd, h)
		}
	}
	t.Logf("holders: %v", got)
}
