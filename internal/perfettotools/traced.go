package perfettotools

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
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
	RelayAddr    string // TCP producer endpoint for traced_relay (StartTracedForRelay)
	bin          string
	args         []string
	cmd          *exec.Cmd
	exited       chan error
	log          LockedBuffer
}

// StartTraced starts traced (tracebox traced args...) and returns once its
// consumer socket accepts connections. The folder is short (UNIX socket
// paths are limited to 107 bytes), under os.TempDir.
func StartTraced(t testing.TB, args ...string) *Service {
	t.Helper()
	return StartTracedWith(t, "", args...)
}

// StartTracedWith is StartTraced with relayAddr, when not empty, as a
// second producer socket of traced (RelayAddr).
func StartTracedWith(t testing.TB, relayAddr string, args ...string) *Service {
	t.Helper()
	bin := BinDir(t)
	dir, err := os.MkdirTemp("", "pf")
	if err != nil {
		t.Fatal(err)
	}
	s := &Service{Dir: dir, bin: bin, args: args, RelayAddr: relayAddr,
		ProducerSock: filepath.Join(dir, "p.sock"), ConsumerSock: filepath.Join(dir, "c.sock")}
	t.Cleanup(func() {
		s.Stop()
		os.RemoveAll(dir)
	})
	s.Start(t)
	return s
}

// StartTracedForRelay starts traced with its relay endpoint also on a TCP
// socket of the loopback interface, for StartRelay: traced gives producers
// reaching it over TCP shared-memory emulation, as for a remote machine
// (over a UNIX socket it would pass memory the relay cannot forward).
func StartTracedForRelay(t testing.TB) *Service {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skipf("no loopback TCP: %v", err)
	}
	addr := l.Addr().String()
	l.Close() // traced binds it next; nothing else on this host picks a port it just used
	s := StartTracedWith(t, addr, "--enable-relay-endpoint")
	return s
}

// Start (re)starts the service process on the same sockets, for tests that
// kill it mid-run.
func (s *Service) Start(t testing.TB) {
	t.Helper()
	env := s.Env()
	if s.RelayAddr != "" {
		env = append(env, "PERFETTO_PRODUCER_SOCK_NAME="+s.ProducerSock+","+s.RelayAddr)
	}
	s.cmd, s.exited = startApplet(t, s.bin, append([]string{"traced"}, s.args...), env, s.ConsumerSock, &s.log)
}

// startApplet starts a tracebox applet with env added and waits until it
// accepts connections on sock (the applets have no readiness signal).
func startApplet(t testing.TB, bin string, args, env []string, sock string, log *LockedBuffer) (*exec.Cmd, chan error) {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "tracebox"), args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatalf("tracebox %s: %v", args[0], err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if c, err := net.Dial("unix", sock); err == nil {
			c.Close()
			return cmd, exited
		}
		select {
		case err := <-exited:
			t.Fatalf("tracebox %s exited at start: %v\n%s", args[0], err, log.String())
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("tracebox %s: socket %s not ready after 30 s\n%s", args[0], sock, log.String())
		}
	}
}

// Relay is a tracebox traced_relay forwarding the producers that connect to
// its own socket (in its own folder) to a Service, as on a second machine.
type Relay struct {
	ProducerSock string
	log          LockedBuffer
}

// StartRelay starts a relay to s (started by StartTracedForRelay); it is
// stopped by its PID when the test ends.
func (s *Service) StartRelay(t testing.TB) *Relay {
	t.Helper()
	dir, err := os.MkdirTemp("", "pr")
	if err != nil {
		t.Fatal(err)
	}
	r := &Relay{ProducerSock: filepath.Join(dir, "p.sock")}
	cmd, exited := startApplet(t, s.bin, []string{"traced_relay"},
		[]string{"PERFETTO_RELAY_SOCK_NAME=" + s.RelayAddr, "PERFETTO_PRODUCER_SOCK_NAME=" + r.ProducerSock}, r.ProducerSock, &r.log)
	t.Cleanup(func() {
		_ = syscall.Kill(cmd.Process.Pid, syscall.SIGKILL)
		<-exited
		os.RemoveAll(dir)
	})
	return r
}

// Env points producers at the relay.
func (r *Relay) Env() []string { return []string{"PERFETTO_PRODUCER_SOCK_NAME=" + r.ProducerSock} }

// Log returns what the relay printed so far.
func (r *Relay) Log() string { return r.log.String() }

// Env is the environment that points producers and the perfetto client at
// this service.
func (s *Service) Env() []string {
	return []string{"PERFETTO_PRODUCER_SOCK_NAME=" + s.ProducerSock, "PERFETTO_CONSUMER_SOCK_NAME=" + s.ConsumerSock}
}

// CPUTime is the CPU time (user and system) the running service process
// has used so far, from /proc at clock-tick resolution (10 ms); 0 when it
// cannot be read. Benchmarks report traced's share with it.
func (s *Service) CPUTime() time.Duration {
	if s.cmd == nil || s.cmd.Process == nil {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	// Fields after the parenthesised command name: state is field 3,
	// utime and stime are fields 14 and 15.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond // USER_HZ is 100 on Linux
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

// LockedBuffer is a bytes.Buffer safe for one writer and concurrent
// readers: a process's output written by exec's copying goroutines, or a
// session output, while a test reads it.
type LockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *LockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *LockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Bytes returns a copy of what was written so far.
func (l *LockedBuffer) Bytes() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return bytes.Clone(l.b.Bytes())
}
