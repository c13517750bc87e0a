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
	env = append(vktest.Env(t, layerName), tracing.EnvTraceFile+"="+trace, tracing.EnvSystem+"=0")
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
	const children = 12 // each of the 4 ways 3 times, with threads naming
	out := run(t, env, prog, "fork", fmt.Sprint(children))
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
	wantEach(t, names, "late-", 100)
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
			run(t, env, prog, "end", how, "2000")
			wantEach(t, readNames(t, trace), "end-", 2000)
		})
	}
}

// A Go host that returns from main without vkDestroyInstance ends with
// exit_group: no exit(3) handler runs and no thread survives, yet the trace
// holds every name, the last one set just before the return included: the
// exit watcher appends what was still buffered.
func TestGoHostReturnsFromMain(t *testing.T) {
	app := vktest.GoProgram(t, "./testdata/vkgoapp")
	_, env, trace := lifecycle(t)
	run(t, env, app, "-names", "2000")
	wantEach(t, readNames(t, trace), "go-", 2000)
}

// run runs a program to its end and to the end of its output, which the
// exit watcher holds open (it shares the descriptor table) until it has
// written the trace; a hang fails the test.
func run(t *testing.T, env []string, prog string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Env = env
	cmd.WaitDelay = runTimeout
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v (a hang is killed after %v)\n%s", filepath.Base(prog), args, err, runTimeout, out)
	}
	return out
}

// A process killed by a signal runs no exit handler, yet everything it
// emitted is in its trace: killed right after it has named its objects,
// while 4 threads go on naming, its trace holds all of them, and no event
// twice, once the exit watcher is done. The test waits for that by reading
// the program's output to its end.
func TestSignalDeathLosesNothing(t *testing.T) {
	for _, how := range []string{"kill", "abort"} {
		t.Run(how, func(t *testing.T) {
			prog, env, trace := lifecycle(t)
			const n = 2000
			ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
			defer cancel()
			cmd := exec.CommandContext(ctx, prog, "end", how, fmt.Sprint(n))
			cmd.Env = env
			stdin, stdout := startNamed(t, cmd, n)
			var err error
			if how == "kill" {
				err = cmd.Process.Signal(syscall.SIGKILL)
			} else {
				_, err = io.WriteString(stdin, "go\n")
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := stdout.SetReadDeadline(time.Now().Add(runTimeout)); err != nil {
				t.Fatal(err)
			}
			if _, err := io.Copy(io.Discard, stdout); err != nil {
				t.Fatalf("waiting for the end of the output (the exit watcher): %v", err)
			}
			want := map[string]syscall.Signal{"kill": syscall.SIGKILL, "abort": syscall.SIGABRT}[how]
			var ee *exec.ExitError
			if err := cmd.Wait(); !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != want {
				t.Fatalf("program ended with %v, want death by %v", err, want)
			}
			names := readNames(t, trace)
			wantEach(t, names, "end-", n)
			for name, c := range names {
				if c > 1 {
					t.Errorf("%q %d times", name, c)
				}
			}
		})
	}
}

// startNamed starts cmd, a program that names n objects, says "named N" and
// then waits for a line on the returned stdin; it returns once the program
// said so, with the rest of its output. The program is killed when the test
// ends.
func startNamed(t *testing.T, cmd *exec.Cmd, n int) (io.Writer, *os.File) {
	t.Helper()
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = w
	err = cmd.Start()
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); r.Close() })
	if line, err := bufio.NewReader(io.LimitReader(r, int64(len(fmt.Sprintf("named %d\n", n))))).ReadString('\n'); err != nil || line != fmt.Sprintf("named %d\n", n) {
		t.Fatalf("program said %q, %v", line, err)
	}
	return stdin, r
}
