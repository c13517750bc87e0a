package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/internal/htmlcheck"
	"github.com/vkgen/vkgen/internal/vktest"
)

// hostileName is a name an application could give an object: markup and
// script that must stay text on the page.
const hostileName = `</script><img src=x onerror="document.title='pwned'"><script>document.title='pwned'</script>`

// TestTraceHTMLInChromium records the demo through the real loader and
// lavapipe, its leaked buffer named hostileName, writes `vkgen trace
// summary --html`, and `vkgen trace diff --html` against a run without
// the leak, and opens the pages in headless Chromium: their script runs
// without an error and draws the heap charts (series with points: one for
// the summary, the base's and the new trace's for the diff), and the name
// is text in the DOM, not an element. Over the test driver's two heaps with
// a budget, the page has a chart per heap with its budget.
func TestTraceHTMLInChromium(t *testing.T) {
	htmlcheck.Chromium(t)
	trace, _ := tracedRun(t, "demo/demo.c", nil, "--fail-alloc", "--reuse", "--leak-name", hostileName)
	base, _ := tracedRun(t, "demo/demo.c", nil, "--reuse")
	dir := t.TempDir()
	page, diffPage := filepath.Join(dir, "memory.html"), filepath.Join(dir, "diff.html")
	if _, stderr, code := vkgen(t, summaryArgs(trace, "--html", page)...); code != 0 {
		t.Fatalf("trace summary --html: exit %d\n%s", code, stderr)
	}
	if _, stderr, code := traceRun(t, "diff", "--html", diffPage, base, trace); code != 0 {
		t.Fatalf("trace diff --html: exit %d\n%s", code, stderr)
	}
	checkPage(t, page, 1, true)
	checkPage(t, diffPage, 2, true)

	// Over the test driver's two heaps with VK_EXT_memory_budget: a chart
	// per heap, each with its budget.
	drv, _ := tracedRun(t, "demo/demo.c", vktest.DriverEnv(t, "budget,heaps", "VK_LAYER_VKGEN_DeviceMemoryReport"), "--reuse")
	drvPage := filepath.Join(dir, "heaps.html")
	if _, stderr, code := vkgen(t, summaryArgs(drv, "--html", drvPage)...); code != 0 {
		t.Fatalf("trace summary --html: exit %d\n%s", code, stderr)
	}
	r := checkPage(t, drvPage, 2, false)
	if n := strings.Count(r.DOM, "(last)</text>"); n != 2 {
		t.Errorf("%d charts with a budget, want 2", n)
	}
}

// checkPage opens page in Chromium and checks its self-check and DOM, and
// that hostileName is text in it when hostile.
func checkPage(t *testing.T, page string, charts int, hostile bool) htmlcheck.Result {
	t.Helper()
	r := htmlcheck.Check(t, page)
	t.Logf("%s: %d charts, %d series, %d points, %d read-outs, errors %q", filepath.Base(page), r.Charts, r.Series, r.Points, r.Readouts, r.Errors)
	if !r.Done || len(r.Errors) > 0 || r.Charts != charts || r.Readouts != charts || r.Series < 2*charts || r.Points < 4*charts {
		t.Errorf("%s: the page's self-check: done %v, %d charts, %d series, %d points, errors %q; want done, no errors, %d charts of at least 2 series", page, r.Done, r.Charts, r.Series, r.Points, r.Errors, charts)
	}
	if strings.Contains(r.DOM, "<img") || strings.Contains(r.DOM, "pwned</title>") || hostile && !strings.Contains(r.DOM, "&lt;img src=x onerror=") {
		t.Errorf("the hostile name is not plain text in the DOM:\n%s", r.DOM)
	}
	data, _ := os.ReadFile(page)
	if strings.Contains(strings.ReplaceAll(string(data), `"http://www.w3.org/2000/svg"`, ""), "http") {
		t.Errorf("%s refers to the network", page)
	}
	return r
}
