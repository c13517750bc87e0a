// Package htmlcheck opens the HTML memory reports in headless Chromium for
// the tests: it loads a page, lets its script run, and reads back the
// self-check the page's script writes into the element #vkgen-check (what
// it drew and the script errors it caught), and takes screenshots. Tests
// skip, saying so, when Debian's chromium is not installed
// (scripts/setup.sh installs it). It knows nothing of the report's content
// beyond that element.
package htmlcheck

import (
	"context"
	"encoding/json"
	"html"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Result is the page's self-check.
type Result struct {
	Done   bool `json:"done"` // the script ran to its end
	Charts int  `json:"charts"`
	Series int  `json:"series"` // series drawn with at least two points
	Points int  `json:"points"`
	// Readouts counts the charts whose read-out (the values of a column)
	// the script made.
	Readouts int      `json:"readouts"`
	Errors   []string `json:"errors"` // caught by window.onerror, and Chromium's "Uncaught" console lines
	DOM      string   `json:"-"`      // the DOM after the script ran
}

// limit bounds one Chromium run.
const limit = 2 * time.Minute

// Chromium is the browser's path; the test skips when there is none.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, p := range []string{"chromium", "chromium-browser"} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	t.Skip("chromium not installed: scripts/setup.sh installs Debian's chromium, which the HTML report's checks open the pages in")
	return ""
}

// run runs headless Chromium on the page with extra flags.
func run(t testing.TB, page string, flags ...string) (stdout, stderr string) {
	t.Helper()
	bin := Chromium(t)
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=" + t.TempDir(),
		"--enable-logging=stderr", "--v=0"}, flags...)
	cmd := exec.CommandContext(ctx, bin, append(args, "file://"+page)...)
	// no D-Bus or display of the caller's
	cmd.Env = append(os.Environ(), "DBUS_SESSION_BUS_ADDRESS=disabled:", "HOME="+t.TempDir())
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v on %s: %v\n%s", flags, page, err, tail(errOut.String()))
	}
	return out.String(), errOut.String()
}

var checkRE = regexp.MustCompile(`(?s)<pre id="vkgen-check">(.*?)</pre>`)

// Check loads page (an absolute path) and returns its self-check; the
// test fails when the page has none.
func Check(t testing.TB, page string) Result {
	t.Helper()
	dom, stderr := run(t, page, "--dump-dom", "--virtual-time-budget=2000")
	m := checkRE.FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("%s: no #vkgen-check in the DOM Chromium dumped:\n%s", page, tail(dom))
	}
	var r Result
	if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &r); err != nil {
		t.Fatalf("%s: #vkgen-check holds %q: %v", page, m[1], err)
	}
	r.DOM = dom
	for _, l := range strings.Split(stderr, "\n") {
		if strings.Contains(l, "Uncaught") {
			r.Errors = append(r.Errors, l)
		}
	}
	return r
}

// Screenshot writes a PNG of page rendered in a window of w x h pixels.
func Screenshot(t testing.TB, page, png string, w, h int) {
	t.Helper()
	run(t, page, "--screenshot="+png, "--window-size="+strconv.Itoa(w)+","+strconv.Itoa(h), "--hide-scrollbars")
	if st, err := os.Stat(png); err != nil || st.Size() == 0 {
		t.Fatalf("chromium wrote no screenshot %s: %v", png, err)
	}
}

func tail(s string) string {
	if len(s) > 3000 {
		return "..." + s[len(s)-3000:]
	}
	return s
}
