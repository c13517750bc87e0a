// Package memruns records layer/memreport/testdata/memruns.c through the
// real loader on lavapipe with VK_LAYER_VKGEN_DeviceMemoryReport, for the
// tests that compare runs (tracediff, tracecheck, the SQL module).
package memruns

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/internal/perfettotools"
	"github.com/vkgen/vkgen/internal/vktest"
)

// Run is one recorded run.
type Run struct {
	Trace string
	// Sizes are the required sizes of the buffers it printed, by name ("-"
	// the unnamed one).
	Sizes map[string]int64
}

// Record runs memruns with args (and env added) into a new trace in dir,
// checks the trace with trace_processor's stats, and returns it. It skips
// with -short.
func Record(t *testing.T, dir string, env []string, args ...string) Run {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the layer library; skipped with -short")
	}
	vktest.Layers(t)
	prev, _ := filepath.Glob(filepath.Join(dir, "memruns-*.pftrace"))
	trace := filepath.Join(dir, "memruns-"+strconv.Itoa(len(prev))+".pftrace")
	cmd := exec.Command(vktest.Program(t, "layer/memreport/testdata/memruns.c"), args...)
	cmd.Env = append(append(vktest.Env(t, "VK_LAYER_VKGEN_DeviceMemoryReport"), "VK_VKGEN_TRACE_FILE="+trace), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("memruns %v: %v\n%s%s", args, err, out, stderr.String())
	}
	perfettotools.CheckStats(t, trace)
	r := Run{Trace: trace, Sizes: map[string]int64{}}
	for _, line := range strings.Split(string(out), "\n") {
		var name string
		var size int64
		if n, _ := fmt.Sscanf(line, "buffer %s size=%d", &name, &size); n == 2 {
			r.Sizes[name] = size
		}
	}
	return r
}
