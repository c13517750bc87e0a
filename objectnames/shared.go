package objectnames

import (
	"slices"
	"sync"
	"sync/atomic"
)

// Hub is an Emitter whose emitters are attached and detached while the
// store is in use, so that the layers of one process can share one Store
// and each publish names in its own format only while it is enabled.
// Emitting costs one atomic load and a call per attached emitter; attaching
// and detaching copy the set.
type Hub struct {
	mu   sync.Mutex // serialises Attach and detach
	set  atomic.Pointer[hubSet]
	gate atomic.Pointer[func() bool]
}

// hubSet is the attached emitters in order, each with the identity of its
// attachment (the same emitter may be attached twice).
type hubSet struct {
	es  Emitters
	ids []*byte
}

// EmitName forwards r to every attached emitter while the gate is open.
func (h *Hub) EmitName(r Record) {
	p := h.set.Load()
	if p == nil || len(p.es) == 0 {
		return
	}
	if g := h.gate.Load(); g != nil && !(*g)() {
		return
	}
	for _, e := range p.es {
		e.EmitName(r)
	}
}

// SetGate makes the hub emit only while open returns true (nil: always),
// for emitters that do nothing otherwise: those writing names to trace
// sessions, which skip every name while none runs (a session that starts
// gets the stored names from EmitAll). open is called for each change, with
// the shard lock held, and must be cheap.
func (h *Hub) SetGate(open func() bool) {
	if open == nil {
		h.gate.Store(nil)
		return
	}
	h.gate.Store(&open)
}

// Attach adds e to the hub. The returned function detaches it; calling it
// more than once is harmless.
func (h *Hub) Attach(e Emitter) (detach func()) {
	if e == nil {
		return func() {}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	id := new(byte)
	var next hubSet
	if p := h.set.Load(); p != nil {
		next = hubSet{slices.Clone(p.es), slices.Clone(p.ids)}
	}
	next.es, next.ids = append(next.es, e), append(next.ids, id)
	h.set.Store(&next)
	var once sync.Once
	return func() { once.Do(func() { h.detach(id) }) }
}

func (h *Hub) detach(id *byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	p := h.set.Load()
	if p == nil {
		return
	}
	var next hubSet
	for i, e := range p.es {
		if p.ids[i] != id {
			next.es, next.ids = append(next.es, e), append(next.ids, p.ids[i])
		}
	}
	h.set.Store(&next)
}

// Len reports how many emitters are attached.
func (h *Hub) Len() int {
	if p := h.set.Load(); p != nil {
		return len(p.es)
	}
	return 0
}

var (
	sharedHub   Hub
	sharedStore = New(&sharedHub)
)

// Shared returns the process-wide store that every layer of the process
// records into, so all of them agree on what each object is called. Its
// live emitter is SharedHub: a layer attaches its own emitter there while it
// is enabled.
func Shared() *Store { return sharedStore }

// SharedHub returns the live emitter of the Shared store.
func SharedHub() *Hub { return &sharedHub }
