package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// traceCmd runs a trace subcommand with the flags that must not carry over
// from an earlier in-process run reset.
func traceRun(t *testing.T, sub string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	reset := map[string][]string{
		"diff":  {"--format", "text", "--html", "", "-o", "", "--force=false", "--all=false", "--top", "50"},
		"check": {"--baseline", "", "--junit", "", "-o", "", "--force=false"},
	}[sub]
	return vkgen(t, append(append([]string{"trace", sub, "--window", "33554432", "--max-groups", "100000", "--jobs", "0"}, reset...), args...)...)
}

// check exits 0 when every rule passes, 1 when one fails or cannot be
// evaluated, 2 on a bad rules file (naming its line and column); the
// JUnit file goes through the output rules (0600, never over an existing
// file without --force).
func TestTraceCheckCLI(t *testing.T) {
	dir := t.TempDir()
	trace, _ := smallTrace(t, dir)
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pass := write("pass.rules", "peak total app <= 80KiB\nfinal cluster unbound_memory == baseline\nleaks == 0\n")
	fail := write("fail.rules", "peak total app < 80KiB\ngrowth_events total app == 0\n")
	bad := write("bad.rules", "leaks == 0\npeak heap x <= 1\n")
	junit := filepath.Join(dir, "junit.xml")

	out, errOut, code := traceRun(t, "check", "--rules", pass, "--baseline", trace, "--junit", junit, trace, trace)
	if code != 0 || !strings.Contains(out, "PASS: 2 traces, 6 passed, 0 failed, 0 errors") {
		t.Errorf("pass: exit %d\n%s%s", code, out, errOut)
	}
	if fi, err := os.Stat(junit); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("junit: %v %v", fi, err)
	}
	out, errOut, code = traceRun(t, "check", "--rules", fail, "--junit", junit, trace)
	if code != 2 || !strings.Contains(errOut, "exists; refusing") {
		t.Errorf("existing junit: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = traceRun(t, "check", "--rules", fail, "--junit", junit, "--force", trace)
	if code != 1 || !strings.Contains(out, "FAIL  "+fail+":1: peak total app < 80KiB: 81920 B; limit < 81920 B") || !strings.Contains(out, "ERROR "+fail+":2:") {
		t.Errorf("fail: exit %d\n%s%s", code, out, errOut)
	}
	var doc struct {
		Failures int `xml:"failures,attr"`
		Errors   int `xml:"errors,attr"`
	}
	if data, err := os.ReadFile(junit); err != nil || xml.Unmarshal(data, &doc) != nil || doc.Failures != 1 || doc.Errors != 1 {
		t.Errorf("junit after --force: %+v %v", doc, err)
	}
	_, errOut, code = traceRun(t, "check", "--rules", bad, trace)
	if code != 2 || !strings.Contains(errOut, bad+":2:11: heap \"x\"") {
		t.Errorf("bad rules: exit %d %s", code, errOut)
	}
	_, errOut, code = traceRun(t, "check", "--rules", pass, trace)
	if code != 1 || !strings.Contains(errOut, "could not be evaluated") {
		t.Errorf("relative rule without --baseline: exit %d %s", code, errOut)
	}
	_, errOut, code = traceRun(t, "check", "--rules", pass, "-o", trace, "--force", trace)
	if code != 2 || !strings.Contains(errOut, "is an input") {
		t.Errorf("-o over the trace: exit %d %s", code, errOut)
	}
	_, errOut, code = traceRun(t, "check", "--rules", pass, "--baseline", trace, "-", "-")
	if code != 2 || !strings.Contains(errOut, "given twice") {
		t.Errorf("stdin twice: exit %d %s", code, errOut)
	}
	_, errOut, code = traceRun(t, "check", "--rules", fail, filepath.Join(dir, "missing"))
	if code != 2 || !strings.Contains(errOut, "missing") {
		t.Errorf("missing trace: exit %d %s", code, errOut)
	}
	_, errOut, code = traceRun(t, "check", "--rules", fail, pass)
	if code != 2 || !strings.Contains(errOut, "pass.rules") {
		t.Errorf("a rules file as the trace: exit %d %s", code, errOut)
	}
}

// diff of a trace with itself changes nothing; the JSON carries its
// schema; summary of several traces starts with the roll-up.
func TestTraceDiffAndSummariesCLI(t *testing.T) {
	dir := t.TempDir()
	trace, _ := smallTrace(t, dir)
	out, errOut, code := traceRun(t, "diff", "--format", "json", trace, trace, trace)
	var rep struct {
		Schema string `json:"schema"`
		Diffs  []struct {
			Rows      []any `json:"rows"`
			Unchanged int   `json:"unchanged"`
		} `json:"diffs"`
	}
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil || rep.Schema != "vkgen.trace.diff/1" || len(rep.Diffs) != 2 ||
		len(rep.Diffs[0].Rows) != 0 || rep.Diffs[0].Unchanged == 0 {
		t.Errorf("diff: exit %d %v\n%s%s", code, err, out, errOut)
	}
	html := filepath.Join(dir, "d.html")
	out, errOut, code = traceRun(t, "diff", "--html", html, trace, trace)
	if fi, err := os.Stat(html); code != 0 || err != nil || fi.Mode().Perm() != 0o600 || !strings.Contains(out, "No change in memory") {
		t.Errorf("diff --html: exit %d %v\n%s%s", code, err, out, errOut)
	}
	_, errOut, code = traceRun(t, "diff", trace)
	if code != 2 {
		t.Errorf("diff of one trace: exit %d %s", code, errOut)
	}
	out, errOut, code = summary(t, "--max-groups", "100000", "--jobs", "0", trace, trace)
	if code != 0 || !strings.HasPrefix(out, "TRACE") || strings.Count(out, "== "+trace+" ==") != 2 || !strings.Contains(out, " 81920 ") {
		t.Errorf("summary of two: exit %d\n%s%s", code, out, errOut)
	}
	_, errOut, code = summary(t, "--html", html, "--force", trace, trace)
	if code != 2 || !strings.Contains(errOut, "take one trace") {
		t.Errorf("summary --html of two: exit %d %s", code, errOut)
	}
}
