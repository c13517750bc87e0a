package perfetto_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

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

// crashChild emits numbered events, says how many once a flush interval has
// certainly passed, then keeps emitting until it is killed.
func crashChild(path string) {
	if _, err := perfetto.StartFileSession(path, perfetto.Options{}); err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	const n = 5000
	for i := range n {
		perfetto.Instant(catTest, evCreate, perfetto.Uint(anHandle, uint64(i)))
	}
	time.Sleep(3 * perfetto.DefaultFlushInterval)
	fmt.Println("flushed", n)
	for i := n; ; i++ { // events after the flush point may be lost
		perfetto.Instant(catTest, evCreate, perfetto.Uint(anHandle, uint64(i)))
		time.Sleep(time.Millisecond)
	}
}

// TestCrashSafety: a child process is killed with SIGKILL; everything it
// emitted before the last flush point is in the file, which decodes.
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
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("child: %v", err)
	}
	var n int
	if _, err := fmt.Sscanf(line, "flushed %d", &n); err != nil {
		t.Fatalf("child said %q", line)
	}
	time.Sleep(20 * time.Millisecond) // a few post-flush events, possibly mid-buffer
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child did not die of SIGKILL: %v", err)
	}
	tr := decodeBoth(t, path)
	got := map[uint64]bool{}
	for _, p := range tr.Instants() {
		a, _ := p.Event.Arg("object_handle")
		got[a.Uint] = true
	}
	for i := range n {
		if !got[uint64(i)] {
			t.Fatalf("event %d (emitted before the flush point) missing; file has %d events", i, len(got))
		}
	}
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
	for _, p := range tr.Packets {
		if p.Event != nil && p.Event.Type == decode.TypeCounter && !p.PreviousDropped {
			t.Errorf("loss report without previous_packet_dropped")
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

// TestStartFromEnv covers the configuration paths and the refusals.
func TestStartFromEnv(t *testing.T) {
	logs := captureLog(t)
	dir := t.TempDir()
	t.Setenv(perfetto.EnvSettingsPath, filepath.Join(dir, "none"))

	t.Setenv(perfetto.EnvTraceFile, "")
	if s, err := perfetto.StartFromEnv(); s != nil || err != nil {
		t.Fatalf("unconfigured: %v %v", s, err)
	}

	t.Setenv(perfetto.EnvTraceFile, filepath.Join(dir, "t-%p.pftrace"))
	s, err := perfetto.StartFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := perfetto.StartFromEnv(); again != s {
		t.Error("second StartFromEnv started another session")
	}
	want := filepath.Join(dir, "t-"+strconv.Itoa(os.Getpid())+".pftrace")
	if s.Name() != want {
		t.Errorf("path %q, want %q", s.Name(), want)
	}
	perfetto.VkObjectName(1, 9, 2, "env")
	if err := perfetto.StopAll(); err != nil {
		t.Fatal(err)
	}
	if len(decodeBoth(t, want).ObjectNames()) != 1 {
		t.Error("env session lost the event")
	}

	// The file exists now: refused, logged, tracing stays off.
	if s, err := perfetto.StartFromEnv(); s != nil || err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("existing file: %v %v", s, err)
	}
	if perfetto.Enabled() {
		t.Error("tracing on after a refused start")
	}
	t.Setenv(perfetto.EnvTraceFile, filepath.Join(dir, "no-such-dir", "t.pftrace"))
	if s, err := perfetto.StartFromEnv(); s != nil || err == nil {
		t.Fatalf("unwritable path: %v %v", s, err)
	}
	if l := logs.String(); strings.Count(l, "vkgen: perfetto: trace file from "+perfetto.EnvTraceFile) != 2 || !strings.Contains(l, "tracing stays off") {
		t.Errorf("log: %q", l)
	}

	// vk_layer_settings.txt through VK_LAYER_SETTINGS_PATH (a directory).
	t.Setenv(perfetto.EnvTraceFile, "")
	settings := filepath.Join(dir, "vk_layer_settings.txt")
	trace := filepath.Join(dir, "from-settings-100%%.pftrace")
	if err := os.WriteFile(settings, []byte("# comment\nkhronos_validation.x = 1\n"+perfetto.SettingTraceFile+" = "+trace+"  # trailing\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(perfetto.EnvSettingsPath, dir)
	if p, src := perfetto.TraceFileSetting(); p != filepath.Join(dir, "from-settings-100%.pftrace") || src != settings {
		t.Fatalf("setting %q from %q", p, src)
	}
	s, err = perfetto.StartFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	decodeBoth(t, s.Name())
}

// TestTraceBufferSetting covers the buffer size from the environment and
// from vk_layer_settings.txt, and the refusal of bad values.
func TestTraceBufferSetting(t *testing.T) {
	logs := captureLog(t)
	dir := t.TempDir()
	t.Setenv(perfetto.EnvSettingsPath, dir)
	t.Setenv(perfetto.EnvTraceBufferKB, "")
	if n := perfetto.TraceBufferSetting(); n != 0 {
		t.Errorf("unset: %d", n)
	}
	if err := os.WriteFile(filepath.Join(dir, "vk_layer_settings.txt"), []byte(perfetto.SettingTraceBufferKB+" = 256\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if n := perfetto.TraceBufferSetting(); n != 256<<10 {
		t.Errorf("settings file: %d", n)
	}
	t.Setenv(perfetto.EnvTraceBufferKB, "8192")
	if n := perfetto.TraceBufferSetting(); n != 8<<20 {
		t.Errorf("env: %d", n)
	}
	for _, bad := range []string{"0", "-1", "1M", "4194305"} {
		t.Setenv(perfetto.EnvTraceBufferKB, bad)
		if n := perfetto.TraceBufferSetting(); n != 0 {
			t.Errorf("%q: %d", bad, n)
		}
	}
	if c := strings.Count(logs.String(), perfetto.SettingTraceBufferKB+" from "+perfetto.EnvTraceBufferKB); c != 4 {
		t.Errorf("%d log lines, want 4: %q", c, logs.String())
	}
}
