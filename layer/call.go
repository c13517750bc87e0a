package layer

/*
#include "vkgen_runtime.h"
*/
import "C"

import "unsafe"

// Call is one intercepted Vulkan call, given to editing pre hooks
// (func pre<Cmd>(c *layer.Call, <pointers to the parameters>) vk.Result) and
// to post hooks that take it first. It lives in C on the trampoline's stack:
// never keep it beyond the hook.
type Call C.struct_vkgen_call

// User is the value the call's pre hook stored with SetUser (0 when none).
func (c *Call) User() uintptr { return uintptr(c.user) }

// SetUser stores a value for the call's post hook.
func (c *Call) SetUser(v uintptr) { *(*uintptr)(unsafe.Pointer(&c.user)) = v }

// New returns a zeroed T in C memory that lives until the call returns to
// the application: what an editing pre hook passes down (a copy of a create
// info, structures chained into it) must not be Go memory, which the next
// layers would hold Go pointers into. nil when out of memory.
func New[T any](c *Call) *T {
	var zero T
	return (*T)(C.vkgen_arena_alloc((*C.struct_vkgen_call)(c), C.size_t(unsafe.Sizeof(zero))))
}

// Clone returns a copy of *v made by New (nil when v is nil or out of memory).
func Clone[T any](c *Call, v *T) *T {
	if v == nil {
		return nil
	}
	p := New[T](c)
	if p != nil {
		*p = *v
	}
	return p
}

// NewSlice returns n zeroed Ts in call memory (nil when out of memory).
func NewSlice[T any](c *Call, n int) []T {
	var zero T
	if n <= 0 {
		return nil
	}
	p := C.vkgen_arena_alloc((*C.struct_vkgen_call)(c), C.size_t(uintptr(n)*unsafe.Sizeof(zero)))
	if p == nil {
		return nil
	}
	return unsafe.Slice((*T)(p), n)
}

// CString returns s as a NUL-terminated string in call memory.
func CString(c *Call, s string) *byte {
	b := NewSlice[byte](c, len(s)+1)
	if b == nil {
		return nil
	}
	copy(b, s)
	return &b[0]
}
