#include <stdlib.h>
#include "_cgo_export.h"

/* Runs at exit(3) (and at dlclose, which never happens: the library is
 * NODELETE): hands every buffered event to the trace files, so an
 * application that exits without vkDestroyInstance loses nothing. */
static void vkgen_tracing_at_exit(void) { vkgenTracingAtExit(); }

int vkgen_tracing_register_at_exit(void) { return atexit(vkgen_tracing_at_exit); }
