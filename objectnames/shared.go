package objectnames

import (
	"sync"
	"sync/atomic"
)

// Hub is an Emitter whose emitters are attached and detached while the
// store is in use, so that the layers of one process can share one Store
// and each publish names in its own format only while it is enabled.
// Emitting costs one atomic load; attaching and detaching copy the set.
type Hub struct {
	mu  sync.Mutex // serialises Attach and detach
	set atomic.Pointer[Emitters]
}

// EmitName forwards r to every attached emitter.
func (h *Hub) EmitName(r Record) {
	if p := h.set.Load(); p != nil {
		p.EmitName(r)
	}
}

// Attach adds e to the hub. The returned function detaches it; calling it
// more than once is harmless.
func (h *Hub) Attach(e Emitter) (detach func()) {
	if e == nil {
		return func() {}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	id := new(byte) // identity of this attachment: the same emitter may be attached twice
	next := append(Emitters{}, h.emitters()...)
	next = append(next, attached{e, id})
	h.set.Store(&next)
	var once sync.Once
	return func() { once.Do(func() { h.detach(id) }) }
}

func (h *Hub) detach(id *byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var next Emitters
	for _, e := range h.emitters() {
		if a, ok := e.(attached); !ok || a.id != id {
			next = append(next, e)
		}
	}
	h.set.Store(&next)
}

// Len reports how many emitters are attached.
func (h *Hub) Len() int { return len(h.emitters()) }

func (h *Hub) emitters() Emitters {
	if p := h.set.Load(); p != nil {
		return *p
	}
	return nil
}

// attached tags an emitter with the identity of its attachment.
type attached struct {
	Emitter
	id *byte
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
