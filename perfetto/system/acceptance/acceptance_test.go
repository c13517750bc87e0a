// Package acceptance runs the system backend end to end: the real traced
// (tracebox v58.2 from ../shared, private sockets), the perfetto client,
// Vulkan programs (testdata/vksys) through the real loader, lavapipe and the
// layer library, and trace_processor reading every trace. One traced and
// one build serve every subtest; the programs are driven step by step over
// stdin and the tests wait on traced's state, never for a fixed time.
package acceptance

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/internal/perfettotools"
	"github.com/vkgen/vkgen/perfetto/decode"
)

// noStartup keeps startup tracing out where a test checks the replay.
const noStartup = "VK_VKGEN_PERFETTO_STARTUP_MS=0"

func TestSystemBackend(t *testing.T) {
	svc := perfettotools.StartTraced(t)
	dir := t.TempDir()
	out := func(name string) string { return filepath.Join(dir, name+".pftrace") }
	full := config(layerCategories, "")

	// (a) The usual recipe: the session first, then a program that ends
	// before the session does. Startup tracing and the exit handler bring
	// its events in, including those before its producer connected.
	t.Run("SessionBeforeProgram", func(t *testing.T) {
		rec := svc.Record(t, full, out("before"))
		p := startProg(t, svc)
		p.do("make 20")
		p.do("free")
		p.do("make 10")
		p.end("quit")
		waitGone(t, svc, p)
		rec.Stop(t)
		check(t, rec.Out, map[*prog]int{p: 30})
	})

	// A program shorter than a connection: it names objects and calls
	// exit(3) at once.
	t.Run("ShortProgram", func(t *testing.T) {
		rec := svc.Record(t, full, out("short"))
		p := startProg(t, svc)
		p.do("make 5")
		p.end("exit")
		waitGone(t, svc, p)
		rec.Stop(t)
		check(t, rec.Out, map[*prog]int{p: 5})
	})

	// (b) A session started while the program runs gets the replay of its
	// names, counters and live allocations, then the live events.
	t.Run("SessionDuringProgram", func(t *testing.T) {
		p := startProg(t, svc, noStartup)
		p.do("make 50")
		p.do("make 5")
		p.do("free") // destroyed before the session: not replayed
		waitRegistered(t, svc, p)
		rec := svc.Record(t, full, out("during"))
		p.do("make 3")
		rec.Stop(t)
		p.end("quit")
		s := check(t, rec.Out, map[*prog]int{p: 53})[p.pid]
		if s.ops["CREATE"] < 2 || s.ops["BIND"] < 53 {
			t.Errorf("memory events %v: want the replayed and live CREATE and BIND events", s.ops)
		}
	})

	// (c) Two overlapping sessions, each complete.
	t.Run("OverlappingSessions", func(t *testing.T) {
		p := startProg(t, svc, noStartup)
		p.do("make 10")
		waitRegistered(t, svc, p)
		r1 := svc.Record(t, full, out("overlap1"))
		p.do("make 5")
		r2 := svc.Record(t, full, out("overlap2"))
		p.do("make 7")
		r1.Stop(t)
		p.do("make 2")
		r2.Stop(t)
		p.end("quit")
		check(t, r1.Out, map[*prog]int{p: 22})
		check(t, r2.Out, map[*prog]int{p: 24})
	})

	// (f) Category filters apply inside the program; DebugMarker's raw
	// name packets are recorded whatever the filter.
	t.Run("CategoryFilters", func(t *testing.T) {
		p := startProg(t, svc, noStartup)
		p.do("make 6")
		waitRegistered(t, svc, p)
		marker := svc.Record(t, config(`disabled_categories: "*" enabled_categories: "VulkanDebugMarker"`, ""), out("marker"))
		memory := svc.Record(t, config(`disabled_categories: "VulkanDebugMarker"`, ""), out("memory"))
		p.do("make 4")
		marker.Stop(t)
		memory.Stop(t)
		p.end("quit")
		check(t, memory.Out, map[*prog]int{p: 10})
		if byPID, _ := summarize(t, marker.Out); len(byPID) != 1 || byPID[p.pid] == nil ||
			byPID[p.pid].String() != (summary{raw: 10}).String() {
			t.Errorf("VulkanDebugMarker only: %v; want the 10 raw names and no memory-report event", byPID[p.pid])
		}
	})

	// (g) Eight programs in one session, each event on its own process.
	t.Run("EightProcesses", func(t *testing.T) {
		var ps []*prog
		for range 8 {
			p := startProg(t, svc, noStartup)
			p.do("make 3")
			ps = append(ps, p)
		}
		waitRegistered(t, svc, ps...)
		rec := svc.Record(t, full, out("eight"))
		for _, p := range ps {
			p.do("make 2")
		}
		rec.Stop(t)
		want := map[*prog]int{}
		for _, p := range ps {
			p.end("quit")
			want[p] = 5
		}
		check(t, rec.Out, want)
	})

	// (h) A file session and a system session carry the same events.
	t.Run("FileAndSystem", func(t *testing.T) {
		file := out("file")
		p := startProg(t, svc, noStartup, "VK_VKGEN_TRACE_FILE="+file)
		p.do("make 2")
		waitRegistered(t, svc, p)
		rec := svc.Record(t, full, out("withfile"))
		p.do("make 6")
		p.do("free")
		rec.Stop(t)
		p.end("quit")
		check(t, rec.Out, map[*prog]int{p: 8})
		check(t, file, map[*prog]int{p: 8})
		// The file goes on after the system session: the system trace's
		// live events are the beginning of the file's.
		a, b := liveEvents(t, rec.Out, p), liveEvents(t, file, p)
		if len(a) < 12 || !slices.Equal(a, b[:min(len(a), len(b))]) {
			t.Errorf("events while both sessions ran differ:\nsystem: %q\nfile:   %q", a, b)
		}
	})

	// (d) A ring buffer overwrites the beginning of a long session; the
	// periodic incremental-state clears re-emit the interned names, so the
	// tail decodes. Clones of the running session show when a clear came
	// after the overwrite.
	t.Run("RingBuffer", func(t *testing.T) {
		p := startProg(t, svc, noStartup)
		waitRegistered(t, svc, p)
		rec := svc.Record(t, `buffers { size_kb: 256 fill_policy: RING_BUFFER }
data_sources { config { name: "track_event" track_event_config { `+layerCategories+` } } }
incremental_state_config { clear_period_ms: 50 }`, out("ring"))
		p.do("make 6000") // well over the 256 KiB buffer (2000 was borderline: the test flaked)
		id := sessionID(svc.QueryRaw(t))
		made := 6000
		for i := 0; ; i++ {
			if i == 20 {
				t.Fatalf("no clone of the ring-buffer session decodes the last names")
			}
			p.do("make 100")
			made += 100
			clone := out(fmt.Sprint("ring-clone", i))
			if b, err := svc.Perfetto("--clone", fmt.Sprint(id), "-o", clone).CombinedOutput(); err != nil {
				t.Fatalf("perfetto --clone: %v\n%s", err, b)
			}
			if namesIn(t, clone, p, made-100, made-1) == 100 {
				break
			}
		}
		rec.Stop(t)
		p.end("quit")
		if n := namesIn(t, rec.Out, p, 0, 0); n != 0 {
			t.Errorf("the first name survived the ring buffer: the test did not overwrite it")
		}
		if n := namesIn(t, rec.Out, p, made-100, made-1); n != 100 {
			t.Errorf("%d of the last 100 names decode, want all", n)
		}
		// The ring overwrites on purpose: where it cut a sequence's batch
		// after the packet that starts its incremental state (the clock
		// snapshot, the interned names), traced drops the batch's rest,
		// which needs that state, and counts it here. The names that must
		// survive are checked above.
		perfettotools.CheckStats(t, rec.Out, "traced_buf_incremental_sequences_dropped")
	})

	// A program that creates and destroys device after device (a test
	// suite's device per case) in a session whose traced clears the
	// incremental state every 10 ms: a destroyed device's group tracks
	// leave the sequences, so each device's are described about once
	// rather than again at every clear for the rest of the session.
	t.Run("DeviceChurn", func(t *testing.T) {
		const devices = 300
		p := startProg(t, svc, noStartup)
		waitRegistered(t, svc, p)
		rec := svc.Record(t, config(layerCategories, "incremental_state_config { clear_period_ms: 10 }"), out("churn"))
		p.do(fmt.Sprint("devices ", devices))
		rec.Stop(t)
		p.end("quit")
		perfettotools.CheckStats(t, rec.Out)
		f, err := os.Open(rec.Out)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		r := decode.NewReader(f, rec.Out)
		names := map[string]bool{}
		descs := 0
		for {
			var raw decode.Raw
			_, track, err := r.NextRaw(&raw)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if track != nil && strings.HasPrefix(track.Name, "VkDevice 0x") {
				descs++
				names[track.Name] = true
			}
		}
		// Lavapipe hands out few distinct VkDevice addresses, so the names
		// repeat; the descriptors count every device's. Before the groups
		// were forgotten, 300 devices under 10 ms clears gave thousands.
		t.Logf("%d VkDevice group descriptors (%d names) for %d devices", descs, len(names), devices+1)
		if descs == 0 || descs > 3*(devices+1) {
			t.Errorf("want at most %d descriptors", 3*(devices+1))
		}
		sameInstantTimes(t, rec.Out)
	})

	// (e) traced killed mid-run: the program goes on, its producer
	// reconnects to the restarted service, the next session is complete.
	t.Run("ServiceRestart", func(t *testing.T) {
		p := startProg(t, svc, noStartup)
		p.do("make 10")
		waitRegistered(t, svc, p)
		rec := svc.Record(t, full, out("killed"))
		svc.Stop()
		rec.Abandon() // the client ends with its service, writing nothing
		p.do("make 5")
		svc.Start(t)
		waitRegistered(t, svc, p)
		rec = svc.Record(t, full, out("restarted"))
		p.do("make 3")
		rec.Stop(t)
		p.end("quit")
		check(t, rec.Out, map[*prog]int{p: 18})
	})
}

// liveEvents lists the process's memory events from the one binding the
// third buffer it named (the first live one of FileAndSystem) on, as
// "operation,handle,size"; the sessions read the clock each for itself, so
// timestamps are left out.
func liveEvents(t *testing.T, trace string, p *prog) []string {
	t.Helper()
	res := perfettotools.Query(t, trace, fmt.Sprintf(`
SELECT extract_arg(arg_set_id, 'debug.operation') || ',' || extract_arg(arg_set_id, 'debug.object_handle')
       || ',' || extract_arg(arg_set_id, 'debug.size') AS e
FROM slice WHERE name = 'VulkanMemoryAllocation' AND ts >= (
  SELECT min(ts) FROM slice WHERE name = 'VulkanObjectName'
  AND extract_arg(arg_set_id, 'debug.object_name') = 'sys.%d.2')
ORDER BY ts;`, p.pid))
	return res.Column("e")
}

// namesIn counts the distinct names sys.PID.K, from <= K <= to, of the
// process's VulkanObjectName slices.
// sameInstantTimes checks that trace_processor and package decode read the
// layers' instants at the same times: timestamps are deltas on the
// sequences' incremental clocks, and traced cleared the incremental state
// over and over.
func sameInstantTimes(t *testing.T, trace string) {
	t.Helper()
	tr, err := decode.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	var got, want []string
	for _, p := range tr.Instants() {
		if p.Event.Name == "VulkanMemoryAllocation" || p.Event.Name == "VulkanObjectName" {
			got = append(got, fmt.Sprint(p.Timestamp, " ", p.Event.Name))
		}
	}
	res := perfettotools.Query(t, trace, `SELECT ts, name FROM slice
WHERE dur = 0 AND name IN ('VulkanMemoryAllocation', 'VulkanObjectName')`)
	for _, row := range res.Rows {
		want = append(want, row[0]+" "+row[1])
	}
	slices.Sort(got)
	slices.Sort(want)
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("decode reads %d instants, trace_processor %d, or at other times (first: %v, %v)",
			len(got), len(want), got[:min(3, len(got))], want[:min(3, len(want))])
	}
}

func namesIn(t *testing.T, trace string, p *prog, from, to int) int {
	t.Helper()
	prefix := fmt.Sprintf("sys.%d.", p.pid)
	res := perfettotools.Query(t, trace, fmt.Sprintf(`
SELECT count(DISTINCT n) AS n FROM (SELECT extract_arg(arg_set_id, 'debug.object_name') AS n
  FROM slice WHERE name = 'VulkanObjectName')
WHERE n GLOB '%s*' AND CAST(substr(n, %d) AS INT) BETWEEN %d AND %d;`, prefix, len(prefix)+1, from, to))
	n, _ := strconv.Atoi(res.Column("n")[0])
	return n
}
