package tracecheck

import (
	"encoding/xml"
	"fmt"
	"strings"
)

// Counts are how many outcomes passed, failed and were errors.
type Counts struct{ Passed, Failed, Errors int }

// Count counts the outcomes of results.
func Count(results []Result) Counts {
	var c Counts
	for _, r := range results {
		for _, o := range r.Outcomes {
			switch o.Status {
			case Pass:
				c.Passed++
			case Fail:
				c.Failed++
			default:
				c.Errors++
			}
		}
	}
	return c
}

// Text is the readable report: per trace, the failures and errors first,
// then the passes, and a roll-up line.
func Text(results []Result) string {
	var b strings.Builder
	for _, r := range results {
		c := Count([]Result{r})
		fmt.Fprintf(&b, "%s: %d passed, %d failed, %d errors\n", r.Trace, c.Passed, c.Failed, c.Errors)
		for _, want := range []string{Error, Fail, Pass} {
			for _, o := range r.Outcomes {
				if o.Status == want {
					fmt.Fprintf(&b, "  %-5s %s\n", strings.ToUpper(o.Status), o.line())
				}
			}
		}
	}
	c := Count(results)
	verdict := "PASS"
	if c.Failed+c.Errors > 0 {
		verdict = "FAIL"
	}
	fmt.Fprintf(&b, "%s: %d traces, %d passed, %d failed, %d errors\n", verdict, len(results), c.Passed, c.Failed, c.Errors)
	return b.String()
}

// line is the outcome as one line: where the rule is, what it says, what
// the trace had.
func (o *Outcome) line() string {
	var b strings.Builder
	if o.Rule.File != "" {
		fmt.Fprintf(&b, "%s:%d: ", o.Rule.File, o.Rule.Line)
	}
	b.WriteString(o.Rule.Text)
	if o.Subject != "" {
		fmt.Fprintf(&b, " [%s]", o.Subject)
	}
	fmt.Fprintf(&b, ": %s", o.Message)
	return b.String()
}

// JUnit XML, as CI systems (GitLab, Jenkins, GitHub actions' reporters)
// read it: a test suite per trace, a test case per outcome.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// JUnit renders results as a JUnit XML document.
func JUnit(results []Result) []byte {
	c := Count(results)
	doc := junitSuites{Name: "vkgen trace check", Tests: c.Passed + c.Failed + c.Errors, Failures: c.Failed, Errors: c.Errors}
	for _, r := range results {
		rc := Count([]Result{r})
		s := junitSuite{Name: r.Trace, Tests: len(r.Outcomes), Failures: rc.Failed, Errors: rc.Errors}
		for _, o := range r.Outcomes {
			name := o.Rule.Text
			if o.Rule.File != "" {
				name = fmt.Sprintf("%s:%d: %s", o.Rule.File, o.Rule.Line, o.Rule.Text)
			}
			if o.Subject != "" {
				name += " [" + o.Subject + "]"
			}
			jc := junitCase{Name: name, ClassName: "vkgen.memory." + o.Rule.Metric}
			switch o.Status {
			case Fail:
				jc.Failure = &junitMessage{Message: o.Message, Text: o.line()}
			case Error:
				jc.Error = &junitMessage{Message: o.Message, Text: o.line()}
			default:
				jc.SystemOut = o.Message
			}
			s.Cases = append(s.Cases, jc)
		}
		doc.Suites = append(doc.Suites, s)
	}
	out, _ := xml.MarshalIndent(doc, "", "  ") // plain structs of strings and ints: cannot fail
	return append([]byte(xml.Header), append(out, '\n')...)
}
