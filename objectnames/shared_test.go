package objectnames

import (
	"slices"
	"sync"
	"testing"

	"github.com/vkgen/vkgen/generated"
)

func TestHubAttachDetach(t *testing.T) {
	var h Hub
	s := New(&h)
	var a, b recorder
	detachA := h.Attach(&a)
	s.SetName(1, generated.ObjectTypeBuffer, 10, "x")
	detachB := h.Attach(&b)
	s.SetName(1, generated.ObjectTypeBuffer, 10, "y")
	detachA()
	detachA() // harmless
	s.SetName(1, generated.ObjectTypeBuffer, 10, "z")
	detachB()
	s.SetName(1, generated.ObjectTypeBuffer, 10, "w")

	if got := names(a.take()); !slices.Equal(got, []string{"x", "y"}) {
		t.Errorf("a saw %q, want [x y]", got)
	}
	if got := names(b.take()); !slices.Equal(got, []string{"y", "z"}) {
		t.Errorf("b saw %q, want [y z]", got)
	}
	if h.Len() != 0 {
		t.Errorf("Len after detaching all = %d", h.Len())
	}
	if n, _ := s.Get(1, generated.ObjectTypeBuffer, 10); n != "w" {
		t.Errorf("stored %q, want w: the store keeps names with no emitter attached", n)
	}
}

func TestHubSameEmitterTwice(t *testing.T) {
	var h Hub
	var a recorder
	d1 := h.Attach(&a)
	d2 := h.Attach(&a)
	d1()
	h.EmitName(Record{Type: generated.ObjectTypeImage, Handle: 1, Name: "i"})
	if got := len(a.take()); got != 1 {
		t.Fatalf("after detaching one of two attachments, %d emissions, want 1", got)
	}
	d2()
	if h.Attach(nil)(); h.Len() != 0 {
		t.Fatal("attaching nil must be a no-op")
	}
}

// TestHubGate: a closed gate keeps names from the emitters (not from the
// store), and a replay then delivers the stored ones: what a trace session
// that starts later receives.
func TestHubGate(t *testing.T) {
	var h Hub
	s := New(&h)
	var a recorder
	h.Attach(&a)
	open := false
	h.SetGate(func() bool { return open })
	s.SetName(1, generated.ObjectTypeBuffer, 10, "closed")
	s.SetName(1, generated.ObjectTypeBuffer, 11, "gone")
	s.ObjectDestroyed(1, generated.ObjectTypeBuffer, 11)
	if got := a.take(); len(got) != 0 {
		t.Fatalf("closed gate emitted %v", got)
	}
	open = true
	s.EmitAll(&a) // a session that starts replays the store
	s.SetName(1, generated.ObjectTypeBuffer, 10, "open")
	if got := names(a.take()); !slices.Equal(got, []string{"closed", "open"}) {
		t.Errorf("after opening: %q, want [closed open]", got)
	}
	h.SetGate(nil)
	open = false
	s.SetName(1, generated.ObjectTypeBuffer, 10, "no gate")
	if got := names(a.take()); !slices.Equal(got, []string{"no gate"}) {
		t.Errorf("without a gate: %q, want [no gate]", got)
	}
}

// TestHubConcurrent attaches and detaches while names are emitted (-race).
func TestHubConcurrent(t *testing.T) {
	var h Hub
	s := New(&h)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 2000; i++ {
				s.SetName(uint64(g+1), generated.ObjectTypeBuffer, uint64(i+1), "n")
				s.ObjectDestroyed(uint64(g+1), generated.ObjectTypeBuffer, uint64(i+1))
			}
		}(g)
	}
	for i := 0; i < 200; i++ {
		var r recorder
		h.Attach(&r)()
	}
	wg.Wait()
	if h.Len() != 0 || s.Len() != 0 {
		t.Fatalf("hub %d emitters, store %d names; want 0, 0", h.Len(), s.Len())
	}
}

func TestSharedIsOneStore(t *testing.T) {
	if a, b := Shared(), Shared(); a != b || a == nil {
		t.Fatal("Shared must return one process-wide store")
	}
	var r recorder
	detach := SharedHub().Attach(&r)
	defer detach()
	defer Shared().Reset()
	Shared().SetName(7, generated.ObjectTypeBuffer, 70, "shared")
	if got := names(r.take()); !slices.Equal(got, []string{"shared"}) {
		t.Fatalf("shared hub saw %q", got)
	}
}

func names(recs []Record) []string {
	var out []string
	for _, r := range recs {
		out = append(out, r.Name)
	}
	return out
}
