package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/perfetto"
)

// tally and kinds account for every byte of a trace written by package
// perfetto: the fields add up to its size, and so do the kinds of packet.
func TestBytesAddUp(t *testing.T) {
	b := record(t, perfetto.Options{})
	tl, err := tally(b)
	if err != nil {
		t.Fatal(err)
	}
	fields := 0
	for _, n := range tl.fields {
		fields += n
	}
	k := map[string]int{}
	if err := kinds(b, k); err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, n := range k {
		total += n
	}
	if fields != len(b) || total != len(b) || k["kind instant VulkanMemoryAllocation"] == 0 || k["kind raw VkDebugUtilsObjectName"] == 0 {
		t.Errorf("%d bytes: fields add up to %d, kinds to %d: %v", len(b), fields, total, k)
	}
	if tl.packets < 20 {
		t.Errorf("%d packets, want at least the 20 written", tl.packets)
	}
}

// A compressed trace is refused with a way to get a plain one, not
// tallied as one unknown field.
func TestCompressedRefused(t *testing.T) {
	if _, err := tally(record(t, perfetto.Options{Compress: true})); err == nil || !strings.Contains(err.Error(), "VK_VKGEN_TRACE_COMPRESS=0") {
		t.Errorf("tally of a compressed trace: %v", err)
	}
}

var (
	cat  = perfetto.NewCategory("VulkanDeviceMemoryReport")
	name = perfetto.NewEventName("VulkanMemoryAllocation")
	size = perfetto.NewAnnotationName("size")
	ctr  = perfetto.NewCounterTrack("vulkan.mem.app.usage.tracebytes", perfetto.UnitSizeBytes)
)

// record writes a trace file of 10 allocation instants with counter values
// and 10 raw object names, and returns it.
func record(t *testing.T, opts perfetto.Options) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.pftrace")
	s, err := perfetto.StartFileSession(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		perfetto.InstantSlices(cat, name, nil, []perfetto.CounterValue{{Track: ctr, Value: int64(i)}}, perfetto.Int(size, int64(i)))
		perfetto.VkObjectName(1, 9, uint64(i), "buffer")
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
