package memreport_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/internal/perfettotools"
	"github.com/vkgen/vkgen/internal/vktest"
	"github.com/vkgen/vkgen/layer/memreport/tracesummary"
)

// stackRun is one run of testdata/stackprog.c (built with -g) under the
// layer: its trace and the call sites it printed (function -> line).
type stackRun struct {
	trace string
	sites map[string]string
}

func runStackProg(t *testing.T, env ...string) stackRun {
	t.Helper()
	return runStackProgAt(t, vktest.Program(t, "layer/memreport/testdata/stackprog.c", "-g"), "", env...)
}

// runStackProgAt runs prog with the argument arg ("" for none).
func runStackProgAt(t *testing.T, prog, arg string, env ...string) stackRun {
	t.Helper()
	r := stackRun{trace: filepath.Join(t.TempDir(), "stack.pftrace"), sites: map[string]string{}}
	cmd := exec.Command(prog)
	if arg != "" {
		cmd.Args = append(cmd.Args, arg)
	}
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
	// The objects' lifetime slices carry the same stacks as their events.
	res = perfettotools.Query(t, r.trace, `
		select count(*) from slice s join __intrinsic_track_event_callstacks e on e.slice_id = s.id
		where s.dur != 0 and e.callsite_id in (select e2.callsite_id from slice i
		  join __intrinsic_track_event_callstacks e2 on e2.slice_id = i.id where i.name = 'VulkanMemoryAllocation')`)
	if len(res.Rows) != 1 || res.Rows[0][0] != "5" {
		t.Errorf("lifetime slices with the objects' call stacks: %v, want 5", res)
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

// summarize reads the run's trace as `vkgen trace summary` does.
func (r stackRun) summarize(t *testing.T) *tracesummary.Summary {
	t.Helper()
	f, err := os.Open(r.trace)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sum, err := tracesummary.Read(f, r.trace, tracesummary.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// The summary names each object's call site "function (file:line)" from the
// program's DWARF, the line the program printed, and groups the unnamed
// objects by descriptor and call site: the three buffers made in one loop
// are one group.
func TestCallSitesInSummary(t *testing.T) {
	r := runStackProg(t)
	sum := r.summarize(t)
	want := map[string]string{"DEVICE_MEMORY": "upload_staging", "BUFFER": "make_vertex_buffers", "IMAGE": "TextureLoader_load"}
	n := map[string]int{}
	for _, o := range sum.Objects {
		fn, ok := want[o.Type]
		if !ok {
			continue
		}
		n[o.Type]++
		if site := fn + " (stackprog.c:" + r.sites[fn] + ")"; o.CallSite != site {
			t.Errorf("%s %#x: call site %q, want %q", o.Type, o.Handle, o.CallSite, site)
		}
	}
	if n["DEVICE_MEMORY"] != 1 || n["BUFFER"] != 3 || n["IMAGE"] != 1 {
		t.Errorf("objects by type %v:\n%s", n, sum.Text())
	}
	var group *tracesummary.Group
	for i, g := range sum.Groups {
		if g.Kind == tracesummary.KindCallSite && strings.HasSuffix(g.Key, " — make_vertex_buffers (stackprog.c:"+r.sites["make_vertex_buffers"]+")") {
			group = &sum.Groups[i]
		}
		if g.Kind == tracesummary.KindDescriptor && strings.HasPrefix(g.Key, "BUFFER ") {
			t.Errorf("a buffer outside its call site's group: %+v", g)
		}
	}
	if group == nil || group.Objects != 3 || group.Peak != 3*4096 {
		t.Errorf("the buffers' call-site group: %+v\n%s", group, sum.Text())
	}
	if !strings.Contains(sum.Text(), "Unnamed memory by call site") {
		t.Errorf("the text has no call-site table:\n%s", sum.Text())
	}
}

// Without the program's file the summary still names the function (the
// trace carries it) and places the call by module and offset.
func TestCallSitesWithoutFiles(t *testing.T) {
	src := vktest.Program(t, "layer/memreport/testdata/stackprog.c", "-g")
	prog := filepath.Join(t.TempDir(), "stackprog")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(prog, b, 0o755); err != nil {
		t.Fatal(err)
	}
	r := runStackProgAt(t, prog, "")
	if err := os.Remove(prog); err != nil {
		t.Fatal(err)
	}
	site := regexp.MustCompile(`^make_vertex_buffers \(stackprog\+0x[0-9a-f]+\)$`)
	found := 0
	for _, o := range r.summarize(t).Objects {
		if o.Type == "BUFFER" {
			found++
			if !site.MatchString(o.CallSite) {
				t.Errorf("buffer call site %q, want %s", o.CallSite, site)
			}
		}
	}
	if found != 3 {
		t.Errorf("%d buffers", found)
	}
}

// Leaks' VulkanMemoryLeak events carry their call stacks: the summary's
// leaks name where the leaked buffer and memory were made.
func TestCallSiteOfLeak(t *testing.T) {
	r := runStackProgAt(t, vktest.Program(t, "layer/memreport/testdata/stackprog.c", "-g"), "leak")
	leaks := r.summarize(t).Leaks
	want := map[string]string{"BUFFER": "make_vertex_buffers", "DEVICE_MEMORY": "upload_staging"}
	for _, l := range leaks {
		if fn := want[l.Type]; l.CallSite != fn+" (stackprog.c:"+r.sites[fn]+")" {
			t.Errorf("%s leak: call site %q, want %s", l.Type, l.CallSite, fn)
		}
		delete(want, l.Type)
	}
	if len(want) != 0 || len(leaks) != 2 {
		t.Errorf("leaks: %+v", leaks)
	}
}

// A video session's bindings carry its vkCreateVideoSessionKHR's call
// stack (over the memdriver's video emulation): the summary names a call
// site in bindprog.
func TestCallSiteOfVideoSession(t *testing.T) {
	bindSetup(t)
	r := runBindProg(t, vktest.DriverEnv(t, "video", dmrLayer), "video")
	sessions := 0
	for _, o := range tracesummary.Summarize(r.trace).Objects {
		if o.Type == "VIDEO_SESSION" {
			sessions++
			if !strings.Contains(o.CallSite, "(bindprog") {
				t.Errorf("video session call site %q, want one in bindprog", o.CallSite)
			}
		}
	}
	if sessions != 1 {
		t.Errorf("%d video sessions", sessions)
	}
}
