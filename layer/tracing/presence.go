package tracing

import (
	"sync"
	"unsafe"

	"github.com/vkgen/vkgen/objectnames"
	"github.com/vkgen/vkgen/perfetto"
)

// The layers' live name emitters write to trace sessions, so with none
// running they would skip every name: the shared hub does not call them
// then (a session that starts gets the stored names from the layers'
// replays).
func init() { objectnames.SharedHub().SetGate(perfetto.Enabled) }

// Presence publishes one layer while it has live instances: its live name
// emitter is attached to the shared name store (objectnames.SharedHub) and
// its session-start replay is registered with perfetto. Every layer of the
// project lives in the one library, which is loaded whenever any of them is
// enabled, so a layer must publish nothing until the loader has actually
// put it in an instance chain.
type Presence struct {
	Layer  string                  // the layer's name, whose settings apply (VK_LAYER_VKGEN_...)
	Names  objectnames.Emitter     // live emitter in the layer's own event format, to running sessions only
	Replay func(*perfetto.Emitter) // session-start replay of the layer's state

	mu   sync.Mutex
	live int      // instances created through the layer and not yet destroyed
	undo []func() // detach and unregister, while live > 0
}

// InstanceCreated counts a successful vkCreateInstance through the layer,
// whose VkInstanceCreateInfo is createInfo. Each one runs StartFor (which
// reads the settings again, the create info's included); the first one then
// attaches the name emitter and registers the replay, which replays into
// sessions already running: in that order a session misses no name.
func (p *Presence) InstanceCreated(createInfo unsafe.Pointer) {
	_ = StartFor(p.Layer, createInfo) // a refused trace file was logged; the layer works untraced
	p.mu.Lock()
	defer p.mu.Unlock()
	p.live++
	if p.live > 1 {
		return
	}
	if p.Names != nil {
		p.undo = append(p.undo, objectnames.SharedHub().Attach(p.Names))
	}
	if p.Replay != nil {
		p.undo = append(p.undo, perfetto.RegisterReplay(p.Replay))
	}
}

// InstanceDestroyed counts a vkDestroyInstance through the layer and flushes
// every session. After the last one the layer publishes nothing; the shared
// store keeps its names for layers still enabled and for a later instance.
func (p *Presence) InstanceDestroyed() {
	p.mu.Lock()
	if p.live > 0 {
		p.live--
		if p.live == 0 {
			for _, f := range p.undo {
				f()
			}
			p.undo = nil
		}
	}
	p.mu.Unlock()
	_ = Flush() // a failed session logged its error already
}

// Live reports whether the layer has a live instance.
func (p *Presence) Live() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.live > 0
}
