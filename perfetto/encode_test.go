package perfetto_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/vkgen/vkgen/internal/testenv"
	"github.com/vkgen/vkgen/perfetto"
	"github.com/vkgen/vkgen/perfetto/decode"
)

var (
	catTest    = perfetto.NewCategory("VulkanDebugMarker")
	evCreate   = perfetto.NewEventName("vkCreateBuffer")
	evName     = perfetto.NewEventName("VulkanObjectName")
	anHandle   = perfetto.NewAnnotationName("object_handle")
	anSize     = perfetto.NewAnnotationName("size")
	anName     = perfetto.NewAnnotationName("object_name")
	anHostVis  = perfetto.NewAnnotationName("host_visible")
	ctrAppMem  = perfetto.NewCounterTrack("vulkan.mem.app.usage.general_buffer", perfetto.UnitSizeBytes)
	ctrDrvMem  = perfetto.NewCounterTrack("vulkan.mem.driver.usage.general_buffer", perfetto.UnitSizeBytes)
	evUnusable = perfetto.EventName(999999) // never registered
)

func TestEncodeDecode(t *testing.T) {
	s, path := startFile(t, "enc.pftrace", perfetto.Options{Sequences: 2})
	for i := range 50 {
		perfetto.Instant(catTest, evCreate,
			perfetto.Uint(anHandle, 0xABCD+uint64(i)), perfetto.Int(anSize, -65536),
			perfetto.String(anName, "buf"), perfetto.Bool(anHostVis, i%2 == 0))
	}
	perfetto.InstantOn(perfetto.ThreadTrack(4242), catTest, evName, perfetto.String(anName, "on-thread"))
	perfetto.Instant(catTest, evUnusable, perfetto.Int(anSize, 1)) // invalid handle: no-op
	perfetto.Counter(ctrAppMem, 4096)
	perfetto.Counter(ctrAppMem, 8192)
	perfetto.Counter(ctrDrvMem, -1)
	perfetto.VkObjectName(0x1111, 9, 0x2222, "my buffer")
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if perfetto.Enabled() {
		t.Fatal("Enabled after the only session stopped")
	}
	perfetto.Instant(catTest, evCreate) // after stop: no-op, no panic

	tr := decodeBoth(t, path)
	inst := tr.Instants()
	if len(inst) != 51 {
		t.Fatalf("got %d instants, want 51", len(inst))
	}
	seen := map[uint64]bool{}
	for _, p := range inst {
		e := p.Event
		if e.Name == "VulkanObjectName" {
			if e.TrackUUID != perfetto.ThreadTrack(4242).UUID() {
				t.Errorf("thread event on track %x", e.TrackUUID)
			}
			continue
		}
		if e.Name != "vkCreateBuffer" || len(e.Categories) != 1 || e.Categories[0] != "VulkanDebugMarker" {
			t.Fatalf("event %+v", e)
		}
		if e.TrackUUID != perfetto.ProcessTrackUUID() {
			t.Errorf("process event on track %x", e.TrackUUID)
		}
		h, _ := e.Arg("object_handle")
		sz, _ := e.Arg("size")
		nm, _ := e.Arg("object_name")
		hv, _ := e.Arg("host_visible")
		if h.Kind != decode.KindUint || sz.Kind != decode.KindInt || sz.Int != -65536 ||
			nm.Kind != decode.KindString || nm.Str != "buf" || hv.Kind != decode.KindBool || hv.Bool != ((h.Uint-0xABCD)%2 == 0) {
			t.Fatalf("annotations %+v", e.Annotations)
		}
		seen[h.Uint] = true
	}
	if len(seen) != 50 {
		t.Errorf("distinct handles %d, want 50", len(seen))
	}
	proc := tr.Tracks[perfetto.ProcessTrackUUID()]
	if proc == nil || proc.Process == nil || proc.Process.Pid == 0 {
		t.Fatalf("process track %+v", proc)
	}
	th := tr.Tracks[perfetto.ThreadTrack(4242).UUID()]
	if th == nil || th.Thread == nil || th.Thread.Tid != 4242 || th.ParentUUID != perfetto.ProcessTrackUUID() {
		t.Fatalf("thread track %+v", th)
	}
	cs := tr.Counters()
	app := cs["vulkan.mem.app.usage.general_buffer"]
	if app == nil || app.Track.Counter.Unit != int32(perfetto.UnitSizeBytes) || app.Track.ParentUUID != perfetto.ProcessTrackUUID() ||
		len(app.Samples) != 2 || app.Samples[0].Value != 4096 || app.Samples[1].Value != 8192 {
		t.Fatalf("app counter %+v", app)
	}
	if drv := cs["vulkan.mem.driver.usage.general_buffer"]; drv == nil || len(drv.Samples) != 1 || drv.Samples[0].Value != -1 {
		t.Fatalf("driver counter %+v", drv)
	}
	on := tr.ObjectNames()
	if len(on) != 1 || *on[0].ObjectName != (decode.VkObjectName{Pid: uint32(osPid()), Device: 0x1111, ObjectType: 9, Object: 0x2222, Name: "my buffer"}) {
		t.Fatalf("object names %+v", on)
	}

	// Interning: each name defined at most once per sequence (2 live sequences).
	text := protocDecode(t, mustRead(t, path))
	if text != "" {
		if n := strings.Count(text, `name: "vkCreateBuffer"`); n < 1 || n > 2 {
			t.Errorf("vkCreateBuffer interned %d times", n)
		}
		for _, want := range []string{"type: TYPE_INSTANT", "type: TYPE_COUNTER", "unit: UNIT_SIZE_BYTES", "counter_value: 8192",
			"first_packet_on_sequence: true", "sequence_flags: 1", `object_name: "my buffer"`, "uint_value: 43981", "int_value: -65536"} {
			if !strings.Contains(text, want) {
				t.Errorf("protoc output lacks %q", want)
			}
		}
	}
}

func TestSanitizedStrings(t *testing.T) {
	bad := "ok\xff\xfe-end"
	long := strings.Repeat("é", 1<<20)                                     // 2 MiB of valid UTF-8
	s, path := startFile(t, "san.pftrace", perfetto.Options{Sequences: 1}) // one sequence: file order is emit order
	perfetto.Instant(catTest, evName, perfetto.String(anName, bad))
	perfetto.Instant(catTest, evName, perfetto.String(anName, long))
	perfetto.VkObjectName(1, 9, 2, long+"\xff")
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	tr := decodeBoth(t, path)
	inst := tr.Instants()
	if len(inst) != 2 {
		t.Fatalf("%d instants", len(inst))
	}
	a, _ := inst[0].Event.Arg("object_name")
	if a.Str != "ok\uFFFD\uFFFD-end" || a.Str != perfetto.Sanitize(bad) {
		t.Errorf("sanitised %q", a.Str)
	}
	b, _ := inst[1].Event.Arg("object_name")
	o := tr.ObjectNames()[0].ObjectName.Name
	for _, got := range []string{b.Str, o} {
		if len(got) > perfetto.MaxStringLen || !strings.HasSuffix(got, perfetto.TruncationMarker) || !utf8.ValidString(got) ||
			!strings.HasPrefix(long, strings.TrimSuffix(got, perfetto.TruncationMarker)) || len(got) < perfetto.MaxStringLen-4 {
			t.Errorf("truncated string: len %d, suffix %q", len(got), got[max(0, len(got)-20):])
		}
	}
	if got := perfetto.Sanitize(strings.Repeat("a", perfetto.MaxStringLen)); len(got) != perfetto.MaxStringLen || strings.HasSuffix(got, perfetto.TruncationMarker) {
		t.Errorf("string of exactly MaxStringLen changed")
	}
}

func TestReferenceSDKTraceDecodes(t *testing.T) {
	tr, err := decode.ReadFile(testenv.Shared(t, "perfetto/reference/sdk.trace"))
	if err != nil {
		t.Fatal(err)
	}
	inst := tr.Instants()
	if len(inst) != 3 {
		t.Fatalf("%d instants in the SDK trace, want 3", len(inst))
	}
	for i, p := range inst {
		e := p.Event
		h, _ := e.Arg("object_handle")
		sz, _ := e.Arg("size")
		if e.Name != "vkCreateBuffer" || e.Categories[0] != "vulkan" || h.Uint != 0xABCD+uint64(i) || sz.Int != 65536 {
			t.Errorf("SDK instant %d: %+v", i, e)
		}
		if e.TrackUUID != 2231979800320049037 {
			t.Errorf("SDK instant %d on track %d, want the thread default", i, e.TrackUUID)
		}
	}
}

// TestUnregisteredEventOnThread: an event with an unregistered name on a
// thread track writes nothing, so the thread's next event still writes the
// thread's descriptor (it was once marked described with the descriptor cut
// along with the event).
func TestUnregisteredEventOnThread(t *testing.T) {
	s, path := startFile(t, "thread.pftrace", perfetto.Options{Sequences: 1})
	th := perfetto.ThreadTrack(4243)
	perfetto.InstantOn(th, catTest, evUnusable)
	perfetto.InstantOn(th, catTest, evCreate)
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	tr := decodeBoth(t, path)
	if d := tr.Tracks[th.UUID()]; d == nil || d.Thread == nil || d.Thread.Tid != 4243 {
		t.Fatalf("thread track descriptor %+v, want one for tid 4243", d)
	}
	if inst := tr.Instants(); len(inst) != 1 || inst[0].Event.TrackUUID != th.UUID() {
		t.Fatalf("instants %+v, want the one on the thread track", inst)
	}
}
