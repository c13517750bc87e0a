package accounting

import "strconv"

// Sink receives the engine's output. The engine calls it with its lock held,
// so a Sink must not call back into the Engine; it may be called from any
// application or driver thread.
type Sink interface {
	// Counter reports the new process-wide total of a counter track
	// (see TrackName) whenever it changes, including to 0.
	Counter(track string, bytes int64)
	// Allocation reports one VulkanMemoryAllocation event.
	Allocation(ev AllocationEvent)
}

// Operation is the `operation` annotation of a VulkanMemoryAllocation event.
type Operation uint8

// The reference's operations (reference-behaviour.md 4.4).
const (
	OpCreate Operation = iota + 1
	OpBind
	OpDestroy
	// OpAllocationFailed is a failed allocation (ALLOCATION_FAILED callback,
	// or a failed vkAllocateMemory on a device without the callback); the
	// layer writes it as its own event, not as a VulkanMemoryAllocation.
	OpAllocationFailed
)

var opNames = [...]string{OpCreate: "CREATE", OpBind: "BIND", OpDestroy: "DESTROY", OpAllocationFailed: "ALLOCATION_FAILED"}

func (o Operation) String() string {
	if o == 0 || int(o) >= len(opNames) {
		return "Operation(" + strconv.Itoa(int(o)) + ")"
	}
	return opNames[o]
}

// Source is the `source` annotation of a VulkanMemoryAllocation event.
type Source uint8

// The reference's sources (reference-behaviour.md 4.4).
const (
	SourceDriver       Source = iota + 1 // driver-internal allocation
	SourceDeviceMemory                   // application allocation
	SourceImage                          // image sub-allocation (bind)
	SourceBuffer                         // buffer sub-allocation (bind)
)

var sourceNames = [...]string{SourceDriver: "DRIVER", SourceDeviceMemory: "DEVICE_MEMORY", SourceImage: "IMAGE", SourceBuffer: "BUFFER"}

func (s Source) String() string {
	if s == 0 || int(s) >= len(sourceNames) {
		return "Source(" + strconv.Itoa(int(s)) + ")"
	}
	return sourceNames[s]
}

// AllocationEvent is one VulkanMemoryAllocation instant.
type AllocationEvent struct {
	Operation Operation
	Source    Source
	// Device is the engine's device key the event belongs to.
	Device uint64
	// MemoryObjectID is the allocation key: the VkDeviceMemory handle for
	// application DEVICE_MEMORY allocations and for every bind, the
	// callback's memoryObjectId otherwise.
	MemoryObjectID uint64
	Size           uint64
	// Offset is the bind offset for sub-allocations, 0 for allocations.
	Offset uint64
	// ObjectHandle is the callback's objectHandle, the VkDeviceMemory handle
	// (fallback) or the buffer/image handle (sub-allocations).
	ObjectHandle uint64
	// MemoryType is the cluster name, e.g. "color_render_target" or
	// "unbound_memory"; "" for OpAllocationFailed.
	MemoryType string
	// Heap is the memory heap index: of the allocation's memory type, the
	// callback's heapIndex, or the bound memory's.
	Heap uint32
	// Plane is the bound plane of a disjoint image (0 otherwise), so
	// per-binding consumers can pair a BIND with its DESTROY.
	Plane uint8
}

// ResourceKind says whether a resource handle is a VkBuffer or a VkImage.
type ResourceKind uint8

const (
	KindBuffer ResourceKind = iota + 1
	KindImage
)

func (k ResourceKind) String() string {
	switch k {
	case KindBuffer:
		return "buffer"
	case KindImage:
		return "image"
	}
	return "ResourceKind(" + strconv.Itoa(int(k)) + ")"
}

func (k ResourceKind) source() Source {
	if k == KindImage {
		return SourceImage
	}
	return SourceBuffer
}

// kindOfObjectType maps a VkObjectType to the resource kind it names.
func kindOfObjectType(t int32) (ResourceKind, bool) {
	switch t {
	case ObjectTypeBuffer:
		return KindBuffer, true
	case ObjectTypeImage:
		return KindImage, true
	}
	return 0, false
}

// MemoryProperties is what the engine needs from
// VkPhysicalDeviceMemoryProperties: the propertyFlags of each memory type,
// indexed by memory type index.
type MemoryProperties struct {
	TypeFlags []uint32
	// TypeHeaps is each memory type's heapIndex (missing entries: heap 0).
	TypeHeaps []uint32
}

// CallbackType is VkDeviceMemoryReportEventTypeEXT (same numeric values).
type CallbackType uint32

const (
	CallbackAllocate         CallbackType = 0
	CallbackFree             CallbackType = 1
	CallbackImport           CallbackType = 2
	CallbackUnimport         CallbackType = 3
	CallbackAllocationFailed CallbackType = 4
)

// CallbackEvent is the part of VkDeviceMemoryReportCallbackDataEXT the
// engine uses.
type CallbackEvent struct {
	Type           CallbackType
	MemoryObjectID uint64
	Size           uint64
	ObjectType     int32 // VkObjectType
	ObjectHandle   uint64
	HeapIndex      uint32
	// Internal marks a driver-internal allocation. The registry defines no
	// VkDeviceMemoryReportFlagsEXT bits; the layer sets it from flags&0x1
	// (the reference's INTERNAL_OBJECT bit value) or an object type other
	// than VK_OBJECT_TYPE_DEVICE_MEMORY.
	Internal bool
}

// Stats counts inputs the engine ignored or could not account, so tools and
// tests can see them instead of silent drift.
type Stats struct {
	AllocationFailures uint64 // ALLOCATION_FAILED callbacks and failed fallback vkAllocateMemory calls
	FailedBytes        uint64 // their sizes, saturating
	UnknownFrees       uint64 // callback FREE/UNIMPORT or fallback vkFreeMemory of untracked memory
	NullMemoryBinds    uint64 // binds with memory == VK_NULL_HANDLE (swapchain binds)
	DroppedBinds       uint64 // binds of unknown resources or resources of unknown size
	InvalidCalls       uint64 // bad kind/aspect, whole-resource calls on disjoint images, plane calls on others
}
