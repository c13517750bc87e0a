package objectnames

import (
	"errors"
	"sync/atomic"
)

// MaxNames bounds the names a Store keeps: a program that names objects and
// never destroys them (a handle leak) must not grow the host without end.
// The bound is per shard (MaxNames / 64), so a store may refuse a little
// before it holds MaxNames. At about 90 bytes plus the name's own a name,
// a full store holds some 30 MB.
const MaxNames = 1 << 18

// ErrFull is returned (wrapped) for a new name a full store does not keep.
// The name was still emitted to the live emitter: running sessions record
// it, only replays and later lookups miss it.
var ErrFull = errors.New("objectnames: the store holds MaxNames names; a new one is not kept (objects named and never destroyed?)")

// limit counts the names a full store did not keep and tells onFull once.
type limit struct {
	refused atomic.Uint64
	onFull  atomic.Pointer[func()]
}

// Refused returns how many new names the store did not keep because it
// was full.
func (s *Store) Refused() uint64 { return s.limit.refused.Load() }

// OnFull registers f to be called once, the first time the store refuses a
// name, with no store lock held (layer/tracing reports it with Warn). A
// later call replaces f.
func (s *Store) OnFull(f func()) { s.limit.onFull.Store(&f) }

// refuse counts a refused name and runs onFull the first time.
func (s *Store) refuse() {
	if s.limit.refused.Add(1) == 1 {
		if f := s.limit.onFull.Load(); f != nil {
			(*f)()
		}
	}
}
