package perfettotools

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// boundary names the one-column result put before each query's statements,
// so that the results of many queries printed by one trace_processor_shell
// process are told apart: statements without a result (INCLUDE, CREATE)
// print nothing, and a query without rows prints its header.
const boundary = "vkgen_query_boundary"

// Queries loads trace into one trace_processor_shell process, runs preamble
// (statements whose results nobody reads: INCLUDE PERFETTO MODULE, CREATE
// ...) once, then each of sqls, and returns the result of each: its last
// statement's. Loading the trace and making the preamble's tables once for
// all the queries is what makes many queries of one trace cheap (a
// module's tables on a 2 MB trace cost about 1.2 CPU s each time).
// extraArgs go to trace_processor_shell before the trace. It fails t when
// the tool fails.
func Queries(t testing.TB, trace, preamble string, sqls []string, extraArgs ...string) []Result {
	t.Helper()
	res, err := QueriesErr(BinDir(t), trace, preamble, sqls, extraArgs...)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// QueriesErr is Queries with the tools folder given and the error returned.
func QueriesErr(binDir, trace, preamble string, sqls []string, extraArgs ...string) ([]Result, error) {
	var script strings.Builder
	script.WriteString(preamble)
	for i, sql := range sqls {
		// ";" ends what came before, which may lack one (an empty
		// statement is no error)
		fmt.Fprintf(&script, "\n;\nSELECT %d AS %s;\n%s", i, boundary, sql)
	}
	qf, err := os.CreateTemp("", "vkgen-query-*.sql")
	if err != nil {
		return nil, err
	}
	defer os.Remove(qf.Name())
	if _, err := qf.WriteString(script.String() + "\n;\n"); err != nil {
		return nil, err
	}
	qf.Close()
	args := append(append([]string{"-q", qf.Name()}, extraArgs...), trace)
	cmd := exec.Command(filepath.Join(binDir, "trace_processor_shell"), args...)
	cmd.Env = MallocHugePages(os.Environ())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	res, at := []Result(nil), -1
	sets, err := resultSets(stdout.String())
	if err == nil {
		res, at, err = split(sets, len(sqls))
	}
	if runErr == nil && err == nil {
		return res, nil
	}
	if runErr != nil {
		err = runErr
	}
	sql := preamble
	if at >= 0 {
		sql = fmt.Sprintf("(query %d of %d)\n%s", at+1, len(sqls), sqls[at])
	}
	return nil, fmt.Errorf("trace_processor_shell %s: %v\nSQL:\n%s\nstderr:\n%s", trace, err, sql, lastLines(stderr.String(), 20))
}

// split deals the result sets out to the n queries by their boundaries, the
// last set after a boundary being that query's result. at is the last
// query whose boundary was printed (-1: none), the one that failed when the
// tool failed.
func split(sets []Result, n int) (res []Result, at int, err error) {
	res, at = make([]Result, n), -1
	for _, s := range sets {
		if len(s.Columns) == 1 && s.Columns[0] == boundary {
			if len(s.Rows) != 1 || s.Rows[0][0] != strconv.Itoa(at+1) {
				return nil, at, fmt.Errorf("boundary %v after query %d", s.Rows, at)
			}
			at++
		} else if at >= 0 {
			res[at] = s
		}
	}
	if at != n-1 {
		return nil, at, fmt.Errorf("%d of %d queries answered", at+1, n)
	}
	return res, at, nil
}

// resultSets reads trace_processor_shell's CSV output: a header and rows
// per result set, a blank line between sets (one inside a quoted value
// belongs to the value).
func resultSets(out string) ([]Result, error) {
	r := csv.NewReader(strings.NewReader(out))
	r.FieldsPerRecord = -1
	var sets []Result
	line, off := 0, 0 // lines and bytes read up to the end of the last record
	for rec, err := r.Read(); err != io.EOF; rec, err = r.Read() {
		if err != nil {
			return nil, err
		}
		if start, _ := r.FieldPos(0); len(sets) == 0 || start > line+1 {
			sets = append(sets, Result{Columns: rec})
		} else {
			sets[len(sets)-1].Rows = append(sets[len(sets)-1].Rows, rec)
		}
		end := int(r.InputOffset())
		line += strings.Count(out[off:end], "\n")
		off = end
	}
	return sets, nil
}

// Batch gathers the queries of a test on one trace and answers them with
// Queries in one process: Add returns where a query's result will be and
// Then what to check with it, both once Run has run.
type Batch struct {
	trace, preamble string
	args            []string
	sqls            []string
	results         []*Result
	checks          []func()
}

// NewBatch starts a batch of queries on trace, each after preamble, with
// extraArgs for trace_processor_shell.
func NewBatch(trace, preamble string, extraArgs ...string) *Batch {
	return &Batch{trace: trace, preamble: preamble, args: extraArgs}
}

// Add queues sql; its result is in the returned Result after Run.
func (b *Batch) Add(sql string) *Result {
	r := new(Result)
	b.sqls, b.results = append(b.sqls, sql), append(b.results, r)
	return r
}

// Then queues check, which reads results of Add, to run after them.
func (b *Batch) Then(check func()) { b.checks = append(b.checks, check) }

// CheckStats queues CheckStats of the batch's trace.
func (b *Batch) CheckStats(t testing.TB, allowed ...string) {
	rows := b.Add(problemsSQL)
	b.Then(func() { reportProblems(t, b.trace, problems(*rows, allowed)) })
}

// Run answers the queued queries and runs the checks in the order queued.
func (b *Batch) Run(t testing.TB) {
	t.Helper()
	for i, r := range Queries(t, b.trace, b.preamble, b.sqls, b.args...) {
		*b.results[i] = r
	}
	for _, c := range b.checks {
		c()
	}
}

// MallocHugePages returns env with glibc's malloc told to ask for
// transparent huge pages (GLIBC_TUNABLES glibc.malloc.hugetlb=1; the kernel
// grants them on madvise by default): trace_processor_shell allocates its
// tables in many small pieces, and on this project's 2-vCPU VMs a run on a
// small trace took 0.17 CPU s with 4 KiB pages, 0.10 with huge ones (tests
// run it about 200 times). Only for tools that are the tests' oracle, never
// for the programs under test or a benchmark's traced.
func MallocHugePages(env []string) []string {
	const tunable = "glibc.malloc.hugetlb=1"
	for i, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GLIBC_TUNABLES="); ok {
			out := slices.Clone(env)
			out[i] = "GLIBC_TUNABLES=" + v + ":" + tunable
			return out
		}
	}
	return append(env, "GLIBC_TUNABLES="+tunable)
}
