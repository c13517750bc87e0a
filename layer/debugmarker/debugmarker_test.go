package debugmarker

// In-process tests of the layer's Go side: the live emitter and the
// session-start replay wired to the name store, decoded back with
// perfetto/decode (the equivalents of the reference's test_debugmarker.cpp,
// reference-behaviour 6.2; the loader-level CombinedTest is
// TestNamesFromBothAPIsReachTheTrace in integration_test.go).

import (
	"testing"

	"github.com/vkgen/vkgen/generated"
	"github.com/vkgen/vkgen/internal/perfettotools"
	"github.com/vkgen/vkgen/objectnames"
	"github.com/vkgen/vkgen/perfetto"
	"github.com/vkgen/vkgen/perfetto/decode"
)

func start(t *testing.T, name string) (*perfetto.Session, *perfettotools.LockedBuffer) {
	t.Helper()
	var out perfettotools.LockedBuffer
	s, err := perfetto.StartSession(name, perfetto.WriterOutput(&out), perfetto.Options{Sequences: 1})
	if err != nil {
		t.Fatal(err)
	}
	return s, &out
}

func stop(t *testing.T, s *perfetto.Session, out *perfettotools.LockedBuffer) *decode.Trace {
	t.Helper()
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	tr, err := decode.Decode(out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	perfettotools.CheckStatsData(t, out.Bytes())
	return tr
}

type rec struct {
	dev  uint64
	typ  generated.ObjectType
	obj  uint64
	name string
}

func objectNames(t *testing.T, tr *decode.Trace) []rec {
	t.Helper()
	var out []rec
	for _, p := range tr.Packets {
		if o := p.ObjectName; o != nil {
			if !p.HasClockID || p.ClockID != perfetto.ClockBoottime || !p.HasTimestamp {
				t.Errorf("packet %d: clock id %v/%d, want explicit BOOTTIME", p.Index, p.HasClockID, p.ClockID)
			}
			out = append(out, rec{o.Device, generated.ObjectType(o.ObjectType), o.Object, o.Name})
		}
	}
	return out
}

func equal(t *testing.T, what string, got, want []rec) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d packets %+v, want %+v", what, len(got), got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("%s[%d] = %+v, want %+v", what, i, got[i], want[i])
		}
	}
}

// withStore gives the test its own store wired like the layer's (live
// emitter plus a registered replay hook), leaving the layer's one alone.
func withStore(t *testing.T) *objectnames.Store {
	s := objectnames.New(objectnames.EmitterFunc(emitLive))
	t.Cleanup(perfetto.RegisterReplay(replayInto(s)))
	return s
}

// EmitsBothRawPacketAndSqlVisibleInstantEvent, DebugMarker part: names set
// through both APIs become raw packets, in call order, with the legacy type
// mapped; the instant event is DeviceMemoryReport's representation.
func TestLiveNamesBecomePacketsInCallOrder(t *testing.T) {
	s := withStore(t)
	sess, out := start(t, "live")
	const dev = 0xD0
	if err := s.SetDebugUtilsObjectName(dev, &objectnames.DebugUtilsObjectNameInfo{ObjectType: generated.ObjectTypeBuffer, ObjectHandle: 0xB1, ObjectName: "buf"}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetDebugMarkerObjectName(dev, &objectnames.DebugMarkerObjectNameInfo{ObjectType: generated.DebugReportObjectTypeImage, Object: 0x11, ObjectName: "img"}); err != nil {
		t.Fatal(err)
	}
	_ = s.SetName(dev, generated.ObjectTypeBuffer, 0xB1, "buf")  // unchanged: nothing
	_ = s.SetName(dev, generated.ObjectTypeBuffer, 0xB1, "buf2") // rename
	_ = s.SetName(dev, generated.ObjectTypeImage, 0x11, "")      // removal: empty object_name
	equal(t, "live", objectNames(t, stop(t, sess, out)), []rec{
		{dev, generated.ObjectTypeBuffer, 0xB1, "buf"},
		{dev, generated.ObjectTypeImage, 0x11, "img"},
		{dev, generated.ObjectTypeBuffer, 0xB1, "buf2"},
		{dev, generated.ObjectTypeImage, 0x11, ""},
	})
}

// RawPacketsExplicitlySpecifyBoottimeClockId: a track event on the same
// sequence publishes packet defaults; the raw packets still carry clock 6.
func TestRawPacketsExplicitlySpecifyBoottimeClockId(t *testing.T) {
	s := withStore(t)
	sess, out := start(t, "clock")
	cat, ev := perfetto.NewCategory("VulkanDebugMarker"), perfetto.NewEventName("marker")
	perfetto.Instant(cat, ev)
	_ = s.SetName(1, generated.ObjectTypeBuffer, 2, "after-event")
	tr := stop(t, sess, out)
	var events int
	for _, p := range tr.Packets {
		if p.Event != nil {
			events++
		}
	}
	if events == 0 {
		t.Fatal("no track event on the sequence")
	}
	equal(t, "names", objectNames(t, tr), []rec{{1, generated.ObjectTypeBuffer, 2, "after-event"}})
}

// SessionStartReplay: names set before the session (with a rename) are
// replayed first, in (type, handle) order, final names only, then live.
func TestSessionStartReplaysCurrentNamesFirst(t *testing.T) {
	s := withStore(t)
	const dev = 7
	_ = s.SetName(dev, generated.ObjectTypeBuffer, 0x20, "buffer")
	_ = s.SetName(dev, generated.ObjectTypeDeviceMemory, 0x30, "memory")
	_ = s.SetName(dev, generated.ObjectTypeBuffer, 0x20, "buffer-renamed")
	_ = s.SetName(dev, generated.ObjectTypeImage, 0x40, "gone")
	s.ObjectDestroyed(dev, generated.ObjectTypeImage, 0x40)
	sess, out := start(t, "replay")
	_ = s.SetName(dev, generated.ObjectTypeImage, 0x40, "recycled") // a new image on the old handle
	equal(t, "replay+live", objectNames(t, stop(t, sess, out)), []rec{
		{dev, generated.ObjectTypeDeviceMemory, 0x30, "memory"}, // DEVICE_MEMORY (8) before BUFFER (9)
		{dev, generated.ObjectTypeBuffer, 0x20, "buffer-renamed"},
		{dev, generated.ObjectTypeImage, 0x40, "recycled"},
	})
}

// A session that is already running when the layer's hook is registered (the
// layer loading after tracing began) receives the replay at once.
func TestSessionRunningBeforeRegistrationGetsReplay(t *testing.T) {
	sess, out := start(t, "early")
	s := objectnames.New(nil) // names the session has not seen live
	_ = s.SetName(3, generated.ObjectTypeSampler, 0x50, "sampler")
	unregister := perfetto.RegisterReplay(replayInto(s))
	defer unregister()
	equal(t, "replay", objectNames(t, stop(t, sess, out)), []rec{{3, generated.ObjectTypeSampler, 0x50, "sampler"}})
}

// Destroyed devices take their objects' names with them; a later session
// does not replay them.
func TestDestroyedDeviceIsNotReplayed(t *testing.T) {
	s := withStore(t)
	_ = s.SetName(1, generated.ObjectTypeBuffer, 0x60, "dev1-buffer")
	_ = s.SetName(2, generated.ObjectTypeBuffer, 0x60, "dev2-buffer")
	_ = s.SetName(1, generated.ObjectTypeDevice, 1, "dev1")
	s.DeviceDestroyed(1)
	sess, out := start(t, "after-destroy")
	equal(t, "replay", objectNames(t, stop(t, sess, out)), []rec{{2, generated.ObjectTypeBuffer, 0x60, "dev2-buffer"}})
}
