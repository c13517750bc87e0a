// Package perfettotools runs Perfetto's own tools in tests, as the oracle of
// every trace the project writes: trace_processor_shell (the engine behind
// ui.perfetto.dev) loads a trace and answers SQL, tracebox runs a private
// traced on sockets in a temporary folder, and protoc decodes and encodes
// with the official schema (Protoc). The tools come from the v58.2
// tarball in the shared test-data folder (perfetto/tools), unpacked once into the user cache
// folder; tests skip with a message when the shared test-data folder is absent, except that
// CheckStats and CheckStatsData, added to tests that are useful without
// the tools, only log then. It knows no layer and no trace content: the
// tests own their queries.
package perfettotools

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/vkgen/vkgen/internal/testenv"
)

// Tarball is the tools' archive under the shared folder.
const Tarball = "perfetto/tools/perfetto-v58.2-linux-amd64.tar.xz"

var unpacked struct {
	once               sync.Once
	dir, missing, fail string
}

// tools unpacks the shared tarball on first use (into $VKGEN_CACHE or the
// user cache folder, keyed by the tarball's checksum, under a file lock so
// test binaries running in parallel unpack it once). missing says why the
// tools are absent (no shared test-data folder or no tarball), fail why unpacking failed.
func tools() (dir, missing, fail string) {
	unpacked.once.Do(func() {
		shared, ok := testenv.SharedDir()
		tarball := filepath.Join(shared, Tarball)
		if _, err := os.Stat(tarball); !ok || err != nil {
			unpacked.missing = fmt.Sprintf("Perfetto tools %s missing (set VKGEN_SHARED)", tarball)
			return
		}
		unpacked.dir, unpacked.fail = unpack(tarball)
	})
	return unpacked.dir, unpacked.missing, unpacked.fail
}

// Missing says why the tools are absent (no shared test-data folder or no tarball), ""
// when they are there: for checks added to tests that are useful without
// them, which then log instead of skipping.
func Missing() string {
	_, missing, _ := tools()
	return missing
}

// BinDir returns the folder holding tracebox and trace_processor_shell. It
// skips t when the shared test-data folder or the tarball is absent and fails t when
// unpacking fails.
func BinDir(t testing.TB) string {
	t.Helper()
	dir, missing, fail := tools()
	if missing != "" {
		t.Skip(missing)
	}
	if fail != "" {
		t.Fatalf("perfetto tools: %s", fail)
	}
	return dir
}

// cacheDir is where the tools are unpacked and the schemas compiled:
// $VKGEN_CACHE, else the user cache folder's vkgen.
func cacheDir() string {
	if cache := os.Getenv("VKGEN_CACHE"); cache != "" {
		return cache
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	return filepath.Join(cache, "vkgen")
}

func unpack(tarball string) (string, string) {
	data, err := os.ReadFile(tarball)
	if err != nil {
		return "", err.Error()
	}
	sum := sha256.Sum256(data)
	cache := cacheDir()
	dest := filepath.Join(cache, "perfetto-"+hex.EncodeToString(sum[:8]))
	bin := filepath.Join(dest, "perfetto-v58.2-linux-amd64", "bin")
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", err.Error()
	}
	lock, err := os.OpenFile(dest+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", err.Error()
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", err.Error()
	}
	if _, err := os.Stat(filepath.Join(bin, "trace_processor_shell")); err == nil {
		return bin, ""
	}
	tmp, err := os.MkdirTemp(cache, "unpack-")
	if err != nil {
		return "", err.Error()
	}
	defer os.RemoveAll(tmp)
	if out, err := exec.Command("tar", "-xJf", tarball, "-C", tmp).CombinedOutput(); err != nil {
		return "", fmt.Sprintf("tar -xJf %s: %v\n%s", tarball, err, out)
	}
	if err := os.Rename(tmp, dest); err != nil {
		return "", err.Error()
	}
	return bin, ""
}

// Result is the answer to one SQL statement: column names and rows, every
// value as trace_processor prints it in CSV ("[NULL]" for SQL NULL).
type Result struct {
	Columns []string
	Rows    [][]string
}

// Column returns the values of the named column, in row order.
func (r Result) Column(name string) []string {
	for i, c := range r.Columns {
		if c == name {
			out := make([]string, len(r.Rows))
			for j, row := range r.Rows {
				out[j] = row[i]
			}
			return out
		}
	}
	return nil
}

// String prints the result as CSV lines, for failure messages.
func (r Result) String() string {
	var b strings.Builder
	b.WriteString(strings.Join(r.Columns, ","))
	for _, row := range r.Rows {
		b.WriteString("\n" + strings.Join(row, ","))
	}
	return b.String()
}

// Query loads trace into trace_processor_shell and runs sql, which may hold
// several statements (INCLUDE PERFETTO MODULE, CREATE ... first); the result
// is the last statement's. extraArgs go to trace_processor_shell before the
// trace (for example "--add-sql-package", dir). It fails t when the tool
// fails. Several queries of one trace are cheaper with Queries or a Batch.
func Query(t testing.TB, trace, sql string, extraArgs ...string) Result {
	t.Helper()
	return Queries(t, trace, "", []string{sql}, extraArgs...)[0]
}

// QueryErr is Query with the tools folder given and the error returned, for
// benchmarks and programs.
func QueryErr(binDir, trace, sql string, extraArgs ...string) (Result, error) {
	res, err := QueriesErr(binDir, trace, "", []string{sql}, extraArgs...)
	if err != nil {
		return Result{}, err
	}
	return res[0], nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// problemsSQL selects the non-zero rows of a trace's stats table of
// severity error or data_loss: columns name, idx, severity, value.
const problemsSQL = `SELECT name, idx, severity, value FROM stats
WHERE severity IN ('error', 'data_loss') AND value != 0 ORDER BY name, idx;`

// ProblemRows returns the non-zero rows of the trace's stats table of
// severity error or data_loss: columns name, idx, severity, value.
func ProblemRows(t testing.TB, trace string) Result {
	t.Helper()
	return Query(t, trace, problemsSQL)
}

// StatsProblems returns ProblemRows as "name[idx]=value (severity)"
// strings, leaving out the stats named in allowed (losses a test provokes
// on purpose).
func StatsProblems(t testing.TB, trace string, allowed ...string) []string {
	t.Helper()
	return problems(ProblemRows(t, trace), allowed)
}

func problems(rows Result, allowed []string) []string {
	var out []string
	for _, row := range rows.Rows {
		if !slices.Contains(allowed, row[0]) {
			out = append(out, fmt.Sprintf("%s[%s]=%s (%s)", row[0], row[1], row[3], row[2]))
		}
	}
	return out
}

// CheckStats fails t when the trace's stats table has a non-zero error or
// data_loss row other than those named in allowed. Without the tools (no
// the shared test-data folder) it only logs: it is added to tests that are useful without it.
func CheckStats(t testing.TB, trace string, allowed ...string) {
	t.Helper()
	if missing := Missing(); missing != "" {
		t.Logf("trace_processor check of %s skipped: %s", trace, missing)
		return
	}
	reportProblems(t, trace, StatsProblems(t, trace, allowed...))
}

func reportProblems(t testing.TB, trace string, p []string) {
	t.Helper()
	if len(p) > 0 {
		t.Errorf("trace_processor stats of %s report problems:\n%s", trace, strings.Join(p, "\n"))
	}
}

// CheckStatsData is CheckStats for a trace held in memory (a session
// writing to a buffer): it writes data to a file in t's temporary folder.
func CheckStatsData(t testing.TB, data []byte, allowed ...string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "trace.pftrace")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	CheckStats(t, path, allowed...)
}
