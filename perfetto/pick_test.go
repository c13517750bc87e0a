package perfetto_test

import (
	"sync"
	"testing"
	"time"

	"github.com/vkgen/vkgen/perfetto"
)

// seqOutput counts the bytes written per sequence; writes wait for gate
// when it is not nil, having said so on entered when that is not nil.
type seqOutput struct {
	gate    chan struct{}
	entered chan struct{}
	mu      sync.Mutex
	bytes   map[uint32]int
}

func (o *seqOutput) Write(seq uint32, b []byte) error {
	if o.entered != nil {
		o.entered <- struct{}{}
	}
	if o.gate != nil {
		<-o.gate
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.bytes[seq] += len(b)
	return nil
}
func (o *seqOutput) Close() error { return nil }

// live lists the sequences other than the replay's (1) that got packets.
func (o *seqOutput) live() []uint32 {
	o.mu.Lock()
	defer o.mu.Unlock()
	var l []uint32
	for seq := range o.bytes {
		if seq != 1 {
			l = append(l, seq)
		}
	}
	return l
}

// One emitting goroutine keeps to one sequence while it has room (no flush
// runs meanwhile: the interval is an hour and the buffer stays below its
// wake mark).
func TestLoneEmitterKeepsToOneSequence(t *testing.T) {
	out := &seqOutput{bytes: map[uint32]int{}}
	s, err := perfetto.StartSession("one", out, perfetto.Options{Sequences: 4, FlushInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 1000 {
		emit3(uint64(i))
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if l := out.live(); len(l) != 1 {
		t.Errorf("events of one goroutine went to sequences %v, want one", l)
	}
}

// With the output stalled, a burst from one goroutine passes each full
// sequence over and fills the others before it drops anything: 4 sequences
// with a 4 KiB limit hold at least 32 KiB (each its buffer and a batch
// handed to the stalled flusher), one alone at most about 12 KiB (its
// buffer, the batch handed over and the one blocked in Write); the burst is
// about 25 KB.
func TestBurstFillsEverySequence(t *testing.T) {
	out := &seqOutput{gate: make(chan struct{}), bytes: map[uint32]int{}}
	s, err := perfetto.StartSession("burst", out, perfetto.Options{Sequences: 4, BufferBytes: 4096})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 500 {
		emit3(uint64(i))
	}
	close(out.gate)
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if d := s.Dropped(); d != 0 {
		t.Errorf("%d events dropped", d)
	}
	if l := out.live(); len(l) < 3 {
		t.Errorf("the burst went to sequences %v, want 3 or 4", l)
	}
}
