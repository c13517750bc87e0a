package perfettotools

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Service is a private traced (tracebox traced) listening on sockets in its
// own temporary folder, stopped by its PID when the test ends.
type Service struct {
	Dir          string // the socket folder
	ProducerSock string
	ConsumerSock string
	bin          string
	cmd          *exec.Cmd
	exited       chan error
	log          lockedBuffer
}

// StartTraced starts traced and returns once its consumer socket accepts
// connections. The folder is short (UNIX socket paths are limited to 107
// bytes), under os.TempDir.
func StartTraced(t testing.TB) *Service {
	t.Helper()
	bin := BinDir(t)
	dir, err := os.MkdirTemp("", "pf")
	if err != nil {
		t.Fatal(err)
	}
	s := &Service{Dir: dir, bin: bin,
		ProducerSock: filepath.Join(dir, "p.sock"), ConsumerSock: filepath.Join(dir, "c.sock")}
	t.Cleanup(func() {
		s.Stop()
		os.RemoveAll(dir)
	})
	s.Start(t)
	return s
}

// Start (re)starts the service process on the same sockets, for tests that
// kill it mid-run.
func (s *Service) Start(t testing.TB) {
	t.Helper()
	s.cmd = exec.Command(filepath.Join(s.bin, "tracebox"), "traced")
	s.cmd.Env = append(os.Environ(), s.Env()...)
	s.cmd.Stdout, s.cmd.Stderr = &s.log, &s.log
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("tracebox traced: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- s.cmd.Wait() }()
	// traced has no readiness signal: wait until the consumer socket accepts.
	deadline := time.Now().Add(30 * time.Second)
	for {
		if c, err := net.Dial("unix", s.ConsumerSock); err == nil {
			c.Close()
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("tracebox traced exited at start: %v\n%s", err, s.log.String())
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("tracebox traced: consumer socket %s not ready after 30 s\n%s", s.ConsumerSock, s.log.String())
		}
	}
	s.exited = exited
}

// Env is the environment that points producers and the perfetto client at
// this service.
func (s *Service) Env() []string {
	return []string{"PERFETTO_PRODUCER_SOCK_NAME=" + s.ProducerSock, "PERFETTO_CONSUMER_SOCK_NAME=" + s.ConsumerSock}
}

// Stop ends the service with SIGKILL (by PID) and waits for it; a no-op when
// it is not running.
func (s *Service) Stop() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = syscall.Kill(s.cmd.Process.Pid, syscall.SIGKILL)
	<-s.exited
	s.cmd = nil
}

// Perfetto returns a command running the perfetto client (tracebox perfetto
// args...) against this service; the caller starts and waits for it.
func (s *Service) Perfetto(args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(s.bin, "tracebox"), append([]string{"perfetto"}, args...)...)
	cmd.Env = append(os.Environ(), s.Env()...)
	return cmd
}

// Log returns what the service printed so far, for failure messages.
func (s *Service) Log() string { return s.log.String() }

// lockedBuffer collects the service's output, written by exec's copying
// goroutines while tests read it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
