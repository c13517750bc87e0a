package acceptance

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/internal/perfettotools"
	"github.com/vkgen/vkgen/perfetto/decode"
)

// summary is what a trace holds of one vksys process, as trace_processor
// reads it.
type summary struct {
	names   int            // distinct "sys.PID.*" names on its VulkanObjectName slices
	ops     map[string]int // its VulkanMemoryAllocation slices by operation
	counter int64          // the largest value of its vulkan.mem.* counters
	raw     int            // distinct "sys.PID.*" raw VkDebugUtilsObjectName packets (perfetto/decode)
}

func (s summary) String() string {
	return fmt.Sprintf("names=%d ops=%v counter=%d raw=%d", s.names, s.ops, s.counter, s.raw)
}

// summarySQL gives, per process (pid), its names, memory events by
// operation and largest memory counter; pid 0 counts the names on a
// process's slices that another process set (stray).
const summarySQL = `
CREATE PERFETTO TABLE own AS SELECT t.id AS track_id, p.pid FROM process_track t JOIN process p USING (upid);
CREATE PERFETTO TABLE n AS SELECT s.track_id, extract_arg(s.arg_set_id, 'debug.object_name') AS name
  FROM slice s WHERE s.name = 'VulkanObjectName' AND extract_arg(s.arg_set_id, 'debug.object_name') GLOB 'sys.*';
SELECT 'names' AS k, o.pid AS pid, count(DISTINCT n.name) AS v FROM n JOIN own o USING (track_id)
  WHERE n.name GLOB 'sys.' || o.pid || '.*' GROUP BY o.pid
UNION ALL SELECT 'stray', 0, count(*) FROM n LEFT JOIN own o USING (track_id)
  WHERE o.pid IS NULL OR NOT n.name GLOB 'sys.' || o.pid || '.*'
UNION ALL SELECT 'op:' || extract_arg(s.arg_set_id, 'debug.operation'), o.pid, count(*)
  FROM slice s JOIN own o USING (track_id) WHERE s.name = 'VulkanMemoryAllocation' GROUP BY 1, 2
UNION ALL SELECT 'counter', p.pid, max(c.value)
  FROM counter c JOIN process_counter_track t ON c.track_id = t.id JOIN process p USING (upid)
  WHERE t.name GLOB 'vulkan.mem.*' GROUP BY p.pid;`

// summarize checks the trace's stats and reads every vksys process of the
// trace at once, by pid, in one trace_processor_shell; stray is the number
// of names found on another process's (or no process's) track.
func summarize(t *testing.T, trace string) (byPID map[int]*summary, stray int) {
	t.Helper()
	byPID = map[int]*summary{}
	get := func(pid int) *summary {
		if byPID[pid] == nil {
			byPID[pid] = &summary{ops: map[string]int{}}
		}
		return byPID[pid]
	}
	b := perfettotools.NewBatch(trace, "")
	b.CheckStats(t)
	rows := b.Add(summarySQL)
	b.Run(t)
	for _, row := range rows.Rows {
		pid, _ := strconv.Atoi(row[1])
		v, _ := strconv.ParseFloat(row[2], 64)
		switch k := row[0]; {
		case k == "names":
			get(pid).names = int(v)
		case k == "stray":
			stray = int(v)
		case k == "counter":
			get(pid).counter = int64(v)
		case strings.HasPrefix(k, "op:"):
			get(pid).ops[k[3:]] = int(v)
		}
	}
	tr, err := decode.ReadFile(trace)
	if err != nil {
		t.Fatalf("perfetto/decode %s: %v", trace, err)
	}
	seen := map[string]bool{}
	for _, pk := range tr.ObjectNames() {
		var pid, k int
		if n := pk.ObjectName.Name; !seen[n] {
			if _, err := fmt.Sscanf(n, "sys.%d.%d", &pid, &k); err == nil {
				seen[n] = true
				get(pid).raw++
			}
		}
	}
	return byPID, stray
}

// check fails t unless the trace's stats are clean (summarize checks them)
// and each process has exactly the given number of names (slices and raw
// packets alike), none misattributed, memory events and a non-zero counter.
// It returns the summaries for further checks.
func check(t *testing.T, trace string, names map[*prog]int) map[int]*summary {
	t.Helper()
	byPID, stray := summarize(t, trace)
	if stray != 0 {
		t.Errorf("%s: %d names on another process's track", trace, stray)
	}
	for p, n := range names {
		s := byPID[p.pid]
		if s == nil {
			s = &summary{}
		}
		if s.names != n || s.raw != n || len(s.ops) == 0 || s.counter <= 0 {
			t.Errorf("%s, process %d: %v; want %d names as slices and raw packets, memory events and a counter", trace, p.pid, s, n)
		}
	}
	return byPID
}
