package perfetto_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/internal/perfettotools"
	"github.com/vkgen/vkgen/perfetto"
	"github.com/vkgen/vkgen/perfetto/decode"
)

// decodeBoth decodes a trace file with the Go decoder and, where ../shared and
// protoc exist, with protoc against the upstream schema, and checks the
// invariants every trace of this package must hold in both views.
func decodeBoth(t *testing.T, path string) *decode.Trace {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := decode.Decode(data)
	if err != nil {
		t.Fatalf("go decoder: %v", err)
	}
	started := map[uint32]bool{}
	lossReports := 0
	for _, p := range tr.Packets {
		if p.PreviousDropped {
			lossReports++
		}
		// A timestamp is absolute with its explicit BOOTTIME clock id, or a
		// delta on the sequence's incremental clock (its default), which is
		// incremental state.
		if p.HasTimestamp && (p.HasClockID && p.ClockID != perfetto.ClockBoottime ||
			!p.HasClockID && p.SeqFlags&decode.SeqNeedsIncrementalState == 0) {
			t.Errorf("packet %d: timestamp neither explicit BOOTTIME nor a delta marked SEQ_NEEDS_INCREMENTAL_STATE (clock %v/%d, flags %d)",
				p.Index, p.HasClockID, p.ClockID, p.SeqFlags)
		}
		if !p.HasTimestamp && !p.ClockSnapshot {
			t.Errorf("packet %d has no timestamp", p.Index)
		}
		if !started[p.SeqID] && p.SeqID != 0 { // 0: the closing TraceStats, on no sequence
			started[p.SeqID] = true
			if p.SeqFlags&decode.SeqIncrementalStateCleared == 0 || !p.FirstOnSequence {
				t.Errorf("packet %d: first on sequence %d without INCREMENTAL_STATE_CLEARED/first_packet_on_sequence", p.Index, p.SeqID)
			}
		}
	}
	checkStateValid(t, tr)
	checkProcessorStats(t, path, lossReports)
	text := protocDecode(t, data)
	if text == "" {
		return tr
	}
	blocks := splitPackets(text)
	if len(blocks) != len(tr.Packets) {
		t.Fatalf("protoc sees %d packets, go decoder %d", len(blocks), len(tr.Packets))
	}
	for i, b := range blocks {
		p := tr.Packets[i]
		if strings.Contains(b, "\n  timestamp: ") != p.HasTimestamp || strings.Contains(b, "\n  timestamp_clock_id: 6\n") != p.HasClockID {
			t.Errorf("packet %d: protoc timestamp/clock view differs from go decoder:\n%s", i, b)
		}
		if (p.Event != nil) != strings.Contains(b, "\n  track_event {") ||
			(p.ObjectName != nil) != strings.Contains(b, "vk_debug_utils_object_name {") ||
			(p.Track != nil) != strings.Contains(b, "\n  track_descriptor {") {
			t.Errorf("packet %d: protoc payload differs from go decoder:\n%s", i, b)
		}
		if strings.Contains(b, "_iid: ") && !strings.Contains(b, "sequence_flags: 2") {
			t.Errorf("packet %d uses interning without SEQ_NEEDS_INCREMENTAL_STATE:\n%s", i, b)
		}
	}
	return tr
}

// protocDecode returns protoc's text of a trace, or "" (logged) when protoc
// or the shared schema is unavailable.
func protocDecode(t *testing.T, data []byte) string {
	t.Helper()
	out, missing := perfettotools.Protoc(t, "decode", "Trace", "perfetto_trace.proto", data)
	if missing != "" {
		t.Log(missing)
	}
	return string(out)
}

// splitPackets cuts protoc's text into its top-level packet blocks.
func splitPackets(text string) []string {
	var out []string
	for _, part := range strings.Split(text, "packet {\n")[1:] {
		out = append(out, "packet {\n"+part)
	}
	return out
}

// startFile starts a file session in t's temp dir and returns it and the path.
func startFile(t *testing.T, name string, opts perfetto.Options) (*perfetto.Session, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	s, err := perfetto.StartFileSession(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Stop() })
	return s, path
}
func osPid() int { return os.Getpid() }

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func runtimeProcs() int { return runtime.GOMAXPROCS(0) }

// checkStateValid applies trace_processor's rule: previous_packet_dropped on
// a packet without SEQ_INCREMENTAL_STATE_CLEARED invalidates the sequence's
// incremental state, and packets needing it are skipped until the next
// cleared packet. No packet of ours may be skipped that way.
func checkStateValid(t *testing.T, tr *decode.Trace) {
	t.Helper()
	invalid := map[uint32]bool{}
	for _, p := range tr.Packets {
		switch {
		case p.SeqFlags&decode.SeqIncrementalStateCleared != 0:
			invalid[p.SeqID] = false
		case p.PreviousDropped:
			invalid[p.SeqID] = true
		}
		if p.SeqFlags&decode.SeqNeedsIncrementalState != 0 && invalid[p.SeqID] {
			t.Errorf("packet %d needs incremental state that trace_processor considers lost", p.Index)
		}
	}
}

// checkProcessorStats loads the trace in trace_processor: its stats table
// shows no error and no data loss other than the trace's own loss reports,
// which it must count exactly (traced_buf_sequence_packet_loss, from the
// closing TraceStats). Without ../shared it only logs.
func checkProcessorStats(t *testing.T, path string, lossReports int) {
	t.Helper()
	if lossReports == 0 || perfettotools.Missing() != "" {
		perfettotools.CheckStats(t, path) // logs when the tools are missing
		return
	}
	lost := 0
	for _, row := range perfettotools.ProblemRows(t, path).Rows {
		n, err := strconv.Atoi(row[3])
		if row[0] != "traced_buf_sequence_packet_loss" || err != nil {
			t.Errorf("trace_processor stats of %s: %q", path, row)
		}
		lost += n
	}
	if lost != lossReports {
		t.Errorf("trace_processor counts %d sequence packet losses, want the trace's %d loss reports", lost, lossReports)
	}
}
