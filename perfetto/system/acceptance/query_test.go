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
	stray   int            // its names on slices of any other track
	ops     map[string]int // its VulkanMemoryAllocation slices by operation
	counter int64          // the largest value of its vulkan.mem.* counters
	raw     int            // distinct "sys.PID.*" raw VkDebugUtilsObjectName packets (perfetto/decode)
}

func (s summary) String() string {
	return fmt.Sprintf("names=%d stray=%d ops=%v counter=%d raw=%d", s.names, s.stray, s.ops, s.counter, s.raw)
}

func summarize(t *testing.T, trace string, p *prog) summary {
	t.Helper()
	own := fmt.Sprintf(`SELECT t.id FROM process_track t JOIN process p USING (upid) WHERE p.pid = %d`, p.pid)
	glob := fmt.Sprintf(`extract_arg(s.arg_set_id, 'debug.object_name') GLOB 'sys.%d.*'`, p.pid)
	sql := `SELECT 'names' AS k, count(DISTINCT extract_arg(s.arg_set_id, 'debug.object_name')) AS v
  FROM slice s WHERE s.name = 'VulkanObjectName' AND ` + glob + ` AND s.track_id IN (` + own + `)
UNION ALL SELECT 'stray', count(*)
  FROM slice s WHERE s.name = 'VulkanObjectName' AND ` + glob + ` AND s.track_id NOT IN (` + own + `)
UNION ALL SELECT 'op:' || extract_arg(s.arg_set_id, 'debug.operation'), count(*)
  FROM slice s WHERE s.name = 'VulkanMemoryAllocation' AND s.track_id IN (` + own + `) GROUP BY 1
UNION ALL SELECT 'counter', ifnull(max(c.value), 0)
  FROM counter c JOIN process_counter_track t ON c.track_id = t.id JOIN process p USING (upid)
  WHERE p.pid = ` + strconv.Itoa(p.pid) + ` AND t.name GLOB 'vulkan.mem.*';`
	res := perfettotools.Query(t, trace, sql)
	s := summary{ops: map[string]int{}}
	for _, row := range res.Rows {
		v, _ := strconv.ParseFloat(row[1], 64)
		switch k := row[0]; {
		case k == "names":
			s.names = int(v)
		case k == "stray":
			s.stray = int(v)
		case k == "counter":
			s.counter = int64(v)
		case strings.HasPrefix(k, "op:"):
			s.ops[k[3:]] = int(v)
		}
	}
	tr, err := decode.ReadFile(trace)
	if err != nil {
		t.Fatalf("perfetto/decode %s: %v", trace, err)
	}
	seen := map[string]bool{}
	prefix := fmt.Sprintf("sys.%d.", p.pid)
	for _, pk := range tr.ObjectNames() {
		if strings.HasPrefix(pk.ObjectName.Name, prefix) {
			seen[pk.ObjectName.Name] = true
		}
	}
	s.raw = len(seen)
	return s
}

// check summarises the trace, fails t unless its stats are clean and the
// process has exactly names names (slices and raw packets alike), none
// misattributed, memory events and a non-zero counter; it returns the
// summary for further checks.
func check(t *testing.T, trace string, p *prog, names int) summary {
	t.Helper()
	perfettotools.CheckStats(t, trace)
	s := summarize(t, trace, p)
	if s.names != names || s.raw != names || s.stray != 0 || len(s.ops) == 0 || s.counter <= 0 {
		t.Errorf("%s, process %d: %v; want %d names as slices and raw packets, none stray, memory events and a counter", trace, p.pid, s, names)
	}
	return s
}
