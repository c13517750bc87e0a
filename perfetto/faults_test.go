package perfetto_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/vkgen/vkgen/internal/perfettotools"
	"github.com/vkgen/vkgen/perfetto"
	"github.com/vkgen/vkgen/perfetto/decode"
)

const crashChildEnv = "VKGEN_PERFETTO_CRASH_CHILD"

func TestMain(m *testing.M) {
	if path := os.Getenv(crashChildEnv); path != "" {
		crashChild(path)
		return
	}
	os.Exit(m.Run())
}

// crashChild emits numbered events, says how many, emits a few more and
// waits to be killed. It never flushes: the session's periodic flush does.
func crashChild(path string) {
	if _, err := perfetto.StartFileSession(path, perfetto.Options{}); err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	const n = 5000
	for i := range n {
		perfetto.Instant(catTest, evCreate, perfetto.Uint(anHandle, uint64(i)))
	}
	fmt.Println("emitted", n)
	for i := n; i < n+100; i++ { // may still be buffered when the kill comes
		perfetto.Instant(catTest, evCreate, perfetto.Uint(anHandle, uint64(i)))
	}
	select {}
}

// TestCrashSafety: a child process is killed with SIGKILL once the periodic
// flush has written its first events (the test waits for them in the file);
// they are still there afterwards, in a file that decodes.
func TestCrashSafety(t *testing.T) {
	path := filepath.Join(t.TempDir(), "crash.pftrace")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+path)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("child: %v", err)
	}
	var n int
	if _, err := fmt.Sscanf(line, "emitted %d", &n); err != nil {
		t.Fatalf("child said %q", line)
	}
	firstN := func(data []byte) bool {
		tr, err := decode.Decode(data)
		return err == nil && len(handles(tr)) >= n
	}
	poll := time.NewTicker(10 * time.Millisecond)
	defer poll.Stop()
	timeout := time.After(time.Minute) // a bound for a hang, not a timing assumption
	for data, _ := os.ReadFile(path); !firstN(data); data, _ = os.ReadFile(path) {
		select {
		case <-timeout:
			t.Fatalf("the periodic flush never wrote the %d events", n)
		case <-poll.C:
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child did not die of SIGKILL: %v", err)
	}
	got := handles(decodeBoth(t, path))
	for i := range n {
		if !got[uint64(i)] {
			t.Fatalf("event %d (in the file before the kill) missing; file has %d events", i, len(got))
		}
	}
}

// handles returns the object_handle arguments of tr's instant events.
func handles(tr *decode.Trace) map[uint64]bool {
	got := map[uint64]bool{}
	for _, p := range tr.Instants() {
		a, _ := p.Event.Arg("object_handle")
		got[a.Uint] = true
	}
	return got
}

// gateOutput blocks writes until released, then records them.
type gateOutput struct {
	gate chan struct{}
	mu   sync.Mutex
	buf  bytes.Buffer
}

func (o *gateOutput) Write(_ uint32, b []byte) error {
	<-o.gate
	o.mu.Lock()
	defer o.mu.Unlock()
	o.buf.Write(b)
	return nil
}
func (o *gateOutput) Close() error { return nil }

// TestDropsAreCounted: with the output stalled, full buffers drop events;
// the total appears on the dropped-events counter with
// previous_packet_dropped, and kept + dropped = emitted.
func TestDropsAreCounted(t *testing.T) {
	out := &gateOutput{gate: make(chan struct{})}
	s, err := perfetto.StartSession("drops", out, perfetto.Options{BufferBytes: 4096, Sequences: 1})
	if err != nil {
		t.Fatal(err)
	}
	const n = 2000
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the first full buffer blocks in a write; later events drop
		defer wg.Done()
		for i := range n {
			perfetto.Instant(catTest, evCreate, perfetto.Uint(anHandle, uint64(i)))
		}
	}()
	wg.Wait()
	close(out.gate)
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "drops.pftrace")
	if err := os.WriteFile(path, out.buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	tr := decodeBoth(t, path)
	kept := len(tr.Instants())
	d := tr.Counters()[perfetto.DroppedEventsName]
	if s.Dropped() == 0 || d == nil || len(d.Samples) == 0 {
		t.Fatalf("no drops reported: session %d, track %+v", s.Dropped(), d)
	}
	last := d.Samples[len(d.Samples)-1].Value
	if uint64(last) != s.Dropped() || kept+int(last) != n || d.Track.Counter.Unit != int32(perfetto.UnitCount) {
		t.Errorf("kept %d + dropped %d (session says %d) != %d", kept, last, s.Dropped(), n)
	}
	// Each loss report follows the cleared header that carries the loss.
	lossHeader := map[uint32]bool{}
	for _, p := range tr.Packets {
		if p.SeqFlags&decode.SeqIncrementalStateCleared != 0 {
			lossHeader[p.SeqID] = p.PreviousDropped
		}
		if p.Event != nil && p.Event.Type == decode.TypeCounter && !lossHeader[p.SeqID] {
			t.Errorf("loss report %d not after a cleared header with previous_packet_dropped", p.Index)
		}
	}
}

// failOutput fails like a full disk after limit bytes.
type failOutput struct {
	n, limit int
	closed   bool
}

func (o *failOutput) Write(_ uint32, b []byte) error {
	if o.n+len(b) > o.limit {
		return fmt.Errorf("write trace: %w", syscall.ENOSPC)
	}
	o.n += len(b)
	return nil
}
func (o *failOutput) Close() error { o.closed = true; return nil }

func captureLog(t *testing.T) *bytes.Buffer {
	var b syncBuffer
	old := perfetto.SetLogOutput(&b)
	t.Cleanup(func() { perfetto.SetLogOutput(old) })
	return &b.Buffer
}

type syncBuffer struct {
	mu sync.Mutex
	bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.Buffer.Write(p)
}

// TestWriteErrorStopsSession: a full disk stops only that session, cleanly.
func TestWriteErrorStopsSession(t *testing.T) {
	logs := captureLog(t)
	out := &failOutput{limit: 1000}
	bad, err := perfetto.StartSession("full-disk", out, perfetto.Options{BufferBytes: 4096, Sequences: 1})
	if err != nil {
		t.Fatal(err)
	}
	good, goodPath := startFile(t, "good.pftrace", perfetto.Options{})
	for i := range 1000 {
		perfetto.Instant(catTest, evCreate, perfetto.Uint(anHandle, uint64(i)))
	}
	bad.Flush()
	if err := bad.Stop(); !errors.Is(err, syscall.ENOSPC) || !out.closed {
		t.Fatalf("Stop after disk full: %v (closed %v)", err, out.closed)
	}
	if !strings.Contains(logs.String(), "vkgen: perfetto: session full-disk: write trace: no space left on device; this trace session is stopped") {
		t.Errorf("log: %q", logs.String())
	}
	if ss := perfetto.Sessions(); len(ss) != 1 || ss[0] != good {
		t.Errorf("sessions after failure: %v", ss)
	}
	if err := good.Stop(); err != nil {
		t.Fatal(err)
	}
	if n := len(decodeBoth(t, goodPath).Instants()); n != 1000 {
		t.Errorf("healthy session got %d events", n)
	}
}

// TestTraceFileOwnerOnly: a trace holds the command line and every object
// name, so even under a permissive umask only the owner may read it.
func TestTraceFileOwnerOnly(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	s, path := startFile(t, "private.pftrace", perfetto.Options{})
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if m := st.Mode().Perm(); m != 0o600 {
		t.Errorf("trace file mode %#o under umask 0, want 0600", m)
	}
}

// TestIdleFileIsATrace: a trace file of a process that emits nothing (a
// program that only enumerates devices) holds the process's description
// from its start, so it is a trace readers accept, not an empty file.
func TestIdleFileIsATrace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "idle.pftrace")
	s, err := perfetto.StartFileSession(path, perfetto.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	if err := s.Flush(); err != nil { // exit(3) flushes, it does not stop
		t.Fatal(err)
	}
	tr, err := decode.ReadFile(path)
	if err != nil || len(tr.Packets) == 0 {
		t.Fatalf("idle trace: %v (%d packets)", err, len(tr.Packets))
	}
	perfettotools.CheckStats(t, path)
}
