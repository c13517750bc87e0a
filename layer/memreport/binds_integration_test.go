package memreport_test

import (
	"fmt"
	"maps"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/internal/perfettotools"
	"github.com/vkgen/vkgen/internal/vktest"
	"github.com/vkgen/vkgen/layer/memreport"
	"github.com/vkgen/vkgen/layer/memreport/accounting"
	"github.com/vkgen/vkgen/layer/memreport/tracesummary"
	"github.com/vkgen/vkgen/perfetto/decode"
)

// The ways of requiring and binding memory beyond plain binds, through the
// real loader: testdata/bindprog.c on lavapipe (vkBind*Memory2 batches,
// maintenance4 queries, dedicated and external memory, swapchain images
// under xvfb) and over the memdriver test layer (maintenance6 per-bind
// results, sparse binding, video sessions), checked against what the
// program printed.

// bindLine is one "KIND NAME key=value..." line of bindprog.
type bindLine struct {
	kind, name string
	kv         map[string]string
}

func (l bindLine) num(t *testing.T, k string) uint64 {
	t.Helper()
	v, err := strconv.ParseUint(l.kv[k], 0, 64)
	if err != nil {
		t.Fatalf("%s %s: %s: %v", l.kind, l.name, k, err)
	}
	return v
}

type bindRun struct {
	path   string // the trace
	stdout string
	lines  []bindLine
	evs    []event
	trace  *decode.Trace
}

func (r *bindRun) of(kind string) []bindLine {
	var out []bindLine
	for _, l := range r.lines {
		if l.kind == kind {
			out = append(out, l)
		}
	}
	return out
}

func (r *bindRun) memory(t *testing.T, name string) bindLine {
	t.Helper()
	for _, l := range r.of("memory") {
		if l.name == name {
			return l
		}
	}
	t.Fatalf("no memory %s in\n%s", name, r.stdout)
	return bindLine{}
}

// runBindProg runs bindprog MODE (under xvfb-run for the swapchain) with a
// trace; trace_processor must read it with a clean stats table.
func runBindProg(t *testing.T, env []string, mode string) *bindRun {
	t.Helper()
	prog := vktest.Program(t, "layer/memreport/testdata/bindprog.c", "-lxcb")
	tracePath := filepath.Join(t.TempDir(), mode+".pftrace")
	args := []string{prog, mode}
	if mode == "swapchain" {
		if _, err := exec.LookPath("xvfb-run"); err != nil {
			t.Skip("xvfb-run not installed (scripts/setup.sh installs xvfb)")
		}
		args = append([]string{"xvfb-run", "-a"}, args...)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(env, "VK_VKGEN_TRACE_FILE="+tracePath)
	var so, se strings.Builder
	cmd.Stdout, cmd.Stderr = &so, &se
	if err := cmd.Run(); err != nil {
		t.Fatalf("bindprog %s: %v\n%s\n%s", mode, err, so.String(), se.String())
	}
	return parseBindRun(t, so.String(), tracePath)
}

// parseBindRun reads what bindprog printed and its trace, which
// trace_processor must read with a clean stats table.
func parseBindRun(t *testing.T, stdout, tracePath string) *bindRun {
	t.Helper()
	r := &bindRun{path: tracePath, stdout: stdout}
	for _, line := range strings.Split(r.stdout, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		l := bindLine{kind: f[0], name: f[1], kv: map[string]string{}}
		for _, x := range f[2:] {
			k, v, _ := strings.Cut(x, "=")
			l.kv[k] = v
		}
		r.lines = append(r.lines, l)
	}
	perfettotools.CheckStats(t, tracePath)
	var err error
	if r.trace, err = decode.ReadFile(tracePath); err != nil {
		t.Fatal(err)
	}
	r.evs = layerEvents(r.trace)
	return r
}

// matching returns the allocation events whose annotations include want.
func (r *bindRun) matching(want map[string]string) []event {
	var out []event
	for _, e := range r.evs {
		ok := e.name == memreport.AllocationEventName
		for k, v := range want {
			ok = ok && e.args[k] == v
		}
		if ok {
			out = append(out, e)
		}
	}
	return out
}

// wantOne checks exactly one allocation event matches want and returns it.
func (r *bindRun) wantOne(t *testing.T, what string, want map[string]string) event {
	t.Helper()
	m := r.matching(want)
	if len(m) != 1 {
		t.Errorf("%s: %d events matching %v, want 1", what, len(m), want)
		return event{}
	}
	return m[0]
}

// before is the time of the layer's event before e (e's counter updates
// come after it).
func (r *bindRun) before(e event) uint64 {
	var ts uint64
	for _, x := range r.evs {
		if x.ts < e.ts {
			ts = x.ts
		}
	}
	return ts
}

// counterAt is a counter track's value at ts (0 before its first sample).
func (r *bindRun) counterAt(track string, ts uint64) int64 {
	var v int64
	if cs := r.trace.Counters()[track]; cs != nil {
		for _, s := range cs.Samples {
			if s.Timestamp <= ts {
				v = s.Value
			}
		}
	}
	return v
}

// wantCounters checks every vulkan.mem track at ts and at the end.
func (r *bindRun) wantCounters(t *testing.T, ts uint64, want map[string]int64) {
	t.Helper()
	for _, name := range accounting.TrackNames() {
		if got := r.counterAt(name, ts); got != want[name] {
			t.Errorf("%s = %d, want %d", name, got, want[name])
		}
		if got := r.counterAt(name, ^uint64(0)); got != 0 {
			t.Errorf("%s ends at %d, want 0", name, got)
		}
	}
}

// peak is the time of the last allocation event before the first DESTROY:
// bindprog creates and binds everything before it destroys anything.
func (r *bindRun) peak() uint64 {
	var ts uint64
	for _, e := range r.evs {
		if e.name != memreport.AllocationEventName {
			continue
		}
		if e.args["operation"] == "DESTROY" {
			break
		}
		ts = e.ts
	}
	return ts
}

// memdriverDevice is what the memdriver allocates for each device during
// vkCreateDevice (testdata/memdriver/README.md): driver unbound memory until
// the device goes.
const memdriverDevice = 1 << 20

// cluster classifies a printed buffer or image bound to memory of flags.
func cluster(t *testing.T, res bindLine, flags uint32) accounting.Cluster {
	if res.kind == "image" {
		return accounting.ClassifyImage(uint32(res.num(t, "usage")), flags)
	}
	return accounting.ClassifyBuffer(res.num(t, "usage"), flags)
}

// checkWholeBinds checks each printed buffer and image has one BIND and one
// DESTROY of its exact size, offset, memory and cluster, and adds its bytes
// to want (taking them from its memory's unbound bytes).
func checkWholeBinds(t *testing.T, r *bindRun, want map[string]int64) {
	t.Helper()
	for _, res := range append(r.of("buffer"), r.of("image")...) {
		m := r.memory(t, res.kv["memory"])
		cl := cluster(t, res, uint32(m.num(t, "flags")))
		args := map[string]string{"source": strings.ToUpper(res.kind), "memory_object_id": u(m.num(t, "handle")),
			"object_handle": u(res.num(t, "handle")), "size": res.kv["size"], "offset": res.kv["offset"], "memory_type": cl.String()}
		for _, op := range []string{"BIND", "DESTROY"} {
			args["operation"] = op
			r.wantOne(t, res.kind+" "+res.name+" "+op, args)
		}
		want[accounting.TrackName(false, cl)] += int64(res.num(t, "size"))
		want[accounting.TrackName(false, accounting.ClusterUnbound)] -= int64(res.num(t, "size"))
	}
}

func bindSetup(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the layer library; skipped with -short")
	}
}

// TestBindsOnLavapipe: vkBind*Memory2 batches, resources whose sizes the
// application only asked for with maintenance4's vkGetDevice*MemoryRequirements
// (the layer's bind-time query must find the same sizes), dedicated
// allocations (the whole allocation is its resource's from allocation on),
// and exported and imported memory marked in the trace; on lavapipe alone
// (the fallback path) and over the memdriver (the callback path, where the
// CREATE comes from the driver's ALLOCATE or IMPORT before the layer sees
// the allocate info: only the DESTROY carries the dedication and the export,
// the counters move when vkAllocateMemory returns).
func TestBindsOnLavapipe(t *testing.T) {
	bindSetup(t)
	t.Run("fallback", func(t *testing.T) { checkCore(t, runBindProg(t, vktest.Env(t, dmrLayer), "core"), false) })
	t.Run("callback", func(t *testing.T) { checkCore(t, runBindProg(t, vktest.DriverEnv(t, "", dmrLayer), "core"), true) })
}

func checkCore(t *testing.T, r *bindRun, callback bool) {
	unbound := accounting.TrackName(false, accounting.ClusterUnbound)
	want := map[string]int64{}
	if callback {
		want[accounting.TrackName(true, accounting.ClusterUnbound)] = memdriverDevice
	}
	resources := append(r.of("buffer"), r.of("image")...)
	for _, m := range r.of("memory") {
		args := map[string]string{"source": "DEVICE_MEMORY", "memory_object_id": u(m.num(t, "handle")),
			"object_handle": u(m.num(t, "handle")), "size": m.kv["size"], "offset": "0"}
		marks := map[string]string{}
		var owner *bindLine
		if kind, h, ok := strings.Cut(m.kv["dedicated"], ":"); ok {
			marks["dedicated_type"], marks["dedicated_handle"] = strings.ToUpper(kind), u(mustNum(t, h))
			for i := range resources {
				if resources[i].kv["handle"] == h {
					owner = &resources[i]
				}
			}
			if owner == nil {
				t.Fatalf("memory %s: dedicated resource %s not printed", m.name, h)
			}
		}
		if x := m.kv["external"]; x != "" {
			marks["external"], marks["handle_types"] = x, u(m.num(t, "handle_types"))
		}
		want[unbound] += int64(m.num(t, "size"))
		create := maps.Clone(args)
		create["operation"], create["memory_type"] = "CREATE", "unbound_memory"
		switch {
		case !callback:
			maps.Copy(create, marks)
		case marks["external"] == "IMPORTED":
			create["external"], create["handle_types"] = "IMPORTED", "0" // the callback's IMPORT
		}
		if owner == nil || callback {
			e := r.wantOne(t, "memory "+m.name+" CREATE", create)
			if _, ok := e.args["external"]; ok && create["external"] == "" {
				t.Errorf("memory %s: CREATE marked external: %v", m.name, e.args)
			}
		} else {
			// From its CREATE on, a dedicated allocation counts in its
			// resource's cluster: the counter rose by its size then.
			cl := cluster(t, *owner, uint32(m.num(t, "flags")))
			create["memory_type"] = cl.String()
			e := r.wantOne(t, "memory "+m.name+" CREATE", create)
			track := accounting.TrackName(false, cl)
			if before, after := r.counterAt(track, r.before(e)), r.counterAt(track, e.ts); after-before != int64(m.num(t, "size")) {
				t.Errorf("memory %s: %s went %d -> %d at its CREATE, want +%s", m.name, track, before, after, m.kv["size"])
			}
		}
		if owner != nil {
			// Its resource's bind moves no bytes: they were counted there.
			cl := cluster(t, *owner, uint32(m.num(t, "flags")))
			track := accounting.TrackName(false, cl)
			e := r.wantOne(t, owner.name+" BIND", map[string]string{"operation": "BIND", "object_handle": u(owner.num(t, "handle"))})
			if before, after := r.counterAt(track, r.before(e)), r.counterAt(track, e.ts); after != before {
				t.Errorf("%s: %s went %d -> %d at its BIND, want no change", owner.name, track, before, after)
			}
		}
		// Freed after its resource was destroyed: nobody's memory then.
		destroy := maps.Clone(args)
		maps.Copy(destroy, marks)
		destroy["operation"], destroy["memory_type"] = "DESTROY", "unbound_memory"
		e := r.wantOne(t, "memory "+m.name+" DESTROY", destroy)
		if _, ok := e.args["external"]; ok && marks["external"] == "" {
			t.Errorf("memory %s: DESTROY marked external: %v", m.name, e.args)
		}
	}
	checkWholeBinds(t, r, want)
	r.wantCounters(t, r.peak(), nonZero(want))
}

func mustNum(t *testing.T, s string) uint64 {
	t.Helper()
	v, err := strconv.ParseUint(s, 0, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func nonZero(m map[string]int64) map[string]int64 {
	out := map[string]int64{}
	for k, v := range m {
		if v != 0 {
			out[k] = v
		}
	}
	return out
}

// TestBindsSwapchain: swapchain images (and an application image bound to
// swapchain memory) are swapchain-owned: a BIND at vkGetSwapchainImagesKHR
// (once, although asked twice) and a DESTROY at vkDestroySwapchainKHR, size
// 0, memory_type "swapchain", in no counter; the summary lists them so. The
// framework forgets the images' names with their swapchain, with this layer
// alone and under DebugMarker (which then records the names): a second
// swapchain's images, which reuse the first one's handles on lavapipe (its
// own handle too), start unnamed.
func TestBindsSwapchain(t *testing.T) {
	bindSetup(t)
	for _, stack := range [][]string{{dmrLayer}, {dmLayer, dmrLayer}} {
		t.Run(strings.Join(stack, "+"), func(t *testing.T) {
			r := runBindProg(t, vktest.Env(t, stack...), "swapchain")
			images, recreated := r.of("swapchain_image"), r.of("recreated_image")
			if len(images) < 3 || len(recreated) < 2 {
				t.Fatalf("%d swapchain images and %d recreated printed, want the swapchain's (at least 2), the alias and the second swapchain's:\n%s",
					len(images), len(recreated), r.stdout)
			}
			lives := map[uint64]int{}    // lifetimes per handle: a reused handle has two
			named := map[uint64]string{} // the first swapchain's images
			for _, im := range append(images, recreated...) {
				h := im.num(t, "handle")
				lives[h]++
				if strings.HasPrefix(im.name, "backbuffer") {
					named[h] = im.name
				}
			}
			for _, im := range append(images, recreated...) {
				h := im.num(t, "handle")
				args := map[string]string{"source": "IMAGE", "memory_object_id": "0", "object_handle": u(h),
					"size": "0", "offset": "0", "memory_type": accounting.SwapchainMemoryType, "swapchain": u(im.num(t, "swapchain"))}
				for _, op := range []string{"BIND", "DESTROY"} {
					args["operation"] = op
					if got := len(r.matching(args)); got != lives[h] {
						t.Errorf("%s %s %#x: %d %s events, want %d", im.kind, im.name, h, got, op, lives[h])
					}
				}
			}
			want := map[string]int64{accounting.TrackName(false, accounting.ClusterUnbound): int64(r.memory(t, "sc.memory").num(t, "size"))}
			checkWholeBinds(t, r, want)
			r.wantCounters(t, r.peak(), want)

			sum := tracesummary.Summarize(r.trace)
			found, reused := 0, 0
			names := map[uint64][]string{}
			for _, o := range sum.Objects {
				if o.Cluster != accounting.SwapchainMemoryType {
					continue
				}
				found++
				if o.Type != "IMAGE" || o.Bytes != 0 || o.Destroyed < 0 {
					t.Errorf("summary lists swapchain image %+v", o)
				}
				names[o.Handle] = append(names[o.Handle], o.Name)
			}
			if found != len(images)+len(recreated) {
				t.Errorf("summary lists %d swapchain images, want %d", found, len(images)+len(recreated))
			}
			for h, name := range named {
				want := []string{name}
				if lives[h] == 2 {
					reused++
					want = []string{"", name} // the later image is unnamed
				}
				got := names[h]
				if slices.Sort(got); !slices.Equal(got, want) {
					t.Errorf("the summary names the images of handle %#x %q, want %q", h, got, want)
				}
			}
			if reused == 0 {
				t.Fatalf("no image of the second swapchain reuses a named image's handle: nothing tests that names end with their swapchain\n%s", r.stdout)
			}
			// Each named image is one lifetime slice, ended with its
			// swapchain; no image that reuses its handle is named so.
			wantQuery(t, r, `SELECT COUNT(*) AS slices, SUM(dur < 0) AS open FROM slice WHERE name LIKE 'backbuffer%'`,
				fmt.Sprintf("%d,0", len(named)))
		})
	}
}

// TestBindsMaintenance6 (memdriver maintenance6): of a failed
// vkBindBufferMemory2 only the binds whose VkBindMemoryStatus says
// VK_SUCCESS are recorded; of a failed vkBindImageMemory2 without statuses
// none is.
func TestBindsMaintenance6(t *testing.T) {
	bindSetup(t)
	r := runBindProg(t, vktest.DriverEnv(t, "maintenance6", dmrLayer), "maint6")
	if !strings.Contains(r.stdout, "bind_buffer_memory2 result=-2 statuses=0,-2,0\n") ||
		!strings.Contains(r.stdout, "bind_image_memory2 result=-2\n") {
		t.Fatalf("the driver did not fail the binds as expected:\n%s", r.stdout)
	}
	for _, l := range r.of("unbound") {
		if m := r.matching(map[string]string{"object_handle": u(l.num(t, "handle"))}); len(m) != 0 {
			t.Errorf("%s did not bind, yet: %v", l.name, m[0].args)
		}
	}
	if n := len(r.of("unbound")); n != 3 {
		t.Fatalf("%d unbound resources printed, want 3:\n%s", n, r.stdout)
	}
	want := map[string]int64{accounting.TrackName(false, accounting.ClusterUnbound): int64(r.memory(t, "m6.memory").num(t, "size")),
		accounting.TrackName(true, accounting.ClusterUnbound): memdriverDevice}
	checkWholeBinds(t, r, want)
	if n := len(r.of("buffer")); n != 2 {
		t.Fatalf("%d bound buffers printed, want 2", n)
	}
	r.wantCounters(t, r.peak(), want)
}

// TestBindsSparse (memdriver sparse): vkQueueBindSparse buffer ranges in two
// allocations, a rebind across both, an unbind and an opaque image range:
// what is bound after the last batch is exactly what the program printed.
func TestBindsSparse(t *testing.T) {
	bindSetup(t)
	r := runBindProg(t, vktest.DriverEnv(t, "sparse", dmrLayer), "sparse")
	// Ranges by (source, resource, resource offset, memory, offset); a
	// BIND of a bound range is its new size.
	type rng struct{ src, handle, key, mem, off string }
	live := map[rng]string{}
	// The second batch replaces ranges (DESTROY then BIND) and its last
	// operation, the unbind, rebinds the rest of a range: the state after
	// it is the state at the last BIND.
	var last uint64
	for _, e := range r.evs {
		if e.args["operation"] == "BIND" {
			last = e.ts
		}
	}
	for _, e := range r.evs {
		key, ok := e.args["resource_offset"]
		if !ok || e.ts > last {
			continue
		}
		k := rng{e.args["source"], e.args["object_handle"], key, e.args["memory_object_id"], e.args["offset"]}
		switch e.args["operation"] {
		case "BIND":
			live[k] = e.args["size"]
		case "DESTROY":
			delete(live, k)
		}
	}
	want := map[string]int64{accounting.TrackName(true, accounting.ClusterUnbound): memdriverDevice}
	for _, name := range []string{"sparse.a", "sparse.b"} {
		want[accounting.TrackName(false, accounting.ClusterUnbound)] += int64(r.memory(t, name).num(t, "size"))
	}
	ranges := r.of("range")
	for _, l := range ranges {
		src, cl := "BUFFER", accounting.ClusterComputeStorage
		if l.name == "sparse.image" {
			src, cl = "IMAGE", accounting.ClusterStaticTexture
		}
		k := rng{src, u(l.num(t, "handle")), l.kv["resource_offset"], u(r.memory(t, l.kv["memory"]).num(t, "handle")), l.kv["offset"]}
		if live[k] != l.kv["size"] {
			t.Errorf("range %+v not bound after the last batch; bound: %v", k, live)
		}
		want[accounting.TrackName(false, cl)] += int64(l.num(t, "size"))
		want[accounting.TrackName(false, accounting.ClusterUnbound)] -= int64(l.num(t, "size"))
	}
	if len(live) != len(ranges) || len(ranges) != 4 {
		t.Errorf("%d ranges bound, %d printed, want 4: %v", len(live), len(ranges), live)
	}
	// The image region bind of the last batch could not be sized (the
	// memdriver reports no sparse image requirements): no event, only the
	// opaque range's BIND and DESTROY.
	if m := r.matching(map[string]string{"object_handle": u(ranges[3].num(t, "handle"))}); len(m) != 2 {
		t.Errorf("%d events of the sparse image, want its opaque range's BIND and DESTROY", len(m))
	}
	r.wantCounters(t, last, want)
	// One object per resource in the summary, holding at most what was
	// bound at once (8 units of the buffer after each batch).
	units := r.of("unit")
	if len(units) != 1 {
		t.Fatalf("no unit printed:\n%s", r.stdout)
	}
	unit := mustNum(t, units[0].name)
	buf := u(ranges[0].num(t, "handle"))
	var objs []tracesummary.Object
	for _, o := range tracesummary.Summarize(r.trace).Objects {
		if u(o.Handle) == buf && o.Type == "BUFFER" {
			objs = append(objs, o)
		}
	}
	if len(objs) != 1 || objs[0].Bytes != 8*unit || objs[0].Final != 0 {
		t.Errorf("summary objects of the sparse buffer %+v, want one of %d bytes", objs, 8*unit)
	}
	// Lifetime slices: each range is a lifetime (the two of batch 1, the
	// rest of the second, the new range, the rest of the first after the
	// unbind); the first continues with a second slice when it shrinks.
	// All end with the buffer.
	wantQuery(t, r, `SELECT COUNT(DISTINCT EXTRACT_ARG(arg_set_id, 'debug.lifetime')) AS lives, COUNT(*) AS slices,
		SUM(dur < 0) AS open FROM slice WHERE name = 'sparse.buffer'`, "5,6,0")
}

// TestBindsVideoSession (memdriver video): memory bound to a video session's
// bindings is the session's (source VIDEO_SESSION, cluster video_session),
// released when the session is destroyed.
func TestBindsVideoSession(t *testing.T) {
	bindSetup(t)
	r := runBindProg(t, vktest.DriverEnv(t, "video", dmrLayer), "video")
	m := r.memory(t, "video.memory")
	want := map[string]int64{accounting.TrackName(false, accounting.ClusterUnbound): int64(m.num(t, "size")),
		accounting.TrackName(true, accounting.ClusterUnbound): memdriverDevice}
	binds := r.of("video")
	if len(binds) != 2 {
		t.Fatalf("%d video bindings printed, want the driver's 2:\n%s", len(binds), r.stdout)
	}
	for _, b := range binds {
		args := map[string]string{"source": "VIDEO_SESSION", "memory_object_id": u(m.num(t, "handle")),
			"object_handle": u(b.num(t, "handle")), "size": b.kv["size"], "offset": b.kv["offset"],
			"bind_index": b.kv["bind_index"], "memory_type": "video_session"}
		for _, op := range []string{"BIND", "DESTROY"} {
			args["operation"] = op
			r.wantOne(t, "video binding "+b.kv["bind_index"]+" "+op, args)
		}
		want[accounting.TrackName(false, accounting.ClusterVideoSession)] += int64(b.num(t, "size"))
		want[accounting.TrackName(false, accounting.ClusterUnbound)] -= int64(b.num(t, "size"))
	}
	r.wantCounters(t, r.peak(), want)
	// Each binding is a lifetime slice on a VkVideoSessionKHR track.
	wantQuery(t, r, `SELECT COUNT(*) AS slices, SUM(dur < 0) AS open FROM slice s JOIN track t ON s.track_id = t.id
		WHERE t.name = 'VkVideoSessionKHR'`, "2,0")
	for _, o := range tracesummary.Summarize(r.trace).Objects {
		if o.Type == "VIDEO_SESSION" && (o.Handle != binds[0].num(t, "handle") || o.Bytes != uint64(want[accounting.TrackName(false, accounting.ClusterVideoSession)])) {
			t.Errorf("summary lists the session as %+v", o)
		}
	}
}

// wantQuery runs sql on the run's trace in trace_processor and compares
// its one row with want (CSV).
func wantQuery(t *testing.T, r *bindRun, sql, want string) {
	t.Helper()
	res := perfettotools.Query(t, r.path, sql)
	if len(res.Rows) != 1 || strings.Join(res.Rows[0], ",") != want {
		t.Errorf("%s\n= %s, want %s", sql, res, want)
	}
}
