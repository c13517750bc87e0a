package perfetto

import (
	"io"
	"testing"
	"time"
)

// A limited sequence's buffer is made for its limit when its first event
// comes, so filling it grows nothing; a limit past maxUpFront is not
// allocated up front.
func TestBuffersSizedUpFront(t *testing.T) {
	cat, ev := NewCategory("vkgen.test.buffers"), NewEventName("BufferTestInstant")
	arg := NewAnnotationName("i")
	for _, limit := range []int{64 << 10, 1 << 30} {
		s, err := StartSession("buffers", WriterOutput(io.Discard), Options{BufferBytes: limit, Sequences: 1, FlushInterval: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		q := s.seqs[0]
		Instant(cat, ev, Uint(arg, 0))
		q.mu.Lock()
		first := cap(q.buf)
		q.mu.Unlock()
		if want := min(limit, maxUpFront) * 5 / 4; first != want {
			t.Errorf("limit %d: first buffer holds %d bytes, want %d", limit, first, want)
		}
		for i := range 1000 { // about 20 KiB, under the wake mark of either
			Instant(cat, ev, Uint(arg, uint64(i)))
		}
		q.mu.Lock()
		if cap(q.buf) != first {
			t.Errorf("limit %d: buffer grew from %d to %d bytes", limit, first, cap(q.buf))
		}
		q.mu.Unlock()
		if err := s.Stop(); err != nil {
			t.Fatal(err)
		}
	}
}
