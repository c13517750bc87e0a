package tracing

/*
#cgo CFLAGS: -fno-stack-protector -I${SRCDIR}/..
#include "exitwatch.h"
int vkgen_tracing_register_at_exit(void);
*/
import "C"

import (
	"fmt"
	"os"
	"sync"

	"github.com/vkgen/vkgen/layer" // also links vkgen_fork.c, whose mark exit.c checks
	"github.com/vkgen/vkgen/perfetto"
	"github.com/vkgen/vkgen/perfetto/system"
)

// registerAtExit makes exit(3) flush every session and hand the system
// producer's data to the service (bounded by system.ExitTimeout). Flush, not
// Stop: other exit handlers of the application may still make Vulkan calls
// that trace.
func registerAtExit() {
	if C.vkgen_tracing_register_at_exit() != 0 {
		fmt.Fprintln(os.Stderr, "vkgen: tracing: atexit registration failed; events of the last 100 ms before exit may be lost")
	}
}

var exitHooks struct {
	mu  sync.Mutex
	fns []func()
}

// OnExit registers fn to run when the process ends through exit(3) (or a
// return from a C main) while tracing, before the exit flush, so what it
// emits is in the trace: a layer reports there what the application never
// released. Other ends (the exit watcher's) run no Go code.
func OnExit(fn func()) {
	exitHooks.mu.Lock()
	exitHooks.fns = append(exitHooks.fns, fn)
	exitHooks.mu.Unlock()
}

//export vkgenTracingAtExit
func vkgenTracingAtExit() {
	defer func() { _ = recover() }() // never turn the application's exit into a crash
	layer.Drain()                    // the deferred hooks of the last calls emit first
	exitHooks.mu.Lock()
	fns := exitHooks.fns
	exitHooks.mu.Unlock()
	for _, fn := range fns {
		runExitHook(fn)
	}
	_ = perfetto.FlushAll()
	system.AtExit()
}

// runExitHook runs one hook; a panic in it skips only that hook.
func runExitHook(fn func()) {
	defer func() { _ = recover() }()
	fn()
}

var watchOnce sync.Once

// startExitWatch starts the exit watcher (exitwatch.c) when the first trace
// file starts: it appends what a process that ends without exit(3) had not
// written yet.
func startExitWatch() {
	watchOnce.Do(func() {
		if C.VKGEN_EXIT_SLOTS != perfetto.ExitSlots || C.vkgen_exit_watch(C.uintptr_t(uintptr(perfetto.ExitState()))) != 0 { // a global: never moves
			fmt.Fprintln(os.Stderr, "vkgen: tracing: no exit watcher; a process that ends without exit(3) may lose the events of its last 100 ms")
		}
	})
}
