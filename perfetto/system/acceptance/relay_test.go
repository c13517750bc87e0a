package acceptance

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/vkgen/vkgen/internal/perfettotools"
)

// TestRelay scales out through Perfetto's own multi-machine path: a program
// whose producer reaches the central traced through traced_relay (its own
// socket folder, as a second machine would have) records into the same
// session as a local one, each attributed to its machine.
func TestRelay(t *testing.T) {
	svc := perfettotools.StartTracedForRelay(t)
	relay := svc.StartRelay(t)
	remote := startProg(t, svc, append([]string{noStartup}, relay.Env()...)...)
	local := startProg(t, svc, noStartup)
	remote.do("make 4")
	local.do("make 3")
	waitRegistered(t, svc, local)
	svc.WaitState(t, "the relayed producer", func(st []byte) bool { return len(trackEventProducers(st)) == 2 })
	// Sessions record the host's data sources only unless told otherwise.
	rec := svc.Record(t, config(layerCategories, "trace_all_machines: true"), filepath.Join(t.TempDir(), "relay.pftrace"))
	remote.do("make 2")
	local.do("make 1")
	rec.Stop(t)
	remote.end("quit")
	local.end("quit")
	check(t, rec.Out, map[*prog]int{remote: 6, local: 4})
	res := perfettotools.Query(t, rec.Out, fmt.Sprintf(`
SELECT p.pid AS pid, ifnull(m.raw_id, 0) AS machine FROM process p LEFT JOIN machine m ON p.machine_id = m.id
WHERE p.pid IN (%d, %d) ORDER BY p.pid = %d;`, remote.pid, local.pid, remote.pid))
	if m := res.Column("machine"); len(m) != 2 || m[0] != "0" || m[1] == "0" {
		t.Errorf("machines of the local and the relayed process: %v; want the host's (0) and another\n%s", res, relay.Log())
	}
}
