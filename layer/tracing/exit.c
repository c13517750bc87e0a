#include <stdlib.h>
#include "_cgo_export.h"
#include "../vkgen_fork.h"

/* Runs at exit(3) (and at dlclose, which never happens: the library is
 * NODELETE): hands every buffered event to the trace files, so an
 * application that exits without vkDestroyInstance loses nothing (other
 * ends: exitwatch.c). Not in a forked child: Go cannot run there, and the
 * buffers are the parent's. */
static void vkgen_tracing_at_exit(void) {
	if (vkgen_go_ok()) vkgenTracingAtExit();
}

int vkgen_tracing_register_at_exit(void) { return atexit(vkgen_tracing_at_exit); }
