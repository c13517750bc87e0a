package perfetto_test

import (
	"testing"
	"time"

	"github.com/vkgen/vkgen/perfetto"
)

// WaitForRoom costs nothing with no session or no full sequence, tries to
// wait for a sequence past 3/4 of its buffer, gives up on an output that
// stays stuck and then does not wait again while it stays full. Every
// buffer change is the test's: the flusher is held in a gated Write.
func TestWaitForRoom(t *testing.T) {
	if perfetto.WaitForRoom(time.Hour) {
		t.Fatal("waited with no session")
	}
	out := &seqOutput{gate: make(chan struct{}), entered: make(chan struct{}, 8), bytes: map[uint32]int{}}
	s, err := perfetto.StartSession("room", out, perfetto.Options{Sequences: 1, BufferBytes: 4096, FlushInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		close(out.gate)
		if err := s.Stop(); err != nil {
			t.Error(err)
		}
	}()
	if perfetto.WaitForRoom(time.Hour) {
		t.Fatal("waited for an empty session")
	}
	emit3(0)
	go s.Flush()
	<-out.entered       // a Write holds the flusher: no buffer changes hands now
	for i := range 85 { // past 3/4 of the buffer, short of its limit (about 43 bytes an event)
		emit3(uint64(i))
	}
	if !perfetto.WaitForRoom(0) {
		t.Fatal("did not try to wait for a sequence past three quarters of its buffer")
	}
	if perfetto.WaitForRoom(time.Hour) {
		t.Fatal("waited again for an output it gave up on")
	}
}

// An emitter that waits for room before each event loses none to a slow
// output, where the same events emitted at once overflow the buffer
// (TestBurstFillsEverySequence).
func TestWaitingEmitterDropsNothing(t *testing.T) {
	out := &seqOutput{gate: make(chan struct{}), bytes: map[uint32]int{}}
	s, err := perfetto.StartSession("waiting", out, perfetto.Options{Sequences: 1, BufferBytes: 4096, FlushInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 5000 { // about 250 KB: 60 buffers
			perfetto.WaitForRoom(time.Minute)
			emit3(uint64(i))
		}
	}()
	for open := true; open; { // the output takes one batch whenever asked
		select {
		case out.gate <- struct{}{}:
		case <-done:
			open = false
		}
	}
	close(out.gate)
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if n := s.Dropped(); n != 0 {
		t.Errorf("%d events dropped", n)
	}
}

// Buffers change hands with the flusher hundreds of times (a 4 KiB limit,
// the flusher woken at a quarter of it) and every event arrives intact and
// in order: a buffer the sequence takes back is prepared for writing
// (readyLocked) only once its batch was written.
func TestSwappedBuffersKeepEveryEvent(t *testing.T) {
	s, path := startFile(t, "swaps", perfetto.Options{Sequences: 1, BufferBytes: 4096})
	const n = 20000 // about 1 MB
	for i := range n {
		perfetto.WaitForRoom(time.Minute)
		emit3(uint64(i))
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if d := s.Dropped(); d != 0 {
		t.Fatalf("%d events dropped", d)
	}
	want := uint64(0)
	for _, p := range decodeBoth(t, path).Packets {
		if p.Event == nil || p.Event.Name != "vkCreateBuffer" {
			continue
		}
		a, _ := p.Event.Arg("object_handle")
		if a.Uint != 0x7f00_1234_0000+want {
			t.Fatalf("event %d: object_handle %#x, want %#x", want, a.Uint, 0x7f00_1234_0000+want)
		}
		want++
	}
	if want != n {
		t.Fatalf("%d events, want %d", want, n)
	}
	checkProcessorStats(t, path, 0)
}
