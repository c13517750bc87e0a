package perfetto

import "google.golang.org/protobuf/encoding/protowire"

// VulkanMemoryEvent is Perfetto's own record of one Vulkan memory
// operation (TracePacket.vulkan_memory_event): trace_processor makes a row
// of vulkan_memory_allocations of it and keeps the per-process counters
// the UI shows as "Vulkan Allocations", "Vulkan Binds" and "Vulkan Driver
// Memory". Enum values are those of vulkan_memory_event.proto.
type VulkanMemoryEvent struct {
	Source    int32 // VulkanMemorySource*
	Operation int32 // VulkanMemoryOp*
	Scope     int32 // VulkanMemoryScope*, for driver memory; 0: none
	Size      uint64
	// DeviceMemory is the VkDeviceMemory (or the driver's memory object
	// id); ObjectHandle the buffer or image bound, or the driver object.
	DeviceMemory, ObjectHandle uint64
	// MemoryType is the Vulkan memory type index, written when
	// HasMemoryType (trace_processor counts allocations and binds per type).
	MemoryType    uint32
	HasMemoryType bool
	Heap          uint32
}

// VulkanMemoryEvent.Source, .Operation and .AllocationScope values.
const (
	VulkanMemorySourceDriver       = 1
	VulkanMemorySourceDeviceMemory = 3
	VulkanMemorySourceBuffer       = 4
	VulkanMemorySourceImage        = 5

	VulkanMemoryOpCreate       = 1
	VulkanMemoryOpDestroy      = 2
	VulkanMemoryOpBind         = 3
	VulkanMemoryOpDestroyBound = 4

	VulkanMemoryScopeObject   = 2
	VulkanMemoryScopeCache    = 3
	VulkanMemoryScopeDevice   = 4
	VulkanMemoryScopeInstance = 5
)

// VulkanMemoryEvent fields (vulkan_memory_event.proto).
const (
	fVulkanMemoryEvent = 62 // TracePacket
	fVMSource          = 1
	fVMOperation       = 2
	fVMTimestamp       = 3
	fVMPid             = 4
	fVMSize            = 6
	fVMScope           = 8
	fVMDeviceMemory    = 17 // fixed64
	fVMMemoryType      = 18
	fVMHeap            = 19
	fVMObjectHandle    = 20 // fixed64
)

// VulkanMemoryEvent emits ev at t, as a raw packet, to every running
// session that records cat: the packet belongs to no track event, but a
// session that left the category out asked for none of its data.
func (t Stamp) VulkanMemoryEvent(cat Category, ev *VulkanMemoryEvent) {
	p := active.Load()
	if p == nil {
		return
	}
	for _, s := range *p {
		if s.allows(cat) {
			t.emit(s, func(q *sequence) bool { return q.vulkanMemoryLocked(ev) })
		}
	}
}

// VulkanMemoryEvent is the replay form of Stamp.VulkanMemoryEvent, at now.
func (e *Emitter) VulkanMemoryEvent(cat Category, ev *VulkanMemoryEvent) {
	if e.s.allows(cat) {
		e.locked(func(q *sequence) { q.vulkanMemoryLocked(ev) })
	}
}

func (q *sequence) vulkanMemoryLocked(ev *VulkanMemoryEvent) (yield bool) {
	if ok, yield := q.readyLocked(); !ok {
		return yield
	}
	before := len(q.buf)
	ts := q.now()
	b, pkt := q.appendPacketHeader(q.buf, ts, false)
	b, m := beginMsg(b, fVulkanMemoryEvent)
	b = appendVarintField(b, fVMSource, uint64(ev.Source))
	b = appendVarintField(b, fVMOperation, uint64(ev.Operation))
	// trace_processor takes the row's time and the counters' from here,
	// unconverted: the packet's clock, BOOTTIME, is the trace's own.
	b = appendVarintField(b, fVMTimestamp, ts)
	b = appendVarintField(b, fVMPid, uint64(uint32(pid)))
	b = appendVarintField(b, fVMSize, ev.Size)
	if ev.Scope != 0 {
		b = appendVarintField(b, fVMScope, uint64(ev.Scope))
	}
	b = appendFixed64Field(b, fVMDeviceMemory, ev.DeviceMemory)
	if ev.HasMemoryType {
		b = appendVarintField(b, fVMMemoryType, uint64(ev.MemoryType))
	}
	b = appendVarintField(b, fVMHeap, uint64(ev.Heap))
	b = appendFixed64Field(b, fVMObjectHandle, ev.ObjectHandle)
	b = endMsg(b, m)
	q.buf = endMsg(b, pkt)
	return q.doneLocked(before)
}

func appendFixed64Field(b []byte, num protowire.Number, v uint64) []byte {
	return protowire.AppendFixed64(appendTag(b, num, protowire.Fixed64Type), v)
}
