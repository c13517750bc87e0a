package audit

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/gen/objtypes"
)

// peakRSS returns the process's peak resident set (VmHWM) in bytes and,
// when reset, first makes the current one the peak (/proc/self/clear_refs).
func peakRSS(t *testing.T, reset bool) uint64 {
	t.Helper()
	if reset {
		debug.FreeOSMemory()
		if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
			t.Skipf("cannot reset the peak resident set: %v", err)
		}
	}
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if kb, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var n uint64
			fmt.Sscanf(strings.TrimSpace(kb), "%d kB", &n)
			return n << 10
		}
	}
	t.Skip("no VmHWM in /proc/self/status")
	return 0
}

// Issue 28: 4 MB of two-case switches took 542 MB in text and 1.87 GB in
// JSON (this test's input, audited the old way, grows the peak resident
// set by 1.8 GB): every finding was held (each switch misses most of the
// registry) and the JSON encoder built the whole output in memory. The peak resident set while
// auditing into either format grows by at most 20 times the input (with a
// low GC target, so that it follows what is live), and every finding is
// written.
func TestAuditMemoryFollowsInput(t *testing.T) {
	tb := tables(t, "1.4.359")
	const sw = "VkObjectType f%d(VkDebugReportObjectTypeEXT t) {\n    switch (t) {\n" +
		"    case VK_DEBUG_REPORT_OBJECT_TYPE_BUFFER_EXT: return VK_OBJECT_TYPE_BUFFER;\n" +
		"    case VK_DEBUG_REPORT_OBJECT_TYPE_IMAGE_EXT: return VK_OBJECT_TYPE_IMAGE;\n" +
		"    default: return VK_OBJECT_TYPE_UNKNOWN;\n    }\n}\n"
	var src strings.Builder
	for i := 0; src.Len() < 3<<20; i++ {
		fmt.Fprintf(&src, sw, i)
	}
	path := filepath.Join(t.TempDir(), "switches.c")
	if err := os.WriteFile(path, []byte(src.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	size := uint64(src.Len())
	src.Reset()
	// A low GC target keeps the heap in use close to what is live.
	defer debug.SetGCPercent(debug.SetGCPercent(5))
	for _, c := range []struct {
		format string
		write  func(io.Writer, *objtypes.Tables, []string, Options) (*Report, error)
	}{{"text", WriteText}, {"json", WriteJSON}} {
		before := peakRSS(t, true)
		rep, err := c.write(io.Discard, tb, []string{path}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Findings < 100000 {
			t.Fatalf("%s: %d findings, want every table's", c.format, rep.Findings)
		}
		if grew := peakRSS(t, false) - before; grew > 20*size {
			t.Errorf("%s: heap grew by %d bytes (%.1f times the %d-byte input), want at most 20 times", c.format, grew, float64(grew)/float64(size), size)
		}
	}
}
