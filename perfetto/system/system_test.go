package system

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vkgen/vkgen/perfetto"
	"github.com/vkgen/vkgen/perfetto/decode"
	"github.com/vkgen/vkgen/perfetto/system/internal/fakeservice"
)

const wait = 10 * time.Second

var (
	catMarker = perfetto.NewCategory("VulkanDebugMarker")
	catMemory = perfetto.NewCategory("VulkanDeviceMemoryReport")
	evName    = perfetto.NewEventName("VulkanObjectName")
	evAlloc   = perfetto.NewEventName("VulkanMemoryAllocation")
	anHandle  = perfetto.NewAnnotationName("object_handle")
	anName    = perfetto.NewAnnotationName("object_name")
	ctrUsage  = perfetto.NewCounterTrack("vulkan.mem.app.usage.test", perfetto.UnitSizeBytes)
	ctrMarked = perfetto.NewCounterTrackIn(catMarker, "vulkan.marker.test.count", perfetto.UnitCount)
	catExtra  = perfetto.NewCategory("system.test.extra", "registered by a layer, not in DefaultCategories")
)

// sockPath is short: t.TempDir paths can pass the 108-byte sun_path limit.
func sockPath(t testing.TB) string {
	dir, err := os.MkdirTemp("", "vkps")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return filepath.Join(dir, "p.sock")
}

type env struct {
	svc  *fakeservice.Service
	prod *Producer
	conn *fakeservice.Conn
	path string
}

func setup(t *testing.T, opts fakeservice.Options, cfg Config) *env {
	t.Helper()
	var logs bytes.Buffer
	old := SetLogOutput(&logs)
	t.Cleanup(func() { SetLogOutput(old) })
	e := &env{path: sockPath(t)}
	svc, err := fakeservice.Start(e.path, opts)
	if err != nil {
		t.Fatal(err)
	}
	e.svc = svc
	t.Cleanup(func() { svc.Close() })
	cfg.Socket = e.path
	cfg.MinBackoff, cfg.MaxBackoff = 10*time.Millisecond, 50*time.Millisecond
	e.prod = Start(cfg)
	t.Cleanup(func() { e.prod.Close() })
	if e.conn, err = svc.Next(wait); err != nil {
		t.Fatal(err)
	}
	return e
}

// waitFor polls a state condition of the code under test, up to wait.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(wait); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		runtime.Gosched()
	}
}

// replayNames registers a replay hook publishing n object names.
func replayNames(t *testing.T, n int) {
	unregister := perfetto.RegisterReplay(func(e *perfetto.Emitter) {
		for i := range n {
			e.VkObjectName(1, 9, uint64(0x1000+i), "replayed")
			e.Instant(catMemory, evName, perfetto.Uint(anHandle, uint64(0x1000+i)), perfetto.String(anName, "replayed"))
		}
	})
	t.Cleanup(unregister)
}

func decodeTrace(t *testing.T, raw []byte) *decode.Trace {
	t.Helper()
	tr, err := decode.Decode(raw)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	protoc(t, "decode", "Trace", "perfetto_trace.proto", raw) // the official schema reads it too
	return tr
}

// stopAndTrace stops data source id and returns the trace the fake service
// reassembled for every target buffer.
func stopAndTrace(t *testing.T, c *fakeservice.Conn, id uint64) []byte {
	t.Helper()
	if err := c.StopDataSource(id, wait); err != nil {
		t.Fatal(err)
	}
	raw, _, err := c.Trace()
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func checkClean(t *testing.T, c *fakeservice.Conn) {
	t.Helper()
	for _, err := range c.Errors() {
		t.Errorf("fake service saw: %v", err)
	}
	if b := c.Buffer(); b != nil {
		for p := range b.Pages() {
			if bm := b.Bitmap(p); bm != 0 {
				t.Errorf("page %d not free after the session: bitmap %#x", p, bm)
			}
		}
	}
}

func instants(tr *decode.Trace, name string) (n int, cats map[string]int) {
	cats = map[string]int{}
	for _, p := range tr.Instants() {
		if p.Event.Name == name {
			n++
			for _, c := range p.Event.Categories {
				cats[c]++
			}
		}
	}
	return n, cats
}

func TestEndToEnd(t *testing.T) {
	replayNames(t, 50)
	e := setup(t, fakeservice.Options{}, Config{ProducerName: "vkgen-test"})
	c := e.conn
	if in := c.InitRequest(); in.Name != "vkgen-test" || in.PageHint != 32<<10 || in.SizeHint != 4<<20 || in.ProducerSMB || in.FDReceived {
		t.Errorf("InitializeConnection = %+v", in)
	}
	d := c.Descriptor()
	if d.Name != "track_event" || !d.NotifyOnStart || !d.NotifyOnStop || !d.HandlesClear ||
		strings.Join(d.Categories, ",") != "VulkanDebugMarker,VulkanDeviceMemoryReport,system.test.extra" {
		t.Errorf("descriptor = %+v", d)
	}
	cfg := fakeservice.Config{TargetBuffer: 3, SessionID: 42, Disabled: []string{"*"}, Enabled: []string{"VulkanDevice*"}}
	if err := c.StartDataSource(1, cfg, wait); err != nil {
		t.Fatal(err)
	}
	if e.prod.Instances() != 1 || !e.prod.Connected() {
		t.Fatalf("instances %d connected %v", e.prod.Instances(), e.prod.Connected())
	}
	for i := range 300 {
		perfetto.Instant(catMemory, evAlloc, perfetto.Uint(anHandle, uint64(i)))
		perfetto.Instant(catMarker, evName, perfetto.Uint(anHandle, uint64(i))) // filtered out
		perfetto.VkObjectName(1, 9, uint64(0x5000+i), "live")                   // raw: never filtered
		perfetto.Counter(ctrUsage, int64(i))
		perfetto.Counter(ctrMarked, int64(i)) // filtered out with its category
		perfetto.Instant(catExtra, evName)    // not enabled: filtered out
	}
	if err := c.Flush([]uint64{1}, wait); err != nil {
		t.Fatal(err)
	}
	if err := c.Flush([]uint64{99}, wait); err != nil { // unknown instance: still acknowledged
		t.Fatal(err)
	}
	if err := c.StopDataSource(1, wait); err != nil {
		t.Fatal(err)
	}
	for _, target := range c.Writers() {
		t.Errorf("writer still registered after stop (target %d)", target)
	}
	raw, st, err := c.TraceOf(3)
	if err != nil {
		t.Fatal(err)
	}
	tr := decodeTrace(t, raw)
	if n, _ := instants(tr, "VulkanMemoryAllocation"); n != 300 {
		t.Errorf("%d VulkanMemoryAllocation events, want 300", n)
	}
	if n, cats := instants(tr, "VulkanObjectName"); n != 50 || cats["VulkanDebugMarker"] != 0 {
		t.Errorf("VulkanObjectName: %d events %v, want the 50 replayed, none of the disabled category", n, cats)
	}
	if n := len(tr.ObjectNames()); n != 350 {
		t.Errorf("%d raw object names, want 50 replayed + 300 live", n)
	}
	if s := tr.Counters()["vulkan.mem.app.usage.test"]; s == nil || len(s.Samples) != 300 || s.Track.ParentUUID != perfetto.ProcessTrackUUID() {
		t.Errorf("counter track: %+v", s)
	}
	if s := tr.Counters()[ctrMarked.Name()]; s != nil {
		t.Errorf("counter track of a disabled category recorded: %+v", s)
	}
	// The replay comes before any live event.
	seenLive := false
	for _, p := range tr.ObjectNames() {
		live := p.ObjectName.Name == "live"
		if !live && seenLive {
			t.Fatal("a replayed name after a live one")
		}
		seenLive = seenLive || live
	}
	if st.ChunksMoved == 0 {
		t.Error("no chunks moved")
	}
	checkClean(t, c)
	calls := strings.Join(c.Calls(), " ")
	for _, m := range requiredMethods {
		if !strings.Contains(calls, m) {
			t.Errorf("RPC %s never used; calls: %s", m, calls)
		}
	}
}

// The service's Flush and StopDataSource run the BeforeFlush hook first,
// so what it emits (a layer's deferred hooks) is in the flushed data.
func TestBeforeFlush(t *testing.T) {
	var n atomic.Int32
	BeforeFlush(func() {
		perfetto.Instant(catMemory, evAlloc, perfetto.Uint(anHandle, uint64(n.Add(1))))
	})
	t.Cleanup(func() { BeforeFlush(func() {}) })
	e := setup(t, fakeservice.Options{}, Config{ProducerName: "vkgen-test"})
	c := e.conn
	cfg := fakeservice.Config{TargetBuffer: 1, SessionID: 7, Enabled: []string{"*"}}
	if err := c.StartDataSource(1, cfg, wait); err != nil {
		t.Fatal(err)
	}
	if err := c.Flush([]uint64{1}, wait); err != nil {
		t.Fatal(err)
	}
	raw, _, err := c.TraceOf(1)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := instants(decodeTrace(t, raw), "VulkanMemoryAllocation"); got != 1 {
		t.Errorf("after Flush: %d events of the hook, want 1", got)
	}
	if err := c.StopDataSource(1, wait); err != nil {
		t.Fatal(err)
	}
	if raw, _, err = c.TraceOf(1); err != nil {
		t.Fatal(err)
	}
	if got, _ := instants(decodeTrace(t, raw), "VulkanMemoryAllocation"); got != 2 || n.Load() != 2 {
		t.Errorf("after StopDataSource: %d events, hook ran %d times; want 2 and 2", got, n.Load())
	}
}

func TestFragmentedPacket(t *testing.T) {
	e := setup(t, fakeservice.Options{}, Config{})
	if err := e.conn.StartDataSource(1, fakeservice.Config{}, wait); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("0123456789abcdef", perfetto.MaxStringLen/16) // > a 1020-byte chunk
	perfetto.Instant(catMemory, evName, perfetto.String(anName, big))
	if err := e.conn.StopDataSource(1, wait); err != nil {
		t.Fatal(err)
	}
	raw, st, err := e.conn.Trace()
	if err != nil {
		t.Fatal(err)
	}
	if st.Fragmented < 3 {
		t.Errorf("%d continuation fragments, want a 4 KiB packet spread over 5 chunks", st.Fragmented)
	}
	tr := decodeTrace(t, raw)
	found := false
	for _, p := range tr.Instants() {
		if a, ok := p.Event.Arg("object_name"); ok && a.Str == perfetto.Sanitize(big) {
			found = true
		}
	}
	if !found {
		t.Error("the fragmented event did not survive reassembly")
	}
	checkClean(t, e.conn)
}

// After ClearIncrementalState the service may have lost every earlier
// packet; what follows must decode on its own (the decoder rejects an iid
// used before its definition).
func TestClearIncrementalState(t *testing.T) {
	e := setup(t, fakeservice.Options{}, Config{})
	c := e.conn
	if err := c.StartDataSource(1, fakeservice.Config{}, wait); err != nil {
		t.Fatal(err)
	}
	perfetto.Instant(catMemory, evAlloc, perfetto.Uint(anHandle, 1))
	perfetto.Counter(ctrUsage, 1)
	if err := c.Flush([]uint64{1}, wait); err != nil {
		t.Fatal(err)
	}
	c.Discard() // the ring buffer wrapped
	if err := c.ClearIncrementalState([]uint64{1}); err != nil {
		t.Fatal(err)
	}
	if err := c.Flush([]uint64{1}, wait); err != nil { // ordered after the clear
		t.Fatal(err)
	}
	perfetto.Instant(catMemory, evAlloc, perfetto.Uint(anHandle, 2))
	perfetto.Counter(ctrUsage, 2)
	raw := stopAndTrace(t, c, 1)
	tr := decodeTrace(t, raw)
	if n, _ := instants(tr, "VulkanMemoryAllocation"); n == 0 {
		t.Error("no event after the clear")
	}
	if s := tr.Counters()["vulkan.mem.app.usage.test"]; s == nil || s.Samples[len(s.Samples)-1].Value != 2 {
		t.Errorf("counter descriptor not re-emitted after the clear: %+v", s)
	}
	cleared := false
	for _, p := range tr.Packets {
		cleared = cleared || p.SeqFlags&decode.SeqIncrementalStateCleared != 0
	}
	if !cleared {
		t.Error("no SEQ_INCREMENTAL_STATE_CLEARED packet after the clear")
	}
	checkClean(t, c)
}

func TestConcurrentInstances(t *testing.T) {
	replayNames(t, 10)
	e := setup(t, fakeservice.Options{}, Config{})
	c := e.conn
	if err := c.StartDataSource(1, fakeservice.Config{TargetBuffer: 1, Disabled: []string{"*"}, Enabled: []string{"VulkanDebugMarker"}}, wait); err != nil {
		t.Fatal(err)
	}
	perfetto.Instant(catMemory, evAlloc)
	if err := c.StartDataSource(2, fakeservice.Config{TargetBuffer: 2, Disabled: []string{"VulkanDebugMarker"}}, wait); err != nil {
		t.Fatal(err)
	}
	perfetto.Instant(catMarker, evName)
	perfetto.Instant(catMemory, evAlloc)
	if err := c.StopDataSource(1, wait); err != nil {
		t.Fatal(err)
	}
	perfetto.Instant(catMemory, evAlloc)
	if err := c.StopDataSource(2, wait); err != nil {
		t.Fatal(err)
	}
	for target, want := range map[uint32][2]int{1: {1, 10}, 2: {0, 10 + 2}} {
		raw, _, err := c.TraceOf(target)
		if err != nil {
			t.Fatal(err)
		}
		tr := decodeTrace(t, raw)
		nName, _ := instants(tr, "VulkanObjectName")
		nAlloc, _ := instants(tr, "VulkanMemoryAllocation")
		// Instance 1 records only VulkanDebugMarker: its one live marker
		// event; the replayed names are VulkanDeviceMemoryReport.
		if target == 1 && (nName != want[0] || nAlloc != 0 || len(tr.ObjectNames()) != want[1]) {
			t.Errorf("instance 1: %d names %d allocs %d raw", nName, nAlloc, len(tr.ObjectNames()))
		}
		if target == 2 && (nName != want[1]-2 || nAlloc != 2) {
			t.Errorf("instance 2: %d names %d allocs", nName, nAlloc)
		}
	}
	checkClean(t, c)
}

func TestProducerProvidedSMB(t *testing.T) {
	e := setup(t, fakeservice.Options{AcceptProducerSMB: true, PageSize: 32 << 10}, Config{ProducerSMB: true, SMBSizeHint: 256 << 10})
	c := e.conn
	if in := c.InitRequest(); !in.ProducerSMB || !in.FDReceived || !c.ProducerSMB() {
		t.Fatalf("producer buffer not passed/accepted: %+v", in)
	}
	if err := c.StartDataSource(1, fakeservice.Config{}, wait); err != nil {
		t.Fatal(err)
	}
	perfetto.Instant(catMemory, evAlloc, perfetto.Uint(anHandle, 7))
	raw := stopAndTrace(t, c, 1)
	if n, _ := instants(decodeTrace(t, raw), "VulkanMemoryAllocation"); n != 1 {
		t.Errorf("%d events", n)
	}
	checkClean(t, c)
}

// A service that stops reading chunks fills the buffer: events are dropped
// without blocking, counted, and the count is in the trace afterwards.
func TestFullBufferDrops(t *testing.T) {
	e := setup(t, fakeservice.Options{SMBSize: 8192}, Config{})
	c := e.conn
	if err := c.StartDataSource(1, fakeservice.Config{}, wait); err != nil {
		t.Fatal(err)
	}
	c.Pause()
	for i := range 2000 {
		perfetto.Instant(catMemory, evAlloc, perfetto.Uint(anHandle, uint64(i)))
	}
	if err := c.Flush([]uint64{1}, wait); err != nil {
		t.Fatal(err)
	}
	c.Resume()
	perfetto.Instant(catMemory, evAlloc, perfetto.Uint(anHandle, 1<<40))
	raw := stopAndTrace(t, c, 1)
	tr := decodeTrace(t, raw)
	s := tr.Counters()[perfetto.DroppedEventsName]
	if s == nil || len(s.Samples) == 0 || s.Samples[len(s.Samples)-1].Value == 0 {
		t.Fatalf("no loss report in the trace: %+v", s)
	}
	n, _ := instants(tr, "VulkanMemoryAllocation")
	if lost := s.Samples[len(s.Samples)-1].Value; n+int(lost) < 2001 {
		t.Errorf("%d events + %d reported lost < 2001 emitted", n, lost)
	}
	dropFlag := false
	for _, p := range tr.Packets {
		dropFlag = dropFlag || p.PreviousDropped
	}
	if !dropFlag {
		t.Error("no packet with previous_packet_dropped")
	}
	checkClean(t, c)
}

// A malformed frame ends the connection; the producer reconnects.
func TestMalformedFrameReconnects(t *testing.T) {
	e := setup(t, fakeservice.Options{}, Config{})
	if err := e.conn.SendRaw([]byte{0xff, 0xff, 0xff, 0x7f, 1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	c2, err := e.svc.Next(wait)
	if err != nil {
		t.Fatal(err)
	}
	<-e.conn.Done()
	if err := c2.SendRaw([]byte{3, 0, 0, 0, 0xff, 0xff, 0xff}); err != nil { // bad protobuf
		t.Fatal(err)
	}
	c3, err := e.svc.Next(wait)
	if err != nil {
		t.Fatal(err)
	}
	// A started instance proves the producer finished its third handshake.
	if err := c3.StartDataSource(1, fakeservice.Config{}, wait); err != nil {
		t.Fatal(err)
	}
	if n := e.prod.Connects(); n != 3 {
		t.Errorf("%d handshakes, want 3", n)
	}
}

// A service dying mid-session ends that instance without disturbing a file
// session; a restarted service gets a fresh replay.
func TestServiceDiesMidSession(t *testing.T) {
	replayNames(t, 5)
	var file bytes.Buffer
	fs, err := perfetto.StartSession("file", perfetto.WriterOutput(&file), perfetto.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := setup(t, fakeservice.Options{}, Config{})
	if err := e.conn.StartDataSource(1, fakeservice.Config{}, wait); err != nil {
		t.Fatal(err)
	}
	perfetto.Instant(catMemory, evAlloc)
	e.conn.Close()
	// Emit while the backend tears down and reconnects (the producer tears
	// the old connection down before it dials again).
	stop, emitted := make(chan struct{}), make(chan int)
	go func() {
		n := 0
		for ; n < 2000; n++ { // bounded: the file is decoded below
			select {
			case <-stop:
				emitted <- n
				return
			default:
				perfetto.Instant(catMemory, evAlloc)
				runtime.Gosched()
			}
		}
		<-stop
		emitted <- n
	}()
	c2, err := e.svc.Next(wait)
	close(stop)
	n := <-emitted
	if err != nil {
		t.Fatal(err)
	}
	if in := e.prod.Instances(); in != 0 {
		t.Errorf("%d instances left from the dead connection", in)
	}
	if err := c2.StartDataSource(1, fakeservice.Config{}, wait); err != nil {
		t.Fatal(err)
	}
	raw := stopAndTrace(t, c2, 1)
	if n := len(decodeTrace(t, raw).ObjectNames()); n != 5 {
		t.Errorf("reconnected instance got %d replayed names, want 5", n)
	}
	perfetto.Instant(catMemory, evAlloc)
	if err := fs.Stop(); err != nil {
		t.Fatal(err)
	}
	tr := decodeTrace(t, file.Bytes())
	if got, _ := instants(tr, "VulkanMemoryAllocation"); got != n+2 {
		t.Errorf("file session has %d events, want %d", got, n+2)
	}
}

func TestServiceAppearsLater(t *testing.T) {
	path := sockPath(t)
	var logs bytes.Buffer
	old := SetLogOutput(&logs)
	defer SetLogOutput(old)
	p := Start(Config{Socket: path, MinBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond})
	defer p.Close()
	waitFor(t, "two failed connection attempts", func() bool { return p.failedDials.Load() >= 2 })
	if p.Connected() {
		t.Fatal("connected to nothing")
	}
	svc, err := fakeservice.Start(path, fakeservice.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	if _, err := svc.Next(wait); err != nil {
		t.Fatal(err)
	}
}

func TestConfiguration(t *testing.T) {
	t.Setenv(EnvProducerSocket, "/x/prod.sock,vsock://1:2")
	if got := SocketPath(); got != "/x/prod.sock" {
		t.Errorf("SocketPath = %q", got)
	}
	t.Setenv(EnvProducerSocket, "")
	if got := SocketPath(); got != "/run/perfetto/traced-producer.sock" && got != "/tmp/perfetto-producer" {
		t.Errorf("default SocketPath = %q", got)
	}
}

// A service that accepts the connection and never answers: the handshake
// times out and is retried, the application's events and file sessions go
// on, and the exit-time Sync gives up within its bound.
func TestServiceNeverAnswers(t *testing.T) {
	path := sockPath(t)
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				close(accepted)
				return
			}
			accepted <- c // held open, never read or answered
		}
	}()
	var logs bytes.Buffer
	old := SetLogOutput(&logs)
	defer SetLogOutput(old)
	var file bytes.Buffer
	fs, err := perfetto.StartSession("file", perfetto.WriterOutput(&file), perfetto.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := Start(Config{Socket: path, Timeout: 20 * time.Millisecond, MinBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond})
	<-accepted
	<-accepted // a second attempt: the first one timed out
	for range 100 {
		perfetto.Instant(catMemory, evAlloc)
	}
	if p.Sync(50 * time.Millisecond) {
		t.Error("Sync succeeded with a service that never answers")
	}
	p.Close()
	if p.Connects() != 0 {
		t.Errorf("%d handshakes with a silent service", p.Connects())
	}
	if err := fs.Stop(); err != nil {
		t.Fatal(err)
	}
	if n, _ := instants(decodeTrace(t, file.Bytes()), "VulkanMemoryAllocation"); n != 100 {
		t.Errorf("file session has %d events, want 100", n)
	}
	ln.Close()
	for c := range accepted {
		c.Close()
	}
}
