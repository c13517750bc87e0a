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
	SourceVideoSession                   // memory bound to a video session (not in the reference)
)

var sourceNames = [...]string{SourceDriver: "DRIVER", SourceDeviceMemory: "DEVICE_MEMORY", SourceImage: "IMAGE", SourceBuffer: "BUFFER",
	SourceVideoSession: "VIDEO_SESSION"}

func (s Source) String() string {
	if s == 0 || int(s) >= len(sourceNames) {
		return "Source(" + strconv.Itoa(int(s)) + ")"
	}
	return sourceNames[s]
}

// Vocabulary lists the strings events carry as annotation values
// (operations, sources, memory types, external kinds), for a sink that
// interns them.
func Vocabulary() []string {
	var out []string
	for _, l := range [][]string{opNames[:], sourceNames[:], clusterNames[:], externalNames[:], {SwapchainMemoryType}} {
		for _, s := range l {
			if s != "" {
				out = append(out, s)
			}
		}
	}
	return out
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
	// ObjectType is the VkObjectType of an allocation's object: the report
	// callback's objectType (the driver's object for its own memory),
	// VK_OBJECT_TYPE_DEVICE_MEMORY for vkAllocateMemory without the
	// callback; 0 for binds.
	ObjectType int32
	// MemoryType is the cluster name, e.g. "color_render_target" or
	// "unbound_memory"; SwapchainMemoryType for a swapchain image; "" for
	// OpAllocationFailed.
	MemoryType string
	// Cluster is MemoryType as a number, for per-cluster tallies; only
	// meaningful where MemoryType is a cluster name.
	Cluster Cluster
	// Heap is the memory heap index: of the allocation's memory type, the
	// callback's heapIndex, or the bound memory's.
	Heap uint32
	// TypeIndex is the Vulkan memory type of the allocation (of the bound
	// memory for a bind), when HasTypeIndex: known from vkAllocateMemory,
	// or, for memory a report callback gave (which names a heap, not a
	// type), when the heap has one memory type.
	TypeIndex    uint32
	HasTypeIndex bool
	// Mark is a word of the engine's record of the allocation or binding
	// (nil for events of none: swapchain images, failures) that the sink
	// may keep a value of its own in across the record's events, as an
	// index of its own state instead of a lookup by key; 0 in a new
	// record. Valid only during the call, under the engine's lock.
	Mark *uint64
	// Desc is the sink's descriptor of the object (0: none): what the
	// layer passed to BufferCreatedWith, ImageCreatedWith or MemoryInfo.
	Desc uint32
	// Site is the sink's descriptor of where the object was created (0:
	// none), passed as Desc is (and to VideoSessionCreated).
	Site uint32
	// Plane is the bound plane of a disjoint image (0 otherwise), so
	// per-binding consumers can pair a BIND with its DESTROY (with Key for
	// range binds).
	Plane uint8

	// The rest is zero unless the event is of the kind named.

	// External marks imported or exported application memory (CREATE and
	// DESTROY of DEVICE_MEMORY); HandleTypes is the import's handle type or
	// the export's handle types (VkExternalMemoryHandleTypeFlags).
	External    External
	HandleTypes uint32
	// Dedicated and DedicatedHandle name the image or buffer a dedicated
	// allocation (VkMemoryDedicatedAllocateInfo) was made for.
	Dedicated       ResourceKind
	DedicatedHandle uint64
	// Range marks a bind of a sparse resource range or of a video session
	// binding; Key is its resource offset or memoryBindIndex.
	Range bool
	Key   uint64
	// Swapchain is the VkSwapchainKHR a swapchain image belongs to or is
	// bound to (VkBindImageMemorySwapchainInfoKHR).
	Swapchain uint64
}

// SwapchainMemoryType is the memory_type of a swapchain image's BIND and
// DESTROY: memory of the presentation engine, in no counter.
const SwapchainMemoryType = "swapchain"

// External says whether application memory was imported or allocated for
// export.
type External uint8

const (
	ExternalNone     External = iota
	ExternalImported          // VkImportMemory*Info, or a callback IMPORT
	ExternalExported          // VkExportMemoryAllocateInfo
)

var externalNames = [...]string{ExternalNone: "", ExternalImported: "IMPORTED", ExternalExported: "EXPORTED"}

func (x External) String() string {
	if int(x) >= len(externalNames) {
		return "External(" + strconv.Itoa(int(x)) + ")"
	}
	return externalNames[x]
}

// MemoryInfo is what vkAllocateMemory's pNext chain says about an
// allocation beyond its size and type.
type MemoryInfo struct {
	External    External
	HandleTypes uint32
	// Dedicated is KindImage or KindBuffer for a dedicated allocation, 0
	// otherwise; DedicatedHandle is that resource.
	Dedicated       ResourceKind
	DedicatedHandle uint64
	// Desc is the sink's descriptor of the allocation (AllocationEvent.Desc).
	Desc uint32
	// Site is the sink's descriptor of its call site (AllocationEvent.Site).
	Site uint32
}

// ResourceKind says whether a resource handle is a VkBuffer or a VkImage.
type ResourceKind uint8

const (
	KindBuffer ResourceKind = iota + 1
	KindImage
	// KindVideoSession is a VkVideoSessionKHR: memory is bound to its
	// numbered bindings (vkBindVideoSessionMemoryKHR).
	KindVideoSession
)

func (k ResourceKind) String() string {
	switch k {
	case KindBuffer:
		return "buffer"
	case KindImage:
		return "image"
	case KindVideoSession:
		return "video session"
	}
	return "ResourceKind(" + strconv.Itoa(int(k)) + ")"
}

func (k ResourceKind) source() Source {
	switch k {
	case KindImage:
		return SourceImage
	case KindVideoSession:
		return SourceVideoSession
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
	case ObjectTypeVideoSessionKHR:
		return KindVideoSession, true
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
