package layer

/*
#cgo CFLAGS: -O2 -fvisibility=hidden
#include "vkgen_runtime.h"
*/
import "C"

import (
	"fmt"
	"os"
	"runtime/debug"
	"sync/atomic"
	"unsafe"
)

// panics counts hook panics recovered since the process started.
var panics atomic.Int64

// Panics reports how many hook panics were recovered.
func Panics() int64 { return panics.Load() }

// Recover is deferred by every generated //export function (and should be by
// every goroutine a layer starts): it turns a panic in layer code into a
// "vkgen:" line on stderr so the call still reaches the driver. It must be
// deferred directly (`defer layer.Recover(...)`) for recover to see the panic.
func Recover(layerName, where string) {
	if r := recover(); r != nil {
		reportPanic(layerName, where, r)
	}
}

// reportPanic counts and prints a recovered panic, from the deferred call
// that recovered it.
func reportPanic(layerName, where string, r any) {
	panics.Add(1)
	fmt.Fprintf(os.Stderr, "vkgen: %s: recovered panic in %s: %v\n%s", layerName, where, r, debug.Stack())
}

// Go is `go f()` with the framework's panic recovery.
func Go(layerName, where string, f func()) {
	go func() {
		defer Recover(layerName, where)
		f()
	}()
}

//export vkgenGoStart
func vkgenGoStart() {
	// Called once from the C runtime at the first layer negotiation. Entering
	// Go here makes the runtime finish initialising (and install its SIGURG
	// handler) before the C side chains that handler; the deferred-hook ring
	// exists before the first call is recorded.
	startDeferred()
}

// CStringView returns the NUL-terminated C string at p as a Go string
// without copying (nil gives ""). The view is only valid while the C memory
// is, i.e. during the hook call: compare with it, and strings.Clone it before
// keeping it. It scans in Go, avoiding a Go->C call for strlen.
func CStringView(p unsafe.Pointer) string {
	if p == nil {
		return ""
	}
	n := 0
	for *(*byte)(unsafe.Add(p, n)) != 0 {
		n++
	}
	return unsafe.String((*byte)(p), n)
}

var libraryNote atomic.Pointer[func(string)]

// OnLibraryNote sets what receives the notice of a second copy of the layer
// library in the process that hands a layer over to this copy
// (vkgen_copies.c); without one the notice goes to stderr.
func OnLibraryNote(f func(msg string)) { libraryNote.Store(&f) }

//export vkgenLibraryNote
func vkgenLibraryNote(msg *C.char) {
	defer Recover("vkgen", "the notice of a second library copy")
	m := C.GoString(msg)
	if f := libraryNote.Load(); f != nil {
		(*f)(m)
		return
	}
	fmt.Fprintf(os.Stderr, "vkgen: %s\n", m)
}
