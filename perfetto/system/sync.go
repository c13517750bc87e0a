package system

import (
	"time"

	"github.com/vkgen/vkgen/perfetto/system/internal/ipc"
)

// ExitTimeout bounds how long AtExit may delay the application's exit.
const ExitTimeout = 500 * time.Millisecond

// AtExit hands everything the process-wide producer has to the service
// before the process exits (layers call it from their exit(3) handler, after
// perfetto.FlushAll). It returns at once when no producer runs or no
// service is reachable, and within ExitTimeout otherwise.
func AtExit() {
	sharedMu.Lock()
	p := shared
	sharedMu.Unlock()
	if p != nil {
		p.Sync(ExitTimeout)
	}
}

// Sync waits, at most timeout, until what was emitted so far is in the
// service's hands: a connection attempt in progress completes, a Sync round
// trip with the service makes every command it sent before (a session
// starting now) run here, every instance's session is flushed and the
// socket queue is written. It reports whether all of that happened in time.
func (p *Producer) Sync(timeout time.Duration) bool {
	deadline := time.After(timeout)
	select { // a producer started just now has not dialed yet
	case <-p.dialed:
	case <-deadline:
		return false
	}
	p.mu.Lock()
	c := p.conn
	p.mu.Unlock()
	if c == nil {
		return false
	}
	select {
	case <-c.up:
	case <-c.dead:
		return false
	case <-deadline:
		return false
	}
	done := c.sync()
	if done == nil {
		return false
	}
	select {
	case <-done:
		return true
	case <-c.dead:
	case <-deadline:
	}
	return false
}

// sync sends a Sync request; its channel closes once the reply came, the
// commands before it ran, the instances were flushed and the writer wrote
// all of it. Nil when the service has no Sync method.
func (c *conn) sync() chan struct{} {
	m, ok := c.methods[mSync]
	if !ok {
		return nil
	}
	done := make(chan struct{})
	id := c.reqID.Add(1)
	c.syncMu.Lock()
	c.syncs[id] = done
	c.syncMu.Unlock()
	f := ipc.Frame{RequestID: id, Kind: ipc.KindInvokeMethod, ServiceID: c.serviceID, MethodID: m}
	c.queueFrame(outFrame{b: ipc.Append(nil, &f), fd: -1})
	return done
}

func (c *conn) takeSync(id uint64) chan struct{} {
	c.syncMu.Lock()
	defer c.syncMu.Unlock()
	done := c.syncs[id]
	delete(c.syncs, id)
	return done
}
