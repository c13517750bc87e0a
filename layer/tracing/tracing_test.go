package tracing

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/vkgen/vkgen/generated"
	"github.com/vkgen/vkgen/internal/perfettotools"
	"github.com/vkgen/vkgen/internal/vktest"
	"github.com/vkgen/vkgen/objectnames"
	"github.com/vkgen/vkgen/perfetto"
	"github.com/vkgen/vkgen/perfetto/decode"
	"github.com/vkgen/vkgen/perfetto/system"
)

// With no tracing service at the socket, Start returns at once, the
// producer keeps retrying in the background, and the file session works.
// (The fake service is internal to perfetto/system, so the connected case
// is tested there.)
func TestStartWithoutService(t *testing.T) {
	freshWarnings(t) // earlier tests' warnings would be replayed into the trace
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.pftrace")
	t.Setenv(system.EnvProducerSocket, filepath.Join(dir, "no-such.sock"))
	t.Setenv(EnvSystem, "")
	t.Setenv(EnvTraceFile, trace)

	if err := Start(); err != nil {
		t.Fatal(err)
	}
	if err := Start(); err != nil { // idempotent
		t.Fatal(err)
	}
	p := system.StartShared(system.Config{}) // the producer Start made
	if p == nil || p.Connected() {
		t.Fatalf("producer %v: want one, not connected", p)
	}
	if n := len(perfetto.Sessions()); n != 1 {
		t.Fatalf("%d sessions, want the file session only", n)
	}
	cat := perfetto.NewCategory("tracing.test")
	ev := perfetto.NewEventName("started")
	perfetto.Instant(cat, ev)
	if err := Flush(); err != nil {
		t.Fatal(err)
	}
	if err := perfetto.StopAll(); err != nil {
		t.Fatal(err)
	}
	p.Close()
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := decode.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	perfettotools.CheckStats(t, trace)
	if n := len(tr.Instants()); n != 1 || tr.Instants()[0].Event.Name != "started" {
		t.Errorf("trace holds %d instants, want the one emitted", n)
	}
}

// Runs after TestStartWithoutService: Start is once per process.
type nopOutput struct{}

func (nopOutput) Write(uint32, []byte) error { return nil }
func (nopOutput) Close() error               { return nil }

// A layer publishes names and replays state only between its first
// instance's creation and its last instance's destruction.
func TestPresenceFollowsInstances(t *testing.T) {
	t.Setenv("VK_VKGEN_PERFETTO_SYSTEM", "0")
	var mu sync.Mutex
	var seen []string
	var replays atomic.Int32
	p := &Presence{
		Names: objectnames.EmitterFunc(func(r objectnames.Record) {
			mu.Lock()
			seen = append(seen, r.Name)
			mu.Unlock()
		}),
		Replay: func(*perfetto.Emitter) { replays.Add(1) },
	}
	store := objectnames.Shared()
	t.Cleanup(store.Reset)
	name := func(n string) { store.SetName(1, generated.ObjectTypeBuffer, 0xB, n) }

	name("before") // not live: published by nobody
	s1, err := perfetto.StartSession("before", nopOutput{}, perfetto.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s1.Stop()
	if replays.Load() != 0 || p.Live() {
		t.Fatal("replayed before any instance")
	}

	p.InstanceCreated(nil) // replays into the session already running
	p.InstanceCreated(nil)
	if got := replays.Load(); got != 1 {
		t.Fatalf("%d replays after the first instance, want 1 (into the running session)", got)
	}
	name("two instances")
	p.InstanceDestroyed()
	name("one instance")
	s2, err := perfetto.StartSession("later", nopOutput{}, perfetto.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Stop()
	if got := replays.Load(); got != 2 {
		t.Fatalf("%d replays after a second session started, want 2", got)
	}
	p.InstanceDestroyed()
	name("gone")
	p.InstanceDestroyed() // unbalanced: harmless
	if p.Live() || objectnames.SharedHub().Len() != 0 {
		t.Fatal("still attached after the last instance")
	}
	s3, err := perfetto.StartSession("after", nopOutput{}, perfetto.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s3.Stop()
	if got := replays.Load(); got != 2 {
		t.Fatalf("replayed into a session started after the last instance (%d replays)", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"two instances", "one instance"}; len(seen) != 2 || seen[0] != want[0] || seen[1] != want[1] {
		t.Fatalf("published %q, want %q", seen, want)
	}
}

// traceProgram builds the Go program testdata/name and returns its command,
// set to trace to the returned file (no system backend).
func traceProgram(t *testing.T, name string) (*exec.Cmd, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a program; skipped with -short")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, name)
	build := exec.Command("go", "build", "-o", bin, "./testdata/"+name)
	build.Env = vktest.GoEnv()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	trace := filepath.Join(dir, "trace.pftrace")
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), EnvTraceFile+"="+trace, EnvSystem+"=0")
	return cmd, trace
}

// A process killed with naming calls still in the deferred-hook ring (no
// drain ran them) has their names in its trace file: the exit watcher writes
// the durable records as the name store would have published them, and
// only those.
func TestExitWritesPendingNames(t *testing.T) {
	cmd, trace := traceProgram(t, "exitnames")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("exitnames: %v, want death by SIGKILL\n%s", err, out)
	}
	tr, err := decode.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	perfettotools.CheckStats(t, trace)
	type name struct {
		typ    int32
		handle uint64
		name   string
	}
	want := []name{
		{9, 0x100, "named before tracing"},
		{9, 0x1000, "buffer a"},
		{9, 0x1001, "buffer b (debug marker)"},
		{1000011000, 0x1002, "callback (debug marker type 28)"}, // VK_OBJECT_TYPE_DEBUG_REPORT_CALLBACK_EXT
		{8, 0x1003, perfetto.Sanitize("bad \xff utf-8")},
		{9, 0x1004, perfetto.Sanitize(strings.Repeat("x", 5000))},
		{10, 0x1005, perfetto.Sanitize(strings.Repeat("y", 2<<20))},
		{9, 0x1006, ""},
	}
	var got []name
	var last uint64
	for _, p := range tr.ObjectNames() {
		n := p.ObjectName
		if n.Pid != uint32(cmd.Process.Pid) || n.Device != 0xd1 || p.ClockID != perfetto.ClockBoottime || p.Timestamp == 0 {
			t.Errorf("packet pid %d device %#x clock %d time %d, want pid %d device 0xd1 clock %d and a time",
				n.Pid, n.Device, p.ClockID, p.Timestamp, cmd.Process.Pid, perfetto.ClockBoottime)
		}
		if len(got) > 1 && p.Timestamp <= last {
			t.Errorf("%q at %d, not after the name before it (%d)", n.Name, p.Timestamp, last)
		}
		last = p.Timestamp
		got = append(got, name{n.ObjectType, n.Object, n.Name})
	}
	if !slices.Equal(got, want) {
		t.Fatalf("names in the trace:\n%+v\nwant\n%+v", got, want)
	}
	if first := tr.ObjectNames()[0].Timestamp; first < last {
		t.Errorf("the name recorded before tracing is at %d, before the end (%d)", first, last)
	}
}

// An application that calls exit(3) right after emitting (no
// vkDestroyInstance, well inside the 100 ms flush interval) still has the
// event in its trace: Start registered an exit handler.
func TestExitFlushes(t *testing.T) {
	cmd, trace := traceProgram(t, "exitprog")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("exitprog: %v\n%s", err, out)
	}
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := decode.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	perfettotools.CheckStats(t, trace)
	if ins := tr.Instants(); len(ins) != 1 || ins[0].Event.Name != "before-exit" {
		t.Fatalf("trace holds %d instants, want the one emitted before exit", len(ins))
	}
}
