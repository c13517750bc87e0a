// Package cmem allocates C memory for tests that read Go views (package
// layer/vk) over memory the Go runtime does not own, as a layer's hooks do.
// It is for tests only.
package cmem

// #include <stdlib.h>
import "C"

import "unsafe"

// Alloc returns n zeroed bytes of C memory (calloc); Free releases them.
func Alloc(n int) unsafe.Pointer { return C.calloc(1, C.size_t(n)) }

// Free releases memory from Alloc.
func Free(p unsafe.Pointer) { C.free(p) }
