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
