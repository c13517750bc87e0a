package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/internal/perfettotools"
	"github.com/vkgen/vkgen/perfetto"
)

// TestTraceSummary runs `vkgen trace summary` on a small trace written with
// the layer's event vocabulary.
func TestTraceSummary(t *testing.T) {
	var buf bytes.Buffer
	s, err := perfetto.StartSession("cli", perfetto.WriterOutput(&buf), perfetto.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cat := perfetto.NewCategory("VulkanDeviceMemoryReport")
	an := perfetto.NewAnnotationName
	perfetto.Instant(cat, perfetto.NewEventName("VulkanMemoryAllocation"),
		perfetto.String(an("operation"), "CREATE"), perfetto.String(an("source"), "DEVICE_MEMORY"),
		perfetto.Uint(an("memory_object_id"), 0x100), perfetto.Uint(an("size"), 4096), perfetto.Uint(an("offset"), 0),
		perfetto.Uint(an("object_handle"), 0x100), perfetto.String(an("memory_type"), "unbound_memory"))
	perfetto.Instant(cat, perfetto.NewEventName("VulkanObjectName"),
		perfetto.Int(an("object_type"), 8), perfetto.Uint(an("object_handle"), 0x100), perfetto.String(an("object_name"), "heap.block"))
	perfetto.Counter(perfetto.NewCounterTrack("vulkan.mem.app.usage.unbound_memory", perfetto.UnitSizeBytes), 4096)
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.pftrace")
	if err := os.WriteFile(trace, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	perfettotools.CheckStats(t, trace)

	out, errOut, code := vkgen(t, "trace", "summary", "--top", "100", "--window", "33554432", "--format", "text", "--svg", "", "--html", "", trace)
	if code != 0 || !strings.Contains(out, "heap.block") || !strings.Contains(out, "vulkan.mem.app.usage.unbound_memory") {
		t.Errorf("text: code %d\n%s\n%s", code, out, errOut)
	}
	svg := filepath.Join(dir, "c.svg")
	out, errOut, code = vkgen(t, "trace", "summary", "--top", "100", "--window", "33554432", "--format", "json", "--svg", svg, "--html", "", trace)
	var js struct {
		Objects []struct {
			Name  string
			Bytes uint64
		}
		Clusters []struct {
			Track string
			Peak  int64 `json:"peak_bytes"`
		}
	}
	if err := json.Unmarshal([]byte(out), &js); code != 0 || err != nil || len(js.Objects) != 1 ||
		js.Objects[0].Name != "heap.block" || js.Objects[0].Bytes != 4096 || len(js.Clusters) != 1 || js.Clusters[0].Peak != 4096 {
		t.Errorf("json: code %d err %v\n%s\n%s", code, err, out, errOut)
	}
	if b, err := os.ReadFile(svg); err != nil || !bytes.Contains(b, []byte("<polyline")) {
		t.Errorf("svg not written: %v", err)
	}

	// A trace still being written, or cut: the summary of its whole
	// packets, exit status 1 and where it stops.
	cut := filepath.Join(dir, "cut.pftrace")
	if err := os.WriteFile(cut, buf.Bytes()[:buf.Len()-3], 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = vkgen(t, "trace", "summary", "--top", "100", "--window", "33554432", "--format", "text", "--svg", "", "--html", "", cut)
	if code != 1 || !strings.Contains(out, "heap.block") || !strings.Contains(errOut, cut+": byte offset ") ||
		!strings.Contains(errOut, "truncated") || !strings.Contains(errOut, "the summary covers every packet before it") {
		t.Errorf("cut trace: code %d, want 1\n%s\n%s", code, out, errOut)
	}

	for _, args := range [][]string{
		{"trace", "summary", "--top", "100", "--window", "33554432", "--format", "text", "--svg", "", "--html", "", filepath.Join(dir, "missing")},
		{"trace", "summary", "--top", "100", "--window", "33554432", "--format", "yaml", "--svg", "", "--html", "", trace},
		{"trace", "summary", "--top", "100", "--window", "33554432", "--format", "text", "--svg", svg, "--html", svg + ".html", trace},
	} {
		if _, _, code := vkgen(t, args...); code != 2 {
			t.Errorf("vkgen %v: exit %d, want 2", args, code)
		}
	}
}
