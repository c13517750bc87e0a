package tracing

// int vkgen_tracing_register_at_exit(void);
import "C"

import (
	"fmt"
	"os"

	_ "github.com/vkgen/vkgen/layer" // links vkgen_fork.c, whose mark exit.c checks
	"github.com/vkgen/vkgen/perfetto"
)

// registerAtExit makes exit(3) flush every session. Flush, not Stop: other
// exit handlers of the application may still make Vulkan calls that trace.
func registerAtExit() {
	if C.vkgen_tracing_register_at_exit() != 0 {
		fmt.Fprintln(os.Stderr, "vkgen: tracing: atexit registration failed; events of the last 100 ms before exit may be lost")
	}
}

//export vkgenTracingAtExit
func vkgenTracingAtExit() {
	defer func() { _ = recover() }() // never turn the application's exit into a crash
	_ = perfetto.FlushAll()
}
