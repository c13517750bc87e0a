package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/internal/htmlcheck"
)

// hostileName is a name an application could give an object: markup and
// script that must stay text on the page.
const hostileName = `</script><img src=x onerror="document.title='pwned'"><script>document.title='pwned'</script>`

// TestTraceHTMLInChromium records the demo through the real loader and
// lavapipe, its leaked buffer named hostileName, writes `vkgen trace
// summary --html`, and opens the page in headless Chromium: its script
// runs without an error and draws the heap's chart (series with points),
// and the name is text in the DOM, not an element.
func TestTraceHTMLInChromium(t *testing.T) {
	htmlcheck.Chromium(t)
	trace, _ := tracedRun(t, "demo/demo.c", nil, "--fail-alloc", "--reuse", "--leak-name", hostileName)
	page := filepath.Join(t.TempDir(), "memory.html")
	if _, stderr, code := vkgen(t, summaryArgs(trace, "--html", page)...); code != 0 {
		t.Fatalf("trace summary --html: exit %d\n%s", code, stderr)
	}
	r := htmlcheck.Check(t, page)
	t.Logf("self-check: %d charts, %d series, %d points, errors %q", r.Charts, r.Series, r.Points, r.Errors)
	if !r.Done || len(r.Errors) > 0 || r.Charts < 1 || r.Series < 2 || r.Points < 4 {
		t.Errorf("the page's self-check: done %v, %d charts, %d series, %d points, errors %q; want done, no errors, a chart of at least 2 series", r.Done, r.Charts, r.Series, r.Points, r.Errors)
	}
	if strings.Contains(r.DOM, "<img") || strings.Contains(r.DOM, "pwned</title>") || !strings.Contains(r.DOM, "&lt;img src=x onerror=") {
		t.Errorf("the hostile name is not plain text in the DOM:\n%s", r.DOM)
	}
	data, _ := os.ReadFile(page)
	if strings.Contains(string(data), "http://") && !strings.Contains(string(data), `xmlns="http://www.w3.org/2000/svg"`) {
		t.Errorf("the page refers to the network")
	}
}
