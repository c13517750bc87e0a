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
	if raceDetector {
		t.Skip("resident memory under the race detector includes its shadow memory; scripts/test.sh runs audit without it")
	}
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
	path, size := writeInput(t, "switches.c", src.String())
	src.Reset()
	for _, c := range []struct {
		format string
		write  func(io.Writer, *objtypes.Tables, []string, Options) (*Report, error)
	}{{"text", WriteText}, {"json", WriteJSON}} {
		rep, grew := auditPeak(t, tb, path, c.write)
		if rep.Findings < 100000 {
			t.Fatalf("%s: %d findings, want every table's", c.format, rep.Findings)
		}
		if grew > 20*size {
			t.Errorf("%s: heap grew by %d bytes (%.1f times the %d-byte input), want at most 20 times", c.format, grew, float64(grew)/float64(size), size)
		}
	}
}

// TestAuditMemoryWorstCase: inputs with a token in every byte or two,
// the most the parser keeps per input byte, also stay within 20 times
// the input. With tokens of 24 bytes and a parent link per token they
// grew the peak by 75 to 87 times; now by 9 to 13.
func TestAuditMemoryWorstCase(t *testing.T) {
	tb := tables(t, "1.4.359")
	const n = 3 << 20
	for name, src := range map[string]string{
		"punctuation": strings.Repeat("{(", n/2),
		"mixed":       strings.Repeat("+-*/%^~!<>?;.,:=", n/16),
		"nested":      strings.Repeat("{[(", n/6) + strings.Repeat(")]}", n/6),
		"commas":      "{" + strings.Repeat("a,", n/2) + "}",
		"pairs":       strings.Repeat("(a,b)", n/5),
	} {
		path, size := writeInput(t, name+".c", src)
		_, grew := auditPeak(t, tb, path, WriteText)
		t.Logf("%s: peak grew by %.1f times the input", name, float64(grew)/float64(size))
		if grew > 20*size {
			t.Errorf("%s: heap grew by %d bytes (%.1f times the %d-byte input), want at most 20 times", name, grew, float64(grew)/float64(size), size)
		}
	}
}

// writeInput writes src to a file of the test's and returns its path and size.
func writeInput(t *testing.T, name, src string) (string, uint64) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, uint64(len(src))
}

// auditPeak audits one file and returns by how much the peak resident set
// grew meanwhile, with a low GC target so that it follows what is live.
func auditPeak(t *testing.T, tb *objtypes.Tables, path string, write func(io.Writer, *objtypes.Tables, []string, Options) (*Report, error)) (*Report, uint64) {
	t.Helper()
	defer debug.SetGCPercent(debug.SetGCPercent(5))
	before := peakRSS(t, true)
	rep, err := write(io.Discard, tb, []string{path}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return rep, peakRSS(t, false) - before
}
