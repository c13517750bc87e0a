package sql_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/internal/perfettotools"
	"github.com/vkgen/vkgen/internal/vktest"
	"github.com/vkgen/vkgen/layer/memreport/internal/memruns"
	"github.com/vkgen/vkgen/layer/memreport/tracesummary"
)

// TestVulkanMemoryEvents records memruns (named and unnamed buffers, a
// leak, a refused allocation) through the real loader and checks that
// trace_processor's own vulkan_memory_allocations table, filled from the
// layer's VulkanMemoryEvent packets, has exactly one row per allocation
// and binding event of the layer's own, with the same time, source,
// operation, size, memory and handle; that its per-process counters (the
// UI's "Vulkan Allocations" and "Vulkan Binds") peak where the summary's
// do and end at 0; that vkgen_memory_vulkan_allocations names every row of
// a named object; that the trace-summary spec agrees with the summary
// (checkSpec); and that the setting vulkan_memory_events=0 writes none.
func TestVulkanMemoryEvents(t *testing.T) {
	t.Parallel()
	setup(t)
	run := memruns.Record(t, t.TempDir(), nil, "--leak", "--fail-alloc")
	b := batch(t, run.Trace)
	own := b.Add(`SELECT ts, source, operation, size, memory_object_id AS memory, object_handle AS handle, heap
		FROM vkgen_memory_events WHERE event = 'VulkanMemoryAllocation' ORDER BY ts, id`)
	native := b.Add(`SELECT timestamp AS ts,
		REPLACE(source, 'GPU_', '') AS source, IIF(operation = 'DESTROY_BOUND', 'DESTROY', operation) AS operation,
		memory_size AS size, device_memory AS memory, object_handle AS handle, heap
		FROM vulkan_memory_allocations ORDER BY timestamp, id`)
	untyped := b.Add(`SELECT COUNT(*) FROM vulkan_memory_allocations WHERE memory_type != 0 OR memory_type IS NULL`)
	counters := b.Add(`SELECT t.name, CAST(MAX(c.value) AS INT) AS peak,
		CAST((SELECT value FROM counter c2 WHERE c2.track_id = t.id ORDER BY ts DESC LIMIT 1) AS INT) AS final
		FROM counter_track t JOIN counter c ON c.track_id = t.id
		WHERE t.name GLOB 'vulkan.mem.device.memory.type.*' GROUP BY t.id ORDER BY t.name`)
	named := b.Add(`SELECT type, object_name, COUNT(*) FROM vkgen_memory_vulkan_allocations
		GROUP BY type, object_name ORDER BY type, object_name`)
	b.Run(t)
	if len(own.Rows) != 16 || own.String() != native.String() {
		t.Errorf("the layer's events (%d):\n%s\nvulkan_memory_allocations (%d):\n%s", len(own.Rows), own, len(native.Rows), native)
	}
	if untyped.Rows[0][0] != "0" {
		t.Errorf("rows without lavapipe's one memory type: %s", untyped)
	}

	s := summary(t, run.Trace)
	checkSpec(t, run.Trace, s)
	peak := map[string]int64{}
	for _, g := range s.Groups {
		if g.Kind == tracesummary.KindType {
			peak[g.Key] = g.Peak
		}
	}
	want := "vulkan.mem.device.memory.type.0.allocation," + strconv.FormatInt(peak["DEVICE_MEMORY"], 10) + ",0\n" +
		"vulkan.mem.device.memory.type.0.bind," + strconv.FormatInt(peak["BUFFER"], 10) + ",0\n"
	if got := csv(*counters); got != want {
		t.Errorf("native counters:\n%swant\n%s", got, want)
	}

	want = "BUFFER,[NULL],2\nBUFFER,frame.uniforms,2\nBUFFER,leak.kept,2\nBUFFER,mesh.vertices,2\n" +
		"DEVICE_MEMORY,[NULL],2\nDEVICE_MEMORY,frame.uniforms.memory,2\nDEVICE_MEMORY,leak.kept.memory,2\nDEVICE_MEMORY,mesh.vertices.memory,2\n"
	if got := csv(*named); got != want {
		t.Errorf("named rows:\n%swant\n%s", got, want)
	}

	off := memruns.Record(t, t.TempDir(), []string{"VK_VKGEN_VULKAN_MEMORY_EVENTS=0"})
	if n := perfettotools.Query(t, off.Trace, `SELECT COUNT(*) FROM vulkan_memory_allocations`); n.Rows[0][0] != "0" {
		t.Errorf("vulkan_memory_events=0 wrote %s rows", n.Rows[0][0])
	}
}

func csv(r perfettotools.Result) string {
	var b strings.Builder
	for _, row := range r.Rows {
		b.WriteString(strings.Join(row, ",") + "\n")
	}
	return b.String()
}

// TestVulkanMemoryEventsDriverReport runs the demo over the memdriver
// (VK_EXT_device_memory_report over lavapipe: application memory and the
// driver's own for its device, command pools, descriptor pools and
// pipelines reported by callbacks) and checks vulkan_memory_allocations:
// one row per event of the layer's own, each with the callback's heap and
// the memory type (lavapipe's one, on heap 0, so the heap says it; binds
// and frees know it from vkAllocateMemory too). layer/memreport's
// TestDriverReportNative checks the rows against the callbacks.
func TestVulkanMemoryEventsDriverReport(t *testing.T) {
	setup(t)
	trace, _ := recordIn(t, vktest.DriverEnv(t, "", dmrLayer), vktest.Program(t, "demo/demo.c"), "--reuse")
	b := batch(t, trace)
	own := b.Add(`SELECT ts, source, operation, size, memory_object_id AS memory, object_handle AS handle, heap
		FROM vkgen_memory_events WHERE event = 'VulkanMemoryAllocation' AND memory_type != 'swapchain' ORDER BY ts, id`)
	native := b.Add(`SELECT timestamp AS ts,
		REPLACE(source, 'GPU_', '') AS source, IIF(operation = 'DESTROY_BOUND', 'DESTROY', operation) AS operation,
		memory_size AS size, device_memory AS memory, object_handle AS handle, heap
		FROM vulkan_memory_allocations ORDER BY timestamp, id`)
	// The device's own memory is reported inside vkCreateDevice, before
	// the layer knows the device's memory types.
	untyped := b.Add(`SELECT source, operation, scope FROM vulkan_memory_allocations
		WHERE memory_type IS NULL AND NOT (source = 'DRIVER' AND scope = 'DEVICE')`)
	b.Run(t)
	if len(own.Rows) < 10 || own.String() != native.String() {
		t.Errorf("the layer's events (%d):\n%s\nvulkan_memory_allocations (%d):\n%s", len(own.Rows), own, len(native.Rows), native)
	}
	if len(untyped.Rows) != 0 {
		t.Errorf("rows without a memory type:\n%s", csv(*untyped))
	}
}
