package memreport

import (
	"bytes"
	"cmp"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/generated"
	"github.com/vkgen/vkgen/internal/perfettotools"
	"github.com/vkgen/vkgen/layer/memreport/accounting"
	"github.com/vkgen/vkgen/layer/memreport/describe"
	"github.com/vkgen/vkgen/perfetto"
	"github.com/vkgen/vkgen/perfetto/decode"
)

// The rule for vkBind*Memory2 results (VK_KHR_maintenance6).
func TestBindOK(t *testing.T) {
	ok, failed := int32(0), int32(-2)
	for _, c := range []struct {
		callOK bool
		status *int32
		want   bool
	}{
		{true, nil, true},
		{true, &failed, true}, // the call's success covers every bind
		{false, nil, false},   // a failed batch without statuses: indeterminate, nothing recorded
		{false, &ok, true},
		{false, &failed, false},
	} {
		if got := bindOK(c.callOK, c.status); got != c.want {
			t.Errorf("bindOK(%v, %v) = %v, want %v", c.callOK, c.status, got, c.want)
		}
	}
}

// Swapchain images end with their swapchain (their names are the
// framework's to forget: TestBindsSwapchain).
func TestSwapchainImagesEndWithSwapchain(t *testing.T) {
	s, r := newTestState()
	s.deviceCreated(dev, 0, 1, false, false, props(0))
	s.swapchainImages(dev, 0x5c, []uint64{0xa1, 0xa2})
	s.swapchainDestroyed(dev, 0x5c)
	var ops []string
	for _, ev := range r.events {
		ops = append(ops, ev.Operation.String()+" "+ev.MemoryType)
	}
	if want := []string{"BIND swapchain", "BIND swapchain", "DESTROY swapchain", "DESTROY swapchain"}; !slices.Equal(ops, want) {
		t.Errorf("events %v, want %v", ops, want)
	}
}

// The annotations only some events carry reach the trace with their values,
// and trace_processor reads it cleanly.
func TestTraceDetails(t *testing.T) {
	s := newTraceState()
	ss, out := bufferSession(t, "details")
	s.deviceCreated(dev, 0, 1, false, false, props(0))
	s.imageCreated(dev, 0x1a, describe.Image{Usage: accounting.ImageUsageSampled, Flags: 0}, 0)
	s.memoryAllocated(dev, 0x100, 65536, 0, accounting.MemoryInfo{Dedicated: accounting.KindImage, DedicatedHandle: 0x1a})
	s.memoryAllocated(dev, 0x101, 8192, 0, accounting.MemoryInfo{External: accounting.ExternalImported, HandleTypes: 0x80})
	s.bufferCreated(dev, 0xb1, accounting.BufferUsageStorage, 1<<20, 0)
	s.sparseBound(dev, accounting.KindBuffer, 0xb1, 4096, 4096, 0x101, 0)
	s.videoSessionCreated(dev, 0x7e, 0)
	s.videoSessionBound(dev, 0x7e, 3, 0x101, 4096, 2048)
	s.swapchainImages(dev, 0x5c, []uint64{0xa1})
	if err := ss.Stop(); err != nil {
		t.Fatal(err)
	}
	perfettotools.CheckStatsData(t, out.Bytes())
	tr, err := decode.Decode(out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	details := []string{"external", "handle_types", "dedicated_type", "dedicated_handle", "resource_offset", "bind_index", "swapchain"}
	var got []map[string]string
	// Emitters write to several sequences: time order, not file order.
	pkts := tr.Instants()
	slices.SortStableFunc(pkts, func(a, b decode.Packet) int { return cmp.Compare(a.Timestamp, b.Timestamp) })
	for _, p := range pkts {
		if p.Event.Name != AllocationEventName {
			continue
		}
		m := map[string]string{}
		for _, a := range p.Event.Annotations {
			if slices.Contains(details, a.Name) || a.Name == "source" {
				m[a.Name] = a.Value()
			}
		}
		got = append(got, m)
	}
	want := []map[string]string{
		{"source": "DEVICE_MEMORY", "dedicated_type": "IMAGE", "dedicated_handle": "26"},
		{"source": "DEVICE_MEMORY", "external": "IMPORTED", "handle_types": "128"},
		{"source": "BUFFER", "resource_offset": "4096"},
		{"source": "VIDEO_SESSION", "bind_index": "3"},
		{"source": "IMAGE", "swapchain": "92"},
	}
	if !slices.EqualFunc(got, want, maps.Equal) {
		t.Errorf("details %v, want %v", got, want)
	}
}

// Each sparse range and video session binding is a lifetime of its own (on
// a lane of its own while open), and a rename of the resource renames all
// of them.
func TestRangeLifetimesRenamed(t *testing.T) {
	s := newTraceState()
	sess, out := bufferSession(t, "ranges")
	s.deviceCreated(dev, 0, 1, false, false, props(0))
	s.memoryAllocated(dev, 0x100, 65536, 0, accounting.MemoryInfo{})
	s.bufferCreated(dev, 0xb1, accounting.BufferUsageStorage, 1<<20, 0)
	s.sparseBound(dev, accounting.KindBuffer, 0xb1, 0, 4096, 0x100, 0)
	s.sparseBound(dev, accounting.KindBuffer, 0xb1, 65536, 4096, 0x100, 4096)
	s.videoSessionCreated(dev, 0x7e, 0)
	s.videoSessionBound(dev, 0x7e, 0, 0x100, 8192, 4096)
	_ = s.names.SetName(uint64(dev), generated.ObjectTypeBuffer, 0xb1, "streamed")
	_ = s.names.SetName(uint64(dev), generated.ObjectTypeVideoSessionKHR, 0x7e, "decoder")
	wantLifetimes(t, sess, out, 4, []string{"VkBuffer 0xb1 > streamed", "VkBuffer 0xb1 > streamed", "VkDeviceMemory 0x100", "VkVideoSessionKHR 0x7e > decoder"})
}

// Each plane of a disjoint image is a lifetime of its own, and a rename of
// the image renames both; once they ended, a rename of another image
// renames its one slice, on a lane the planes left (three lanes in all).
func TestPlaneLifetimesRenamed(t *testing.T) {
	s := newTraceState()
	sess, out := bufferSession(t, "planes")
	const plane0, plane1 = 0x10, 0x20 // VK_IMAGE_ASPECT_PLANE_0/1_BIT
	s.deviceCreated(dev, 0, 1, false, false, props(0))
	s.memoryAllocated(dev, 0x100, 65536, 0, accounting.MemoryInfo{})
	s.imageCreated(dev, 0x2a, describe.Image{Usage: accounting.ImageUsageSampled, Flags: accounting.ImageCreateDisjoint}, 0)
	s.bound(dev, accounting.KindImage, 0x2a, 0x100, 0, plane0, func() uint64 { return 8192 })
	s.planeRequirements(dev, 0x2a, plane1, 4096)
	s.bound(dev, accounting.KindImage, 0x2a, 0x100, 8192, plane1, noQuery(t))
	_ = s.names.SetName(uint64(dev), generated.ObjectTypeImage, 0x2a, "video frame")
	s.resourceDestroyed(dev, accounting.KindImage, 0x2a)
	s.imageCreated(dev, 0x3a, describe.Image{Usage: accounting.ImageUsageSampled, Flags: 0}, 0)
	s.bound(dev, accounting.KindImage, 0x3a, 0x100, 16384, planeAspectNone, func() uint64 { return 4096 })
	_ = s.names.SetName(uint64(dev), generated.ObjectTypeImage, 0x3a, "albedo")
	wantLifetimes(t, sess, out, 3, []string{"VkDeviceMemory 0x100", "VkImage 0x2a > video frame", "VkImage 0x2a > video frame", "VkImage 0x3a > albedo"})
}

// wantLifetimes stops sess and checks what slicesPerLifetime finds in out,
// its trace, and that the slices are on that many tracks (lanes).
func wantLifetimes(t *testing.T, sess *perfetto.Session, out *bytes.Buffer, lanes int, want []string) {
	t.Helper()
	if err := sess.Stop(); err != nil {
		t.Fatal(err)
	}
	got, tracks := slicesPerLifetime(t, out.Bytes())
	if !slices.Equal(got, want) {
		t.Errorf("slices per lifetime %q, want %q", got, want)
	}
	if tracks != lanes {
		t.Errorf("slices on %d tracks, want %d", tracks, lanes)
	}
}

// slicesPerLifetime checks trace b and returns the names of the slices of
// each lifetime (their "lifetime" annotation) in time order, joined by
// " > ", sorted, and how many tracks the slices are on.
func slicesPerLifetime(t *testing.T, b []byte) ([]string, int) {
	t.Helper()
	perfettotools.CheckStatsData(t, b)
	tr, err := decode.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	pkts := slices.Clone(tr.Packets)
	slices.SortStableFunc(pkts, func(a, b decode.Packet) int { return cmp.Compare(a.Timestamp, b.Timestamp) })
	names := map[uint64][]string{} // slice names per lifetime, in order
	tracks := map[uint64]bool{}
	for _, p := range pkts {
		if p.Event != nil && p.Event.Type == decode.TypeSliceBegin {
			a, _ := p.Event.Arg("lifetime")
			names[a.Uint] = append(names[a.Uint], p.Event.Name)
			tracks[p.Event.TrackUUID] = true
		}
	}
	var got []string
	for _, n := range names {
		got = append(got, strings.Join(n, " > "))
	}
	slices.Sort(got)
	return got, len(tracks)
}
