package accounting

import (
	"fmt"
	"maps"
	"strings"
	"testing"
)

// recorder is a Sink keeping every event in order and the last value of
// every counter, so tests can check the reported stream against the state.
type recorder struct {
	events []string
	allocs []AllocationEvent
	last   map[string]int64
}

func newRecorder() *recorder { return &recorder{last: make(map[string]int64)} }

func (r *recorder) Counter(track string, bytes int64) {
	r.events = append(r.events, fmt.Sprintf("counter %s=%d", strings.TrimPrefix(track, "vulkan.mem."), bytes))
	r.last[track] = bytes
}

func (r *recorder) Allocation(ev AllocationEvent) {
	r.allocs = append(r.allocs, ev)
	r.events = append(r.events, evString(ev))
}

func evString(ev AllocationEvent) string {
	return fmt.Sprintf("%s %s dev=%#x mem=%#x size=%d off=%d obj=%#x %s",
		ev.Operation, ev.Source, ev.Device, ev.MemoryObjectID, ev.Size, ev.Offset, ev.ObjectHandle, ev.MemoryType)
}

// take returns the events recorded since the last take.
func (r *recorder) take() []string {
	ev := r.events
	r.events = nil
	return ev
}

func newTestEngine() (*Engine, *recorder) {
	r := newRecorder()
	return New(r), r
}

// app and drv abbreviate track names in expectations.
func app(c Cluster) string { return TrackName(false, c) }
func drv(c Cluster) string { return TrackName(true, c) }

// wantTotals checks the engine's non-zero counters are exactly want and that
// the last reported value of every track agrees with the engine.
func wantTotals(t *testing.T, e *Engine, r *recorder, want map[string]int64) {
	t.Helper()
	got := e.Totals()
	if want == nil {
		want = map[string]int64{}
	}
	if !maps.Equal(got, want) {
		t.Fatalf("totals = %v, want %v", got, want)
	}
	if r == nil {
		return
	}
	for track, v := range r.last {
		if got[track] != v {
			t.Fatalf("last reported %s = %d, engine has %d", track, v, got[track])
		}
	}
}

func wantEvents(t *testing.T, r *recorder, want ...string) {
	t.Helper()
	got := r.take()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// appAlloc is an application allocation reported by the callback for a
// VkDeviceMemory handle.
func appAlloc(typ CallbackType, mem, size uint64) CallbackEvent {
	return CallbackEvent{Type: typ, MemoryObjectID: mem + 0x10000, Size: size, ObjectType: ObjectTypeDeviceMemory, ObjectHandle: mem}
}

// testProps describes a device whose memory type 0 is device-local only and type 1
// is HOST_VISIBLE; type 2 is LAZILY_ALLOCATED.
var testProps = MemoryProperties{TypeFlags: []uint32{0x1, 0x1 | MemoryPropertyHostVisible, 0x1 | MemoryPropertyLazilyAllocated}}
