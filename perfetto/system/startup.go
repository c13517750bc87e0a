package system

import (
	"bytes"
	"os"
	"sync"
	"time"

	"github.com/vkgen/vkgen/perfetto"
)

// Startup-tracing defaults of the layers' producer.
const (
	DefaultStartupWindow = 10 * time.Second
	DefaultStartupBytes  = 4 << 20
	startupSeqBytes      = 64 << 10 // per sequence of the startup session
)

// startup is the startup-tracing buffer: a perfetto session recording into
// memory from the producer's start until the first data-source instance
// starts, whose trace then gets everything it holds, so the events a program
// emits before it reaches the service are not lost. Instances starting
// later within the window get the same events; when the window closes with
// no instance, the memory is released.
type startup struct {
	mu     sync.Mutex
	sess   *perfetto.Session // nil once the recording ended
	mem    *memOutput
	frozen []batch // the recording, once ended by the first instance
}

// startStartup starts the recording, only when a service socket exists:
// without one it would cost the application's threads for nothing.
func startStartup(cfg *Config) *startup {
	if cfg.StartupWindow <= 0 || cfg.StartupBytes <= 0 {
		return nil
	}
	if _, err := os.Stat(cfg.Socket); err != nil {
		return nil
	}
	st := &startup{mem: &memOutput{limit: cfg.StartupBytes}}
	opts := cfg.Session
	opts.OmitSequenceID, opts.BufferBytes, opts.CategoryFilter = true, startupSeqBytes, nil
	s, err := perfetto.StartSession("traced:startup", st.mem, opts)
	if err != nil {
		logf("startup tracing: %v", err)
		return nil
	}
	st.sess = s
	time.AfterFunc(cfg.StartupWindow, st.end)
	return st
}

// freeze ends the recording and returns it.
func (st *startup) freeze() []batch {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.sess != nil {
		st.sess.Stop()
		st.sess = nil
		st.frozen = st.mem.take()
		if n := st.mem.lostCount(); n > 0 {
			logf("startup tracing: %d packets beyond the %d-byte buffer were lost", n, st.mem.limit)
		}
	}
	return st.frozen
}

// end closes the window: no later instance gets the startup events.
func (st *startup) end() {
	st.freeze()
	st.mu.Lock()
	st.frozen = nil
	st.mu.Unlock()
}

// handTo writes the startup events into a starting instance's buffer, on
// writers of their own, after the instance's session started: events
// emitted between the two starts are in both rather than in neither. An
// instance whose category filter rejects a registered category gets none,
// since the recording is not filtered.
func (st *startup) handTo(c *conn, cfg dsConfig) {
	if st == nil {
		return
	}
	batches := st.freeze()
	if len(batches) == 0 || !newCatFilter(cfg.trackEvent).allowsAll() {
		return
	}
	o := newOutput(c, cfg)
	for _, b := range batches {
		o.Write(b.seq, b.b) // a full buffer is counted in SMBDropped
	}
	o.Close()
}

type batch struct {
	seq uint32
	b   []byte
}

// memOutput keeps a session's batches in memory up to limit bytes; later
// ones are dropped and counted.
type memOutput struct {
	mu      sync.Mutex
	batches []batch
	used    int
	limit   int
	lost    uint64
}

func (m *memOutput) Write(seq uint32, b []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.used+len(b) > m.limit {
		n := uint64(countPackets(b))
		m.lost += n
		return perfetto.LostPackets{N: n}
	}
	m.batches = append(m.batches, batch{seq, bytes.Clone(b)})
	m.used += len(b)
	return nil
}

func (m *memOutput) Close() error { return nil }

func (m *memOutput) take() []batch {
	m.mu.Lock()
	defer m.mu.Unlock()
	b := m.batches
	m.batches, m.used = nil, 0
	return b
}

func (m *memOutput) lostCount() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.lost
}
