package perfettotools

import (
	"os"
	"strings"
	"syscall"
	"testing"
)

// Recording is a perfetto client running one tracing session.
type Recording struct {
	Out  string // the trace file
	pid  int
	log  LockedBuffer
	done chan error
}

// Record starts a tracing session with the text-format TraceConfig config,
// written to out, and returns once every data source of the session has
// started (perfetto --notify-fd): producers connected now have their
// instances running. It fails t if the session cannot start.
func (s *Service) Record(t testing.TB, config, out string) *Recording {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := s.Perfetto("--txt", "-c", "-", "-o", out, "--notify-fd", "3")
	cmd.Stdin = strings.NewReader(config)
	cmd.ExtraFiles = []*os.File{w}
	rec := &Recording{Out: out, done: make(chan error, 1)}
	cmd.Stdout, cmd.Stderr = &rec.log, &rec.log
	err = cmd.Start()
	w.Close()
	if err != nil {
		t.Fatalf("perfetto: %v", err)
	}
	rec.pid = cmd.Process.Pid
	go func() { rec.done <- cmd.Wait() }()
	t.Cleanup(func() { rec.kill() })
	status := make([]byte, 1)
	if n, _ := r.Read(status); n != 1 || status[0] != 0 {
		t.Fatalf("perfetto: the session did not start (status %v)\n%s\ntraced:\n%s", status[:n], rec.log.String(), s.Log())
	}
	return rec
}

// Stop ends the session as Ctrl-C does (SIGTERM: the client stops the
// session, which flushes every data source, and writes the trace) and
// waits for the trace to be written.
func (r *Recording) Stop(t testing.TB) {
	t.Helper()
	_ = syscall.Kill(r.pid, syscall.SIGTERM)
	r.Wait(t)
}

// Wait waits for the session to end by itself (duration_ms) and the trace
// to be written.
func (r *Recording) Wait(t testing.TB) {
	t.Helper()
	if err := <-r.done; err != nil {
		t.Fatalf("perfetto: %v\n%s", err, r.log.String())
	}
	r.done <- nil
	if st, err := os.Stat(r.Out); err != nil || st.Size() == 0 {
		t.Fatalf("perfetto wrote no trace to %s: %v\n%s", r.Out, err, r.log.String())
	}
}

// Abandon waits for a client whose service was killed to end.
func (r *Recording) Abandon() {
	r.done <- <-r.done
}

func (r *Recording) kill() {
	select {
	case err := <-r.done:
		r.done <- err
	default:
		_ = syscall.Kill(r.pid, syscall.SIGKILL)
	}
}
