package tracesummary

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/internal/perfettotools"
	"github.com/vkgen/vkgen/perfetto"
	"github.com/vkgen/vkgen/perfetto/decode"
)

var (
	cat      = perfetto.NewCategory(category)
	otherCat = perfetto.NewCategory("SomethingElse")
	allocEv  = perfetto.NewEventName(allocationEvent)
	nameEv   = perfetto.NewEventName(objectNameEvent)
	aOp      = perfetto.NewAnnotationName("operation")
	aSrc     = perfetto.NewAnnotationName("source")
	aMem     = perfetto.NewAnnotationName("memory_object_id")
	aSize    = perfetto.NewAnnotationName("size")
	aOff     = perfetto.NewAnnotationName("offset")
	aHandle  = perfetto.NewAnnotationName("object_handle")
	aType    = perfetto.NewAnnotationName("memory_type")
	aObjType = perfetto.NewAnnotationName("object_type")
	aName    = perfetto.NewAnnotationName("object_name")
	aHeap    = perfetto.NewAnnotationName("heap")
	aAt      = perfetto.NewAnnotationName("at")
	leakEv   = perfetto.NewEventName(leakEvent)
	failEv   = perfetto.NewEventName(failureEvent)
	geometry = perfetto.NewCounterTrack("vulkan.mem.app.usage.geometry_mesh", perfetto.UnitSizeBytes)
	unbound  = perfetto.NewCounterTrack("vulkan.mem.app.usage.unbound_memory", perfetto.UnitSizeBytes)
)

func alloc(c perfetto.Category, op, src string, mem, size, off, handle uint64, typ string) {
	perfetto.Instant(c, allocEv, perfetto.String(aOp, op), perfetto.String(aSrc, src), perfetto.Uint(aMem, mem),
		perfetto.Uint(aSize, size), perfetto.Uint(aOff, off), perfetto.Uint(aHandle, handle), perfetto.String(aType, typ))
}

func name(objType int64, handle uint64, n string) {
	perfetto.Instant(cat, nameEv, perfetto.Int(aObjType, objType), perfetto.Uint(aHandle, handle), perfetto.String(aName, n))
}

// writeTrace records what the layer would for: a 64 KiB allocation "block",
// a named 4 KiB vertex buffer bound twice (a replayed BIND repeats the
// first), a buffer named only by DebugMarker's raw packet, an event of
// another category, then destroy and free.
func writeTrace(t *testing.T) *decode.Trace {
	t.Helper()
	return recorded(t, func() {
		alloc(cat, "CREATE", "DEVICE_MEMORY", 0x100, 65536, 0, 0x100, "unbound_memory")
		perfetto.Counter(unbound, 65536)
		name(8, 0x100, "block")
		alloc(cat, "BIND", "BUFFER", 0x100, 4096, 0, 0xb1, "geometry_mesh")
		alloc(cat, "BIND", "BUFFER", 0x100, 4096, 0, 0xb1, "geometry_mesh")
		perfetto.Counter(geometry, 4096)
		perfetto.Counter(unbound, 61440)
		name(9, 0xb1, "vertices")
		alloc(cat, "BIND", "BUFFER", 0x100, 8192, 8192, 0xb2, "geometry_mesh")
		perfetto.Counter(geometry, 12288)
		perfetto.Counter(unbound, 53248)
		perfetto.VkObjectName(0xd, 9, 0xb2, "indices")
		alloc(otherCat, "BIND", "BUFFER", 0x100, 1<<40, 0, 0xb3, "geometry_mesh")
		alloc(cat, "DESTROY", "BUFFER", 0x100, 4096, 0, 0xb1, "geometry_mesh")
		perfetto.Counter(geometry, 8192)
		perfetto.Counter(unbound, 57344)
		alloc(cat, "DESTROY", "BUFFER", 0x100, 8192, 8192, 0xb2, "geometry_mesh")
		alloc(cat, "DESTROY", "DEVICE_MEMORY", 0x100, 65536, 0, 0x100, "unbound_memory")
		perfetto.Counter(geometry, 0)
		perfetto.Counter(unbound, 0)
	})
}

// recorded is the trace of what write emits in a session of its own,
// checked by trace_processor.
func recorded(t *testing.T, write func()) *decode.Trace {
	t.Helper()
	var buf bytes.Buffer
	s, err := perfetto.StartSession("test", perfetto.WriterOutput(&buf), perfetto.Options{})
	if err != nil {
		t.Fatal(err)
	}
	write()
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	perfettotools.CheckStatsData(t, buf.Bytes())
	tr, err := decode.Decode(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestSummarize(t *testing.T) {
	s := Summarize(writeTrace(t))
	want := []Object{
		{Name: "block", Type: "DEVICE_MEMORY", Handle: 0x100, Bytes: 65536, Final: 0, Cluster: ClusterAllocation}, // buffers were bound in it
		{Name: "indices", Type: "BUFFER", Handle: 0xb2, Bytes: 8192, Final: 0, Cluster: "geometry_mesh"},
		{Name: "vertices", Type: "BUFFER", Handle: 0xb1, Bytes: 4096, Final: 0, Cluster: "geometry_mesh"},
	}
	if len(s.Objects) != len(want) {
		t.Fatalf("objects %+v, want %+v", s.Objects, want)
	}
	for i := range want {
		got := s.Objects[i]
		if got.Created >= uint64(got.Destroyed) {
			t.Errorf("object %d lifetime %d..%d", i, got.Created, got.Destroyed)
		}
		got.Created, got.Destroyed = 0, 0
		if got != want[i] {
			t.Errorf("object %d = %+v, want %+v", i, got, want[i])
		}
	}
	wantC := []Cluster{
		{Track: "vulkan.mem.app.usage.geometry_mesh", Peak: 12288, Final: 0},
		{Track: "vulkan.mem.app.usage.unbound_memory", Peak: 65536, Final: 0},
	}
	if len(s.Clusters) != 2 || s.Clusters[0] != wantC[0] || s.Clusters[1] != wantC[1] {
		t.Errorf("clusters %+v, want %+v", s.Clusters, wantC)
	}
	if len(s.Series) != 2 || len(s.Series[0].Samples) != 4 || s.Series[1].Samples[0].Timestamp == 0 {
		t.Errorf("series %+v", s.Series)
	}
	text := s.Text()
	for _, w := range []string{"vertices", "indices", "block", "vulkan.mem.app.usage.geometry_mesh"} {
		if !strings.Contains(text, w) {
			t.Errorf("text output lacks %q:\n%s", w, text)
		}
	}
}

// The SVG is well-formed XML with a stacked layer per cluster that held
// memory, and the HTML page has the same chart.
func TestCharts(t *testing.T) {
	s := Summarize(writeTrace(t))
	for what, doc := range map[string]string{"svg": s.SVG(), "html": s.HTML(`a <b> & "c"`)} {
		d := xml.NewDecoder(strings.NewReader(strings.TrimPrefix(doc, "<!DOCTYPE html>\n")))
		d.Strict = what == "svg"
		layers := 0
		for {
			tok, err := d.Token()
			if err != nil {
				if err.Error() != "EOF" {
					t.Errorf("%s: %v\n%s", what, err, doc)
				}
				break
			}
			if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "polygon" {
				layers++
			}
		}
		if layers != 2 {
			t.Errorf("%s: %d layers, want 2 (geometry_mesh, unbound_memory)\n%s", what, layers, doc)
		}
	}
	if page := s.HTML(`a <b> & "c"`); !strings.Contains(page, "<title>a &lt;b&gt; &amp; &#34;c&#34;</title>") {
		t.Errorf("html:\n%s", page)
	}
	// An empty trace gives empty tables and an empty chart, not a panic.
	empty := Summarize(&decode.Trace{})
	if len(empty.Objects)+len(empty.Clusters) != 0 || !strings.Contains(empty.SVG(), "</svg>") || !strings.Contains(empty.HTML("t"), "No memory counters") {
		t.Errorf("empty trace: %+v", empty)
	}
}

// Leaks are listed in time order with their names, failures counted with
// their bytes (saturating), and times count from the layer's first event,
// not from DebugMarker's earlier raw name packet.
func TestLeaksAndFailures(t *testing.T) {
	var buf bytes.Buffer
	s, err := perfetto.StartSession("test", perfetto.WriterOutput(&buf), perfetto.Options{Sequences: 1})
	if err != nil {
		t.Fatal(err)
	}
	perfetto.VkObjectName(1, 9, 0xb1, "raw") // before every event of the layer
	alloc(cat, "CREATE", "DEVICE_MEMORY", 0x100, 65536, 0, 0x100, "unbound_memory")
	fail := func(size uint64) {
		perfetto.Instant(cat, failEv, perfetto.String(aSrc, "DEVICE_MEMORY"), perfetto.Uint(aSize, size), perfetto.Uint(aHeap, 1))
	}
	fail(1 << 62)
	fail(1 << 63)
	fail(1 << 63)
	perfetto.Instant(cat, leakEv, perfetto.String(aSrc, "BUFFER"), perfetto.Uint(aMem, 0x100), perfetto.Uint(aSize, 4096),
		perfetto.Uint(aOff, 0), perfetto.Uint(aHandle, 0xb1), perfetto.String(aType, "geometry_mesh"), perfetto.Uint(aHeap, 2),
		perfetto.String(aName, "<leaky>"), perfetto.String(aAt, "exit"))
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	tr, err := decode.Decode(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var t0, leakTS uint64
	for _, p := range tr.Packets {
		if p.Event != nil && p.Event.Name == allocationEvent {
			t0 = p.Timestamp
		}
		if p.Event != nil && p.Event.Name == leakEvent {
			leakTS = p.Timestamp
		}
	}
	sum := Summarize(tr)
	want := Leak{Name: "<leaky>", Type: "BUFFER", Handle: 0xb1, Bytes: 4096, Cluster: "geometry_mesh", Heap: 2, At: "exit", Time: leakTS - t0}
	if len(sum.Leaks) != 1 || sum.Leaks[0] != want {
		t.Errorf("leaks %+v, want [%+v]", sum.Leaks, want)
	}
	// 2^62 + 2^63 + 2^63 = 2^64 + 2^62, past 64 bits: exact, never saturated.
	if sum.AllocationFailures != 3 || sum.FailedBytes.String() != "23058430092136939520" {
		t.Errorf("failures %d (%s bytes), want 3 (23058430092136939520)", sum.AllocationFailures, sum.FailedBytes)
	}
	if o := sum.Objects; len(o) != 1 || o[0].Created != 0 {
		t.Errorf("objects %+v, want one created at 0", o)
	}
	if text := sum.Text(); !strings.Contains(text, "<leaky>") || !strings.Contains(text, "Failed allocations: 3 (23058430092136939520 bytes)") {
		t.Errorf("text lacks the leak or the failures:\n%s", text)
	}
	if page := sum.HTML("t"); !strings.Contains(page, "&lt;leaky&gt;") || !strings.Contains(page, "Failed allocations: 3</h2>") || !strings.Contains(page, fmt.Sprint(sum.FailedBytes)+" bytes requested") {
		t.Errorf("html lacks the leak or the failures:\n%s", page)
	}
}

// TestRangeKeys: two ranges of one sparse buffer bound at the same memory
// and offset (aliased) are two bindings, told apart by resource_offset: the
// buffer is one object holding both until the last goes.
func TestRangeKeys(t *testing.T) {
	var buf bytes.Buffer
	s, err := perfetto.StartSession("test", perfetto.WriterOutput(&buf), perfetto.Options{})
	if err != nil {
		t.Fatal(err)
	}
	aKey := perfetto.NewAnnotationName("resource_offset")
	rng := func(op string, key uint64) {
		perfetto.Instant(cat, allocEv, perfetto.String(aOp, op), perfetto.String(aSrc, "BUFFER"), perfetto.Uint(aMem, 0x100),
			perfetto.Uint(aSize, 4096), perfetto.Uint(aOff, 0), perfetto.Uint(aHandle, 0xb1),
			perfetto.String(aType, "compute_storage"), perfetto.Uint(aKey, key))
	}
	rng("BIND", 0)
	rng("BIND", 65536)
	rng("DESTROY", 0)
	rng("DESTROY", 65536)
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	tr, err := decode.Decode(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	sum := Summarize(tr)
	if sum.ObjectsTotal != 1 || len(sum.Objects) != 1 || sum.Objects[0].Bytes != 8192 || sum.Objects[0].Destroyed < 0 {
		t.Fatalf("objects %+v (%d), want one buffer of 8192 bytes", sum.Objects, sum.ObjectsTotal)
	}
}

// TestNoMemoryEvents: a trace with no memory event (vulkaninfo's) is
// summarised, saying so, rather than refused.
func TestNoMemoryEvents(t *testing.T) {
	var buf bytes.Buffer
	s, err := perfetto.StartSession("test", perfetto.WriterOutput(&buf), perfetto.Options{})
	if err != nil {
		t.Fatal(err)
	}
	perfetto.VkObjectName(0xd, 9, 0xb2, "named but never bound")
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	sum, err := Read(bytes.NewReader(buf.Bytes()), "idle", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if text := sum.Text(); sum.ObjectsTotal != 0 || !strings.HasPrefix(text, "No memory events in this trace") {
		t.Errorf("%d objects; text:\n%s", sum.ObjectsTotal, text)
	}
}
