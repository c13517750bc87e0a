package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/internal/vktest"
)

// summaryArgs are `vkgen trace summary` with every flag given (cobra keeps
// flag values between in-process runs).
func summaryArgs(trace string, extra ...string) []string {
	args := []string{"trace", "summary", "--top", "0", "--window", "33554432", "--format", "json", "--svg", "", "--html", ""}
	return append(append(args, extra...), trace)
}

// TestTraceSummaryRecycledHandles runs testdata/vkstress (threads creating,
// naming, binding and destroying buffers) through the real loader on
// lavapipe with VK_LAYER_VKGEN_DeviceMemoryReport, and checks that
// `vkgen trace summary` lists every buffer the program made with its own
// name and size although lavapipe hands each freed handle to the next
// buffer (sizes alternate 64 MiB, 256 B, 64 KiB).
func TestTraceSummaryRecycledHandles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the layer library; skipped with -short")
	}
	vktest.Layers(t)
	prog := vktest.Program(t, "testdata/vkstress/vkstress.c")
	for _, threads := range []int{1, 4} {
		t.Run(fmt.Sprintf("threads=%d", threads), func(t *testing.T) {
			trace := filepath.Join(t.TempDir(), "stress.pftrace")
			cmd := exec.Command(prog, "--threads", strconv.Itoa(threads), "--iterations", "300", "--list")
			cmd.Env = append(vktest.Env(t, "VK_LAYER_VKGEN_DeviceMemoryReport"), "VK_VKGEN_TRACE_FILE="+trace)
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("vkstress: %v\n%s", err, out)
			}
			type row struct {
				name   string
				handle uint64
				bytes  uint64
			}
			made := map[row]bool{}
			handles := map[uint64]int{}
			for _, l := range strings.Split(string(out), "\n") {
				f := strings.Fields(l)
				if len(f) != 4 || f[0] != "buffer" {
					continue
				}
				h, _ := strconv.ParseUint(f[2], 0, 64)
				n, _ := strconv.ParseUint(f[3], 10, 64)
				made[row{f[1], h, n}] = true
				handles[h]++
			}
			if len(made) != threads*300 || len(handles) >= len(made) {
				t.Fatalf("%d buffers listed on %d handles: want %d buffers and lavapipe reusing handles", len(made), len(handles), threads*300)
			}

			stdout, stderr, code := vkgen(t, summaryArgs(trace)...)
			var s struct {
				Objects []struct {
					Name, Type string
					Handle     uint64
					Bytes      uint64
				}
				Total   int   `json:"objects_total"`
				Dropped int64 `json:"dropped_events"`
				Late    int   `json:"late_events"`
			}
			if err := json.Unmarshal([]byte(stdout), &s); code != 0 || err != nil {
				t.Fatalf("exit %d, %v\n%s", code, err, stderr)
			}
			if s.Dropped != 0 || s.Late != 0 {
				t.Fatalf("dropped %d, late %d events", s.Dropped, s.Late)
			}
			got := map[row]bool{}
			for _, o := range s.Objects {
				if o.Type == "BUFFER" {
					got[row{o.Name, o.Handle, o.Bytes}] = true
				}
			}
			for r := range made {
				if !got[r] {
					t.Errorf("no row for buffer %s %#x %d bytes", r.name, r.handle, r.bytes)
				}
			}
			// Buffers and their memory, nothing merged, nothing invented.
			if len(got) != len(made) || s.Total != 2*len(made) {
				t.Errorf("%d buffer rows, %d objects; want %d and %d", len(got), s.Total, len(made), 2*len(made))
			}
		})
	}
}

// TestFullDeferredRing runs the demo's benchmark (one thread creating,
// binding and destroying buffers as fast as lavapipe allows: five rounds of
// n) under DeviceMemoryReport tracing to a file. The thread records several
// times the deferred ring's 8 MiB faster than the hooks write the trace, so
// it sleeps until there is room: every buffer and the memory must still be
// in the trace, nothing dropped, no record given up.
func TestFullDeferredRing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the layer library; skipped with -short")
	}
	vktest.Layers(t)
	demo := vktest.Program(t, "demo/demo.c")
	trace := filepath.Join(t.TempDir(), "full-ring.pftrace")
	const n = 20000
	cmd := exec.Command(demo, "--bench", strconv.Itoa(n))
	cmd.Env = append(vktest.Env(t, "VK_LAYER_VKGEN_DeviceMemoryReport"), "VK_VKGEN_TRACE_FILE="+trace)
	out, err := cmd.CombinedOutput()
	if err != nil || strings.Contains(string(out), "not recorded") {
		t.Fatalf("demo: %v\n%s", err, out)
	}
	stdout, stderr, code := vkgen(t, "trace", "summary", "--top", "1", "--window", "33554432", "--format", "json", "--svg", "", "--html", "", trace)
	var s struct {
		Total   int   `json:"objects_total"`
		Dropped int64 `json:"dropped_events"`
		Late    int   `json:"late_events"`
	}
	if err := json.Unmarshal([]byte(stdout), &s); code != 0 || err != nil {
		t.Fatalf("exit %d, %v\n%s", code, err, stderr)
	}
	if s.Total != 5*n+1 || s.Dropped != 0 || s.Late != 0 {
		t.Errorf("%d objects, %d dropped, %d late events; want %d buffers and their memory, none dropped", s.Total, s.Dropped, s.Late, 5*n)
	}
}

// A trace buffer too small for the event rate (VK_VKGEN_TRACE_BUFFER_KB)
// drops events, and the summary reports how many.
func TestTraceSummaryDroppedEvents(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the layer library; skipped with -short")
	}
	vktest.Layers(t)
	prog := vktest.Program(t, "testdata/vkstress/vkstress.c")
	trace := filepath.Join(t.TempDir(), "small-buffers.pftrace")
	cmd := exec.Command(prog, "--threads", "4", "--iterations", "2000")
	cmd.Env = append(vktest.Env(t, "VK_LAYER_VKGEN_DeviceMemoryReport"), "VK_VKGEN_TRACE_FILE="+trace, "VK_VKGEN_TRACE_BUFFER_KB=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("vkstress: %v\n%s", err, out)
	}
	stdout, stderr, code := vkgen(t, summaryArgs(trace)...)
	var s struct {
		Dropped int64 `json:"dropped_events"`
	}
	if err := json.Unmarshal([]byte(stdout), &s); code != 0 || err != nil || s.Dropped == 0 {
		t.Errorf("exit %d, %v, dropped %d; want drops with 1 KiB buffers\n%s", code, err, s.Dropped, stderr)
	}
}

// Input that is not a trace is an error naming the file and offset, exit 2.
func TestTraceSummaryNotATrace(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.pftrace")
	config := filepath.Join(dir, "config.pb")
	os.WriteFile(empty, nil, 0o644)
	// TraceConfig{buffers{size_kb: 1024}, duration_ms: 1000}
	os.WriteFile(config, []byte{0x0a, 0x03, 0x08, 0x80, 0x08, 0x18, 0xe8, 0x07}, 0o644)
	for path, want := range map[string]string{
		empty:       empty + ": byte offset 0 (packet 0): not a Perfetto trace",
		config:      config + ": byte offset 5 (packet 1): not a Perfetto trace",
		"/dev/zero": "/dev/zero: byte offset 0 (packet 0): not a Perfetto trace",
		dir:         dir + ": byte offset 0",
	} {
		_, stderr, code := vkgen(t, summaryArgs(path)...)
		if code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("%s: exit %d, %q; want 2 and %q", path, code, stderr, want)
		}
	}
}
