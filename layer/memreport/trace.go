package memreport

import (
	"github.com/vkgen/vkgen/generated"
	"github.com/vkgen/vkgen/layer/memreport/accounting"
	"github.com/vkgen/vkgen/objectnames"
	"github.com/vkgen/vkgen/perfetto"
)

// Trace vocabulary (reference-behaviour.md 4.3-4.5).
const (
	Category            = "VulkanDeviceMemoryReport"
	AllocationEventName = "VulkanMemoryAllocation"
	ObjectNameEventName = "VulkanObjectName"
)

var (
	category   = perfetto.NewCategory(Category, "Vulkan Device Memory Report Counters")
	allocEvent = perfetto.NewEventName(AllocationEventName)
	nameEvent  = perfetto.NewEventName(ObjectNameEventName)

	argOperation    = perfetto.NewAnnotationName("operation")
	argSource       = perfetto.NewAnnotationName("source")
	argMemoryObject = perfetto.NewAnnotationName("memory_object_id")
	argSize         = perfetto.NewAnnotationName("size")
	argOffset       = perfetto.NewAnnotationName("offset")
	argObjectHandle = perfetto.NewAnnotationName("object_handle")
	argMemoryType   = perfetto.NewAnnotationName("memory_type")
	argObjectType   = perfetto.NewAnnotationName("object_type")
	argObjectName   = perfetto.NewAnnotationName("object_name")
	// Only on the events they describe (docs/memreport.md).
	argExternal        = perfetto.NewAnnotationName("external")
	argHandleTypes     = perfetto.NewAnnotationName("handle_types")
	argDedicatedType   = perfetto.NewAnnotationName("dedicated_type")
	argDedicatedHandle = perfetto.NewAnnotationName("dedicated_handle")
	argResourceOffset  = perfetto.NewAnnotationName("resource_offset")
	argBindIndex       = perfetto.NewAnnotationName("bind_index")
	argSwapchain       = perfetto.NewAnnotationName("swapchain")

	// counterTracks holds every vulkan.mem.{app|driver}.usage.<cluster>
	// track, registered once (unit bytes, process-scoped).
	counterTracks = func() map[string]perfetto.CounterTrack {
		m := map[string]perfetto.CounterTrack{}
		for _, n := range accounting.TrackNames() {
			m[n] = perfetto.NewCounterTrackIn(category, n, perfetto.UnitSizeBytes)
		}
		return m
	}()
)

// traceSink writes the engine's output to every running session (em == nil)
// or, during a session-start replay, to that session only.
type traceSink struct{ em *perfetto.Emitter }

func (s traceSink) Counter(name string, bytes int64) {
	t, ok := counterTracks[name]
	if !ok {
		return
	}
	if s.em != nil {
		s.em.Counter(t, bytes)
		return
	}
	perfetto.Counter(t, bytes)
}

func (s traceSink) Allocation(ev accounting.AllocationEvent) {
	if s.em == nil && !perfetto.Enabled() {
		return // do not build the annotations for nobody
	}
	var buf [11]perfetto.Arg
	args := append(buf[:0],
		perfetto.String(argOperation, ev.Operation.String()),
		perfetto.String(argSource, ev.Source.String()),
		perfetto.Uint(argMemoryObject, ev.MemoryObjectID),
		perfetto.Uint(argSize, ev.Size),
		perfetto.Uint(argOffset, ev.Offset),
		perfetto.Uint(argObjectHandle, ev.ObjectHandle),
		perfetto.String(argMemoryType, ev.MemoryType),
	)
	args = appendDetails(args, &ev)
	if s.em != nil {
		s.em.Instant(category, allocEvent, args...)
		return
	}
	perfetto.Instant(category, allocEvent, args...)
}

// appendDetails adds the annotations only some events have: external and
// dedicated memory, sparse ranges and video bindings, swapchain images.
func appendDetails(args []perfetto.Arg, ev *accounting.AllocationEvent) []perfetto.Arg {
	if ev.External != accounting.ExternalNone {
		args = append(args, perfetto.String(argExternal, ev.External.String()), perfetto.Uint(argHandleTypes, uint64(ev.HandleTypes)))
	}
	if ev.Dedicated != 0 {
		args = append(args, perfetto.String(argDedicatedType, dedicatedType(ev.Dedicated)), perfetto.Uint(argDedicatedHandle, ev.DedicatedHandle))
	}
	switch {
	case ev.Range && ev.Source == accounting.SourceVideoSession:
		args = append(args, perfetto.Uint(argBindIndex, ev.Key))
	case ev.Range:
		args = append(args, perfetto.Uint(argResourceOffset, ev.Key))
	}
	if ev.Swapchain != 0 {
		args = append(args, perfetto.Uint(argSwapchain, ev.Swapchain))
	}
	return args
}

// dedicatedType names a dedicated allocation's resource kind in the event
// sources' vocabulary.
func dedicatedType(k accounting.ResourceKind) string {
	if k == accounting.KindImage {
		return "IMAGE"
	}
	return "BUFFER"
}

// nameSink writes VulkanObjectName events like traceSink, for the object
// types memory is attributed to: the shared store also holds the names of
// pipelines, queues and the like, trace volume nothing here reads. A removed
// name is published once with an empty object_name, so a consumer sees the
// clear.
type nameSink struct{ em *perfetto.Emitter }

func (s nameSink) EmitName(r objectnames.Record) {
	switch r.Type {
	case generated.ObjectTypeBuffer, generated.ObjectTypeImage, generated.ObjectTypeDeviceMemory, generated.ObjectTypeVideoSessionKHR:
	default:
		return
	}
	if s.em == nil && !perfetto.Enabled() {
		return
	}
	args := [...]perfetto.Arg{
		perfetto.Int(argObjectType, int64(r.Type)),
		perfetto.Uint(argObjectHandle, r.Handle),
		perfetto.String(argObjectName, r.Name),
	}
	if s.em != nil {
		s.em.Instant(category, nameEvent, args[:]...)
		return
	}
	perfetto.Instant(category, nameEvent, args[:]...)
}

// replay is the session-start hook: the non-zero counters, then the live
// allocations and binds, then the names (a name is only useful once the
// memory it attaches to is in the trace).
func (s *state) replay(em *perfetto.Emitter) {
	s.engine.Snapshot(traceSink{em})
	s.names.EmitAll(nameSink{em})
}
