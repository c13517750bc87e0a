package tracecheck

import (
	"encoding/xml"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/layer/memreport/internal/memruns"
	"github.com/vkgen/vkgen/layer/memreport/tracesummary"
)

const ciRules = `# a CI gate
peak name "mesh.vertices" <= 64KiB
peak total app <= baseline+5%
final total app == 0
leaks == 0
failed_allocations == 0
peak name "nothing.*" <= 0
objects type BUFFER <= baseline
peak cluster geometry_mesh <= 2MiB
peak name "*.memory" <= baseline+0%
`

// TestCheckRecordedRuns records memruns through the real loader as a
// baseline and again with a larger buffer, a leak and a refused
// allocation, and checks each rule's status on both: the baseline passes
// every rule but the one it cannot evaluate (a pattern matching no name:
// an error, not a pass), the new run fails exactly the rules its changes
// break.
func TestCheckRecordedRuns(t *testing.T) {
	dir := t.TempDir()
	base := memruns.Record(t, dir, nil)
	next := memruns.Record(t, dir, nil, "--vertices", "1048576", "--leak", "--fail-alloc")
	if base.Sizes["mesh.vertices"] != 65536 {
		t.Fatalf("lavapipe sized mesh.vertices %d", base.Sizes["mesh.vertices"])
	}
	rules, err := Parse(strings.NewReader(ciRules), "ci.rules")
	if err != nil {
		t.Fatal(err)
	}
	var ins []tracesummary.Input
	for _, tr := range []string{base.Trace, next.Trace} {
		ins = append(ins, tracesummary.Input{Name: tr, Open: func() (io.ReadCloser, error) { return os.Open(tr) }})
	}
	sums := tracesummary.ReadMany(ins, tracesummary.Options{Top: 1}, 0)
	for _, s := range sums {
		if s.Err != nil {
			t.Fatal(s.Err)
		}
	}
	results := []Result{
		Check(rules, base.Trace, sums[0].Summary, nil, sums[0].Summary),
		Check(rules, next.Trace, sums[1].Summary, nil, sums[0].Summary),
	}
	statuses := func(r Result) string {
		var s []string
		for _, o := range r.Outcomes {
			s = append(s, o.Status[:1]+o.Subject)
		}
		return strings.Join(s, " ")
	}
	// One letter per outcome in rule order; a pattern gives one per name.
	if got, want := statuses(results[0]), "pmesh.vertices p p p p e p p pmesh.vertices.memory pframe.uniforms.memory"; got != want {
		t.Errorf("baseline: %s, want %s\n%s", got, want, Text(results[:1]))
	}
	if got, want := statuses(results[1]), "fmesh.vertices f p f f e f p fmesh.vertices.memory fleak.kept.memory pframe.uniforms.memory"; got != want {
		t.Errorf("new run: %s, want %s\n%s", got, want, Text(results[1:]))
	}
	for _, o := range results[1].Outcomes {
		if o.Subject == "leak.kept.memory" && !strings.HasSuffix(o.Message, "(not in the baseline)") {
			t.Errorf("a name the baseline lacks: %q", o.Message)
		}
	}
	if c := Count(results); c != (Counts{Passed: 12, Failed: 7, Errors: 2}) {
		t.Errorf("counts %+v", c)
	}
	text := Text(results)
	for _, w := range []string{"FAIL: 2 traces, 12 passed, 7 failed, 2 errors", "ci.rules:7: peak name \"nothing.*\" <= 0: no object name in the trace matches",
		"ci.rules:2: peak name \"mesh.vertices\" <= 64KiB [mesh.vertices]: 1048576 B; limit <= 65536 B"} {
		if !strings.Contains(text, w) {
			t.Errorf("text lacks %q:\n%s", w, text)
		}
	}
	var doc junitSuites
	if err := xml.Unmarshal(JUnit(results), &doc); err != nil || doc.Tests != 21 || doc.Failures != 7 || doc.Errors != 2 || len(doc.Suites) != 2 ||
		doc.Suites[1].Cases[0].Failure == nil || doc.Suites[0].Cases[5].Error == nil {
		t.Errorf("junit: %v %+v", err, doc)
	}
}

// A trace with no memory event (the layer was not enabled) fails every
// rule as an error, and so does a trace that could not be read; a cut
// trace's rules are evaluated beside an error for the cut.
func TestCheckNothingToCheck(t *testing.T) {
	rules, err := Parse(strings.NewReader("leaks == 0\npeak total app <= 1GiB\n"), "r")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []Result{
		Check(rules, "empty", &tracesummary.Summary{}, nil, nil),
		Check(rules, "bad", nil, errors.New("bad: not a trace"), nil),
	} {
		if c := Count([]Result{r}); c.Errors != 2 || c.Passed+c.Failed != 0 {
			t.Errorf("%s: %+v %s", r.Trace, c, Text([]Result{r}))
		}
	}
	cut := Check(rules, "cut", &tracesummary.Summary{Events: 1}, errors.New("cut: ends inside a packet"), nil)
	if c := Count([]Result{cut}); c != (Counts{Passed: 2, Errors: 1}) || !cut.Failed() {
		t.Errorf("cut: %+v", c)
	}
	growth, _ := Parse(strings.NewReader("growth_events total app == 0"), "r")
	if r := Check(growth, "x", &tracesummary.Summary{Events: 1}, nil, nil); r.Outcomes[0].Status != Error || !strings.Contains(r.Outcomes[0].Message, "no frame end") {
		t.Errorf("growth without a frame end: %+v", r)
	}
	rel, _ := Parse(strings.NewReader("peak total app <= baseline"), "r")
	if r := Check(rel, "x", &tracesummary.Summary{Events: 1}, nil, nil); r.Outcomes[0].Status != Error {
		t.Errorf("relative without a baseline: %+v", r)
	}
}
