package sql_test

import (
	"bufio"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/vkgen/vkgen/internal/vktest"
)

// TestModuleOnKilledProgram: a program ended by a signal runs no layer code
// at its end, so no leak event says what it still held. The summary, its
// HTML and the module list those objects, named, as alive at the end of the
// trace, and agree on them.
func TestModuleOnKilledProgram(t *testing.T) {
	t.Parallel()
	setup(t)
	prog := vktest.Program(t, "testdata/vksys/vksys.c")
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			trace := filepath.Join(t.TempDir(), "killed.pftrace")
			cmd := exec.Command(prog)
			cmd.Env = append(vktest.Env(t, dmLayer, dmrLayer), "VK_VKGEN_TRACE_FILE="+trace)
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Kill() })
			out := bufio.NewScanner(stdout)
			var pid int
			// "devices 1" creates a device after the buffers, which runs the
			// deferred hooks of every call before it: the events are then
			// in the trace session, which the exit watcher writes out.
			for _, c := range []string{"", "make 3", "devices 1"} {
				if c != "" {
					fmt.Fprintln(stdin, c)
				}
				if !out.Scan() {
					t.Fatalf("vksys ended early after %q: %v\n%s", c, out.Err(), stderr.String())
				}
				if c == "" {
					fmt.Sscanf(out.Text(), "ready pid=%d", &pid)
				}
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			for out.Scan() { // to the end of its output: the exit watcher is done then
			}
			var ee *exec.ExitError
			if err := cmd.Wait(); !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != sig {
				t.Fatalf("vksys ended with %v, want death by %v\n%s", err, sig, stderr.String())
			}
			sum := summary(t, trace)
			b := batch(t, trace)
			compare(t, b, sum)
			b.Run(t)
			if len(sum.Leaks) != 0 {
				t.Errorf("leak events %v: nothing ran at the end to report them", sum.Leaks)
			}
			var alive []string
			for _, l := range sum.AliveAtEnd {
				alive = append(alive, fmt.Sprintf("%s %s %s", l.Type, l.Name, l.At))
			}
			want := []string{fmt.Sprintf("DEVICE_MEMORY sysmem.%d.0 end of trace", pid)}
			for i := range 3 {
				want = append(want, fmt.Sprintf("BUFFER sys.%d.%d end of trace", pid, i))
			}
			if !slices.Equal(sorted(alive), sorted(want)) {
				t.Errorf("alive at the end: %q, want %q", alive, want)
			}
			text, page := sum.Text(), sum.HTML("killed")
			for _, w := range []string{"Alive at the end of the trace", fmt.Sprintf("sys.%d.2", pid), fmt.Sprintf("sysmem.%d.0", pid)} {
				if !strings.Contains(text, w) || !strings.Contains(page, w) {
					t.Errorf("%q missing from the text or the HTML:\n%s", w, text)
				}
			}
		})
	}
}
