package memreport_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/internal/perfettotools"
	"github.com/vkgen/vkgen/internal/vktest"
)

// stackRun is one run of testdata/stackprog.c (built with -g) under the
// layer: its trace and the call sites it printed (function -> line).
type stackRun struct {
	trace string
	sites map[string]string
}

func runStackProg(t *testing.T, env ...string) stackRun {
	t.Helper()
	prog := vktest.Program(t, "layer/memreport/testdata/stackprog.c", "-g")
	r := stackRun{trace: filepath.Join(t.TempDir(), "stack.pftrace"), sites: map[string]string{}}
	cmd := exec.Command(prog)
	cmd.Env = append(append(vktest.Env(t, dmrLayer), "VK_VKGEN_TRACE_FILE="+r.trace), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("stackprog: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "site" {
			r.sites[f[1]] = f[2]
		}
	}
	if len(r.sites) != 3 {
		t.Fatalf("stackprog printed %d call sites:\n%s", len(r.sites), out)
	}
	perfettotools.CheckStats(t, r.trace)
	return r
}

// The allocation events of memory, buffers and images carry the
// application's call stack: trace_processor links their slices to callsites
// whose frames, outermost first, name the program's functions (from its
// symbol table: they are not exported) in its mapping, with the build id,
// the creating function innermost.
func TestCallStacksInTrace(t *testing.T) {
	r := runStackProg(t)
	res := perfettotools.Query(t, r.trace, `
		with ev as (
		  select s.id, extract_arg(s.arg_set_id, 'debug.source') as source,
		    extract_arg(s.arg_set_id, 'debug.operation') as op, e.callsite_id
		  from slice s join __intrinsic_track_event_callstacks e on e.slice_id = s.id
		  where s.name = 'VulkanMemoryAllocation')
		select ev.source, ev.op, group_concat(f.name, '>') as frames, min(m.build_id != '') as has_build_id
		from ev
		join (select a.frame_id, a.depth, ev.id as ev_id from ev
		      join experimental_ancestor_stack_profile_callsite(ev.callsite_id) a
		      union all select cs.frame_id, cs.depth, ev.id from ev join stack_profile_callsite cs on cs.id = ev.callsite_id
		      order by 2) c on c.ev_id = ev.id
		join stack_profile_frame f on f.id = c.frame_id
		join stack_profile_mapping m on m.id = f.mapping
		where m.name like '%stackprog'
		group by ev.id order by ev.source, ev.op`)
	want := map[string]string{
		"DEVICE_MEMORY CREATE": "main>upload_staging",
		"BUFFER BIND":          "main>make_vertex_buffers",
		"IMAGE BIND":           "main>TextureLoader_load",
	}
	seen := map[string]int{}
	for _, row := range res.Rows {
		key := row[0] + " " + row[1]
		if w, ok := want[key]; ok {
			seen[key]++
			if !strings.HasSuffix(row[2], w) || row[3] != "1" {
				t.Errorf("%s: frames %s (build id %s), want %s", key, row[2], row[3], w)
			}
		}
	}
	if seen["DEVICE_MEMORY CREATE"] != 1 || seen["BUFFER BIND"] != 3 || seen["IMAGE BIND"] != 1 {
		t.Errorf("events with the program's frames: %v\n%v", seen, res)
	}
}

// With call_stack_depth 0 nothing is captured: no event has a callstack.
func TestCallStacksOff(t *testing.T) {
	r := runStackProg(t, "VK_VKGEN_CALL_STACK_DEPTH=0")
	res := perfettotools.Query(t, r.trace, `select count(*) from __intrinsic_track_event_callstacks`)
	if len(res.Rows) != 1 || res.Rows[0][0] != "0" {
		t.Errorf("callstacks with depth 0: %v", res)
	}
}
