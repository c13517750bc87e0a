package perfettotools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
