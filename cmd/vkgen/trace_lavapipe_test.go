package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vkgen/vkgen/internal/perfettotools"
	"github.com/vkgen/vkgen/internal/vktest"
	"github.com/vkgen/vkgen/perfetto"
)

// summaryArgs are `vkgen trace summary` with every flag given (cobra keeps
// flag values between in-process runs).
func summaryArgs(trace string, extra ...string) []string {
	args := []string{"trace", "summary", "--top", "0", "--window", "33554432", "--format", "json", "--svg", "", "--html", ""}
	return append(append(args, extra...), trace)
}

// tracedRun builds the C program src and runs it with args under
// VK_LAYER_VKGEN_DeviceMemoryReport tracing to a new file (with env added),
// and returns the trace's path and the program's standard output; the
// program failing, or saying a deferred call was not recorded, fails t.
func tracedRun(t *testing.T, src string, env []string, args ...string) (trace string, stdout []byte) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the layer library; skipped with -short")
	}
	vktest.Layers(t)
	trace = filepath.Join(t.TempDir(), "run.pftrace")
	cmd := exec.Command(vktest.Program(t, src), args...)
	cmd.Env = append(append(vktest.Env(t, "VK_LAYER_VKGEN_DeviceMemoryReport"), "VK_VKGEN_TRACE_FILE="+trace), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil || strings.Contains(stderr.String(), "not recorded") {
		t.Fatalf("%s: %v\n%s%s", src, err, stdout, stderr.String())
	}
	return trace, stdout
}

// summaryCounts is what every test reads of `vkgen trace summary --format
// json`.
type summaryCounts struct {
	Total   int   `json:"objects_total"`
	Dropped int64 `json:"dropped_events"`
	Late    int   `json:"late_events"`
}

// summarize runs `vkgen trace summary --format json` with extra flags and
// decodes its output into v; a failure fails t.
func summarize(t *testing.T, trace string, v any, extra ...string) {
	t.Helper()
	stdout, stderr, code := vkgen(t, summaryArgs(trace, extra...)...)
	if err := json.Unmarshal([]byte(stdout), v); code != 0 || err != nil {
		t.Fatalf("trace summary: exit %d, %v\n%s", code, err, stderr)
	}
}

// TestTraceSummaryRecycledHandles runs testdata/vkstress (threads creating,
// naming, binding and destroying buffers) through the real loader on
// lavapipe with VK_LAYER_VKGEN_DeviceMemoryReport, and checks that
// `vkgen trace summary` lists every buffer the program made with its own
// name and size although lavapipe hands each freed handle to the next
// buffer (sizes alternate 64 MiB, 256 B, 64 KiB).
func TestTraceSummaryRecycledHandles(t *testing.T) {
	for _, threads := range []int{1, 4} {
		t.Run(fmt.Sprintf("threads=%d", threads), func(t *testing.T) {
			trace, out := tracedRun(t, "testdata/vkstress/vkstress.c", nil, "--threads", strconv.Itoa(threads), "--iterations", "300", "--list")
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

			var s struct {
				Objects []struct {
					Name, Type string
					Handle     uint64
					Bytes      uint64
				}
				summaryCounts
			}
			summarize(t, trace, &s)
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
	const n = 20000
	trace, _ := tracedRun(t, "demo/demo.c", nil, "--bench", strconv.Itoa(n))
	var s summaryCounts
	summarize(t, trace, &s, "--top", "1")
	if s.Total != 5*n+1 || s.Dropped != 0 || s.Late != 0 {
		t.Errorf("%d objects, %d dropped, %d late events; want %d buffers and their memory, none dropped", s.Total, s.Dropped, s.Late, 5*n)
	}
}

// A trace buffer far too small for the event rate (VK_VKGEN_TRACE_BUFFER_KB=1)
// loses nothing of the layers' events: the drain waits for the flusher
// (perfetto.WaitForRoom) instead of dropping them. Every buffer of
// vkstress's four threads and its memory is in the summary.
func TestTraceSummaryTinyBuffersLoseNothing(t *testing.T) {
	const threads, n = 4, 2000
	trace, _ := tracedRun(t, "testdata/vkstress/vkstress.c", []string{"VK_VKGEN_TRACE_BUFFER_KB=1"}, "--threads", strconv.Itoa(threads), "--iterations", strconv.Itoa(n))
	var s summaryCounts
	summarize(t, trace, &s)
	if s.Total != 2*threads*n || s.Dropped != 0 || s.Late != 0 {
		t.Errorf("%d objects, %d dropped, %d late events; want %d buffers and their memory, none dropped", s.Total, s.Dropped, s.Late, threads*n)
	}
}

// gatedOutput writes a session's packets to a file, each batch once gate
// lets it.
type gatedOutput struct {
	f    *os.File
	gate chan struct{}
}

func (o *gatedOutput) Write(_ uint32, b []byte) error {
	<-o.gate
	_, err := o.f.Write(b)
	return err
}
func (o *gatedOutput) Close() error { return o.f.Close() }

// Events an emitter that does not wait could not buffer (a stalled output,
// a 4 KiB buffer) are dropped and counted in the trace, and the summary
// reports exactly how many.
func TestTraceSummaryDroppedEvents(t *testing.T) {
	path := filepath.Join(t.TempDir(), "drops.pftrace")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	out := &gatedOutput{f: f, gate: make(chan struct{})}
	sess, err := perfetto.StartSession("drops", out, perfetto.Options{Sequences: 1, BufferBytes: 4096, FlushInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	cat, ev := perfetto.NewCategory("VulkanDeviceMemoryReport"), perfetto.NewEventName("test")
	for i := range 1000 { // about 40 KB
		perfetto.Instant(cat, ev, perfetto.Uint(perfetto.NewAnnotationName("i"), uint64(i)))
	}
	close(out.gate)
	if err := sess.Stop(); err != nil {
		t.Fatal(err)
	}
	want := int64(sess.Dropped())
	if want == 0 {
		t.Fatal("nothing dropped: the test's output did not stall the session")
	}
	var s summaryCounts
	summarize(t, path, &s)
	if s.Dropped != want {
		t.Errorf("summary: %d dropped events; the session dropped %d", s.Dropped, want)
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

// TestTraceSummaryBlocks: the demo through the loader and lavapipe with
// VK_LAYER_VKGEN_DeviceMemoryReport; `vkgen trace summary --blocks-trace`
// lays out its blocks in a trace trace_processor reads cleanly, each range
// at the offset the summary's blocks give it.
func TestTraceSummaryBlocks(t *testing.T) {
	trace, _ := tracedRun(t, "demo/demo.c", nil)
	out := filepath.Join(t.TempDir(), "blocks.pftrace")
	var sum struct {
		Blocks []struct {
			Ranges []struct {
				Offset uint64 `json:"offset"`
				Size   uint64 `json:"size"`
				Name   string `json:"name"`
			} `json:"ranges"`
		} `json:"blocks"`
	}
	summarize(t, trace, &sum, "--blocks", "0", "--blocks-trace", out)
	t.Cleanup(func() { summarize(t, trace, &sum, "--blocks", "20", "--blocks-trace", "") }) // cobra keeps flag values
	perfettotools.CheckStats(t, out)
	var want []string
	for _, b := range sum.Blocks {
		for _, r := range b.Ranges {
			want = append(want, fmt.Sprintf("%s %d %d", r.Name, r.Offset, r.Size))
		}
	}
	res := perfettotools.Query(t, out, `SELECT name, ts - (SELECT start_ts FROM trace_bounds), dur FROM slice WHERE name NOT GLOB 'hole*'`)
	var got []string
	for _, r := range res.Rows {
		got = append(got, strings.Join(r, " "))
	}
	slices.Sort(got)
	slices.Sort(want)
	if len(want) < 8 || !slices.Equal(got, want) {
		t.Errorf("blocks trace:\n%s\nsummary:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
