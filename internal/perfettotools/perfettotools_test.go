package perfettotools

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/vkgen/vkgen/internal/testenv"
)

func TestQueryReferenceTrace(t *testing.T) {
	trace := testenv.Shared(t, "perfetto/reference/sdk.trace")
	res := Query(t, trace, "SELECT count(*) AS n, 'a,b' AS s, NULL AS z FROM slice;")
	if strings.Join(res.Columns, "|") != "n|s|z" || len(res.Rows) != 1 {
		t.Fatalf("result %v", res)
	}
	if got := res.Rows[0]; got[0] == "0" || got[1] != "a,b" || got[2] != "[NULL]" {
		t.Errorf("row %q: want a non-zero count, a,b, [NULL]", got)
	}
	if n := res.Column("n"); len(n) != 1 || n[0] != res.Rows[0][0] {
		t.Errorf("Column(n) = %q", n)
	}
	CheckStats(t, trace)
}

func TestQueryFailureNamesTrace(t *testing.T) {
	trace := testenv.Shared(t, "perfetto/reference/sdk.trace")
	_, err := QueryErr(BinDir(t), trace, "SELECT no_such_column FROM slice;")
	if err == nil || !strings.Contains(err.Error(), trace) {
		t.Fatalf("error %v: want one naming %s", err, trace)
	}
}

// TestQueries: one process answers each query with its own result, its
// last statement's, whether it has no rows, several statements or a value
// holding a blank line, after a preamble whose tables they read; a failing
// query is named.
func TestQueries(t *testing.T) {
	trace := testenv.Shared(t, "perfetto/reference/sdk.trace")
	b := NewBatch(trace, "CREATE PERFETTO TABLE x AS SELECT 7 AS v;")
	b.CheckStats(t)
	empty := b.Add("SELECT name FROM slice LIMIT 0")
	blank := b.Add("SELECT 'a' || char(10, 10) || 'b' AS s, v FROM x;")
	last := b.Add("SELECT 1 AS one; CREATE PERFETTO TABLE y AS SELECT 2 AS two; SELECT two FROM y")
	ran := false
	b.Then(func() { ran = true })
	b.Run(t)
	if !ran || empty.String() != "name" || len(blank.Rows) != 1 || blank.Rows[0][0] != "a\n\nb" || blank.Rows[0][1] != "7" || last.String() != "two\n2" {
		t.Errorf("results %q, %q, %q (checks ran: %v)", empty, blank, last, ran)
	}
	_, err := QueriesErr(BinDir(t), trace, "", []string{"SELECT 1", "SELECT no_such_column FROM slice", "SELECT 3"})
	if err == nil || !strings.Contains(err.Error(), "(query 2 of 3)\nSELECT no_such_column") {
		t.Errorf("error %v: want one naming query 2", err)
	}
}

// TestTracedRecords starts a private traced and records an empty session
// with the perfetto client: the service and the client work on the sockets.
func TestTracedRecords(t *testing.T) {
	s := StartTraced(t)
	out := filepath.Join(t.TempDir(), "empty.pftrace")
	cmd := s.Perfetto("--txt", "-c", "-", "-o", out)
	cmd.Stdin = strings.NewReader(`buffers { size_kb: 1024 } data_sources { config { name: "track_event" } } duration_ms: 1
`)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("perfetto: %v\n%s\ntraced:\n%s", err, b, s.Log())
	}
	if st, err := os.Stat(out); err != nil || st.Size() == 0 {
		t.Fatalf("no trace written: %v", err)
	}
	res := Query(t, out, "SELECT value FROM stats WHERE name = 'traced_tracing_sessions';")
	if len(res.Rows) != 1 || res.Rows[0][0] != "1" {
		t.Errorf("traced_tracing_sessions: %v", res)
	}
	CheckStats(t, out)
	s.Stop()
	s.Stop() // idempotent
}

// lossTrace is a trace whose sequence 5 reports a loss and whose closing
// TraceStats lists that sequence: trace_processor counts one
// traced_buf_sequence_packet_loss (data_loss).
func lossTrace() []byte {
	field := func(num protowire.Number, v any) []byte {
		switch v := v.(type) {
		case uint64:
			return protowire.AppendVarint(protowire.AppendTag(nil, num, protowire.VarintType), v)
		default:
			return protowire.AppendBytes(protowire.AppendTag(nil, num, protowire.BytesType), v.([]byte))
		}
	}
	packet := func(parts ...[]byte) []byte { return field(1, slices.Concat(parts...)) }
	ts := func(v uint64) []byte { return field(8, v) }
	return slices.Concat(
		packet(ts(1000), field(10, uint64(5)), field(87, uint64(1))), // first_packet_on_sequence
		packet(ts(2000), field(10, uint64(5)), field(42, uint64(1))), // previous_packet_dropped
		packet(ts(3000), field(35, field(18, field(1, uint64(5))))),  // trace_stats.writer_stats.sequence_id
	)
}

func TestProblemRowsAndAllowed(t *testing.T) {
	BinDir(t)
	path := filepath.Join(t.TempDir(), "loss.pftrace")
	if err := os.WriteFile(path, lossTrace(), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := ProblemRows(t, path).String(); got != "name,idx,severity,value\ntraced_buf_sequence_packet_loss,0,data_loss,1" {
		t.Errorf("problem rows:\n%s", got)
	}
	if p := StatsProblems(t, path); len(p) != 1 || p[0] != "traced_buf_sequence_packet_loss[0]=1 (data_loss)" {
		t.Errorf("StatsProblems = %q", p)
	}
	if p := StatsProblems(t, path, "traced_buf_sequence_packet_loss"); len(p) != 0 {
		t.Errorf("StatsProblems with the loss allowed = %q", p)
	}
	ref, err := os.ReadFile(testenv.Shared(t, "perfetto/reference/sdk.trace"))
	if err != nil {
		t.Fatal(err)
	}
	CheckStatsData(t, ref)
	if Missing() != "" {
		t.Errorf("Missing() = %q with the tools present", Missing())
	}
}
