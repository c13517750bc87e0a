package perfetto

import (
	"runtime"
	"time"
)

// WaitForRoom is for an emitter that may wait, as the layers' drain of
// deferred hooks may (it runs off the application's threads, which the ring
// in front of it slows down instead): while a running session has a
// sequence past three quarters of its buffer (its output, a file or traced, fell behind),
// it wakes the session's flusher and waits for it, up to max, so that the
// events that follow fill the room the flusher made instead of being
// dropped. A session that stayed that full for max is not waited for again
// until it has caught up (a stuck output costs one wait, not one per
// event). With nothing that full it costs one atomic load per session. It
// reports whether it waited.
func WaitForRoom(max time.Duration) bool {
	p := active.Load()
	if p == nil {
		return false
	}
	waited := false
	for _, s := range *p {
		if s.high.Load() == 0 {
			if s.stalled.Load() { // caught up: waited for again when it falls behind
				s.stalled.Store(false)
			}
			continue
		}
		if s.stalled.Load() {
			continue
		}
		waited = true
		deadline := time.Now().Add(max)
		for i := 0; s.high.Load() > 0 && !s.closed.Load(); i++ {
			if !time.Now().Before(deadline) {
				s.stalled.Store(true)
				break
			}
			s.wake()
			if i < 16 {
				runtime.Gosched() // the flusher mostly needs a CPU, which this one can give
			} else {
				time.Sleep(min(time.Duration(i)*10*time.Microsecond, time.Millisecond))
			}
		}
	}
	return waited
}
