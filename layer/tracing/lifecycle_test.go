package tracing_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vkgen/vkgen/internal/vktest"
	"github.com/vkgen/vkgen/layer/tracing"
	"github.com/vkgen/vkgen/perfetto"
	"github.com/vkgen/vkgen/perfetto/decode"
	"github.com/vkgen/vkgen/perfetto/system"
)

// These tests run real programs through the real loader and lavapipe with
// VK_LAYER_VKGEN_DebugMarker enabled, which traces every object name, and
// check how each way a process can end leaves its trace.

const layerName = "VK_LAYER_VKGEN_DebugMarker"

// runTimeout bounds every program run: a hang fails the test instead of
// stalling it.
const runTimeout = 60 * time.Second

// lifecycle builds testdata/lifecycle.c and returns it with the environment
// of a traced run writing to a new trace file in a temporary directory.
func lifecycle(t *testing.T) (prog string, env []string, trace string) {
	t.Helper()
	prog = vktest.Program(t, "layer/tracing/testdata/lifecycle.c")
	trace = filepath.Join(t.TempDir(), "trace.pftrace")
	env = append(vktest.Env(t, layerName), tracing.EnvTraceFile+"="+trace, system.EnvSystem+"=0")
	return prog, env, trace
}

// readNames returns how often each object name occurs in a trace file.
func readNames(t *testing.T, trace string) map[string]int {
	t.Helper()
	tr, err := decode.ReadFile(trace)
	if err != nil {
		t.Fatalf("decode %s: %v", trace, err)
	}
	return objectNames(tr)
}

// objectNames returns how often each object name occurs in tr.
func objectNames(tr *decode.Trace) map[string]int {
	n := map[string]int{}
	for _, p := range tr.ObjectNames() {
		n[p.ObjectName.Name]++
	}
	return n
}

// wantEach fails unless the trace holds prefix0 .. prefix(n-1) exactly once each.
func wantEach(t *testing.T, names map[string]int, prefix string, n int) {
	t.Helper()
	missing, twice := 0, 0
	for i := range n {
		switch names[fmt.Sprintf("%s%d", prefix, i)] {
		case 0:
			missing++
		case 1:
		default:
			twice++
		}
	}
	if missing > 0 || twice > 0 {
		t.Errorf("of %d names %s*: %d missing, %d more than once", n, prefix, missing, twice)
	}
}

// A child forked while threads name objects ends cleanly whichever way it
// ends (it never enters the Go runtime, which does not survive fork), never
// writes the parent's buffered events, and a child that keeps calling Vulkan
// goes through the layers untraced. The parent's trace has every name
// exactly once.
func TestForkedChildren(t *testing.T) {
	prog, env, trace := lifecycle(t)
	const children = 20 // each of the 4 ways 5 times, with threads naming
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, "fork", fmt.Sprint(children))
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("lifecycle fork: %v (a hang is killed after %v)\n%s", err, runTimeout, out)
	}
	var named int
	if i := strings.Index(string(out), "named "); i < 0 {
		t.Fatalf("no count in output:\n%s", out)
	} else {
		fmt.Sscanf(string(out[i:]), "named %d", &named)
	}
	tr, err := decode.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	names := objectNames(tr)
	wantEach(t, names, "pre-", 100)
	total, dup := 0, 0
	for n, c := range names {
		if strings.HasPrefix(n, "child-") {
			t.Errorf("a forked child's name %q reached the parent's trace", n)
		}
		total += c
		if c > 1 {
			dup++
		}
	}
	// Events the tracing could not buffer are dropped and reported; the
	// rest must be there, once.
	var dropped int
	if d := tr.Counters()[perfetto.DroppedEventsName]; d != nil && len(d.Samples) > 0 {
		dropped = int(d.Samples[len(d.Samples)-1].Value)
	}
	if dup > 0 || total+dropped != named {
		t.Errorf("trace holds %d names (%d of them more than once) and reports %d dropped; the parent set %d", total, dup, dropped, named)
	}
}

// A C program that ends through exit(3) or by returning from main, without
// vkDestroyInstance, has every name in its trace: the exit handler flushes.
func TestExitWithoutDestroy(t *testing.T) {
	for _, how := range []string{"exit", "return"} {
		t.Run(how, func(t *testing.T) {
			prog, env, trace := lifecycle(t)
			ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
			defer cancel()
			cmd := exec.CommandContext(ctx, prog, "end", how, "2000")
			cmd.Env = env
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("lifecycle end %s: %v\n%s", how, err, out)
			}
			wantEach(t, readNames(t, trace), "end-", 2000)
		})
	}
}

// A process that dies of a signal runs no exit handler: what it emitted
// reaches the file within the flush interval (perfetto.DefaultFlushInterval)
// and stays there, decodable, whatever kills the process next. The test
// waits for the names on disk (the handshake: the program has named them
// all), then kills.
func TestSignalDeathKeepsFlushedEvents(t *testing.T) {
	for _, how := range []string{"kill", "abort"} {
		t.Run(how, func(t *testing.T) {
			prog, env, trace := lifecycle(t)
			const n = 2000
			ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
			defer cancel()
			cmd := exec.CommandContext(ctx, prog, "end", how, fmt.Sprint(n))
			cmd.Env = env
			stdin := startNamed(t, cmd, n)
			waitForNames(t, ctx, trace, "end-", n)
			var err error
			if how == "kill" {
				err = cmd.Process.Signal(syscall.SIGKILL)
			} else {
				_, err = io.WriteString(stdin, "go\n")
			}
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]syscall.Signal{"kill": syscall.SIGKILL, "abort": syscall.SIGABRT}[how]
			var ee *exec.ExitError
			if err := cmd.Wait(); !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != want {
				t.Fatalf("program ended with %v, want death by %v", err, want)
			}
			wantEach(t, readNames(t, trace), "end-", n)
		})
	}
}

// A Go host that returns from main without vkDestroyInstance ends with
// exit_group: no exit(3) handler runs, so what reached the trace file is what
// the periodic flush wrote. Everything older than the flush interval is there
// (the test waits for the names on disk before letting the host return), the
// host exits cleanly, and the file decodes. A name set just before the
// return may be lost: see docs/layers.md, "Process lifetime".
func TestGoHostReturnsFromMain(t *testing.T) {
	app := vktest.GoProgram(t, "./testdata/vkgoapp")
	_, env, trace := lifecycle(t)
	const n = 2000
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, app, "-names", fmt.Sprint(n))
	cmd.Env = env
	stdin := startNamed(t, cmd, n)
	waitForNames(t, ctx, trace, "go-", n)
	if _, err := io.WriteString(stdin, "return\n"); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("Go host: %v", err)
	}
	wantEach(t, readNames(t, trace), "go-", n)
}

// startNamed starts cmd, a program that names n objects, says "named N" and
// then waits for a line on the returned stdin; it returns once the program
// said so. The program is killed when the test ends.
func startNamed(t *testing.T, cmd *exec.Cmd, n int) io.Writer {
	t.Helper()
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != fmt.Sprintf("named %d\n", n) {
		t.Fatalf("program said %q, %v", line, err)
	}
	return stdin
}

// waitForNames polls the trace file until it holds prefix0..prefix(n-1),
// failing at ctx's deadline. The periodic flush writes them without any
// call from the application.
func waitForNames(t *testing.T, ctx context.Context, trace, prefix string, n int) {
	t.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if tr, err := decode.ReadFile(trace); err == nil {
			have := map[string]bool{}
			for _, p := range tr.ObjectNames() {
				have[p.ObjectName.Name] = true
			}
			all := true
			for i := 0; i < n && all; i++ {
				all = have[fmt.Sprintf("%s%d", prefix, i)]
			}
			if all {
				return
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s never held all %d names %s*", trace, n, prefix)
		case <-tick.C:
		}
	}
}
