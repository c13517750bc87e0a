package layer

import (
	"testing"
	"unsafe"
)

func TestRecoverCountsAndSwallowsPanics(t *testing.T) {
	before := Panics()
	func() {
		defer Recover("VK_LAYER_TEST", "hook")
		var m map[string]int
		//lint:ignore SA5000 the nil-map write is the runtime panic under test
		m["x"] = 1
	}()
	func() {
		defer Recover("VK_LAYER_TEST", "hook")
	}()
	if got := Panics() - before; got != 1 {
		t.Errorf("recovered %d panics, want 1", got)
	}
}

// A deferred hook's run ends in done, which recovers its panic and clears
// the running record either way.
func TestDeferredHookDoneRecovers(t *testing.T) {
	h := &deferredHook{layer: "VK_LAYER_TEST", name: "afterX"}
	before := Panics()
	func() {
		current = &Record{}
		defer h.done()
		panic("in a deferred hook")
	}()
	func() {
		current = &Record{}
		defer h.done()
	}()
	if got := Panics() - before; got != 1 {
		t.Errorf("recovered %d panics, want 1", got)
	}
	if current != nil {
		t.Error("current is still set after the hook ended")
	}
}

func TestCStringView(t *testing.T) {
	b := []byte("buf-A\x00tail")
	if got := CStringView(unsafe.Pointer(&b[0])); got != "buf-A" {
		t.Errorf("got %q", got)
	}
	e := []byte{0}
	if got := CStringView(unsafe.Pointer(&e[0])); got != "" {
		t.Errorf("empty: got %q", got)
	}
	if got := CStringView(nil); got != "" {
		t.Errorf("nil: got %q", got)
	}
}

// Now is the drain's time while it runs records (set per batch of them, or
// a record's own), else the event clock read at the call.
func TestNow(t *testing.T) {
	saved := clock
	defer func() { clock = saved; drainNow.Store(0) }()
	clock = func() uint64 { return 42 }
	if got := Now(); got != 42 {
		t.Fatalf("Now outside the drain = %d, want the clock's 42", got)
	}
	drainNow.Store(7)
	if got := Now(); got != 7 {
		t.Fatalf("Now while the drain runs = %d, want its 7", got)
	}
}
