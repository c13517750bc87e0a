package realprograms_test

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/vkgen/vkgen/internal/htmlcheck"
	"github.com/vkgen/vkgen/internal/perfettotools"
)

// TestHTMLReport runs vkcube, and glmark2 and glxgears on Zink, through the
// vkgen layers (stack "alone"), writes `vkgen trace summary --html` of each
// program's trace and opens it in headless Chromium: the page's script
// runs without an error and draws a chart per heap with series of points.
func TestHTMLReport(t *testing.T) {
	realOnly(t, "runs third-party programs")
	htmlcheck.Chromium(t)
	r := newRig(t)
	for _, p := range programs {
		if p.name != "vkcube" && p.name != "glmark2-zink" && p.name != "glxgears-zink" {
			continue
		}
		t.Run(p.name, func(t *testing.T) {
			got := r.exec(t, p, stacks[0], true)
			trace, ok := got.traces[got.pid]
			if !ok {
				t.Fatalf("no trace of the program (pid %d): %s\n%s", got.pid, exitOf(got.err), tail(got.out))
			}
			perfettotools.CheckStats(t, trace)
			page := filepath.Join(t.TempDir(), "memory.html")
			if out, err := exec.Command(r.vkgen, "trace", "summary", "--html", page, "-o", filepath.Join(t.TempDir(), "summary.txt"), trace).CombinedOutput(); err != nil {
				t.Fatalf("vkgen trace summary --html: %v\n%s", err, out)
			}
			c := htmlcheck.Check(t, page)
			t.Logf("%s: %d charts, %d series, %d points", p.name, c.Charts, c.Series, c.Points)
			if !c.Done || len(c.Errors) > 0 || c.Charts < 1 || c.Readouts != c.Charts || c.Series < 1 || c.Points < 2 {
				t.Errorf("the page's self-check: done %v, %d charts, %d series, %d points, errors %q", c.Done, c.Charts, c.Series, c.Points, c.Errors)
			}
		})
	}
}
