package perfettotools

import (
	"os/exec"
	"runtime"
	"testing"
	"time"
)

// CPUTime reads a process's CPU time from /proc: a busy shell accumulates
// some, a service that is not running has none.
func TestCPUTime(t *testing.T) {
	if d := (&Service{}).CPUTime(); d != 0 {
		t.Errorf("no process: %v", d)
	}
	cmd := exec.Command("sh", "-c", "while :; do :; done")
	if err := cmd.Start(); err != nil {
		t.Skipf("no sh: %v", err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	s := &Service{cmd: cmd}
	for deadline := time.Now().Add(30 * time.Second); s.CPUTime() == 0; {
		if time.Now().After(deadline) {
			t.Fatal("a busy process shows no CPU time")
		}
		runtime.Gosched()
	}
}
