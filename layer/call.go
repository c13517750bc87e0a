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

// Arena hands out zeroed memory: a Call's lives until the call returns to
// the application (tests may give Go memory).
type Arena interface {
	Alloc(n uintptr) unsafe.Pointer
}

// Alloc returns n zeroed bytes of C memory that live until the call returns
// to the application: what an editing pre hook passes down (a copy of a
// create info, structures chained into it) must not be Go memory, which the
// next layers would hold Go pointers into. nil when out of memory.
func (c *Call) Alloc(n uintptr) unsafe.Pointer {
	return C.vkgen_arena_alloc((*C.struct_vkgen_call)(c), C.size_t(n))
}

// New returns a zeroed T from a (nil when out of memory).
func New[T any](a Arena) *T {
	var zero T
	return (*T)(a.Alloc(unsafe.Sizeof(zero)))
}

// Clone returns a copy of *v made by New (nil when v is nil or out of memory).
func Clone[T any](a Arena, v *T) *T {
	if v == nil {
		return nil
	}
	p := New[T](a)
	if p != nil {
		*p = *v
	}
	return p
}

// NewSlice returns n zeroed Ts from a (nil when n is 0 or out of memory).
func NewSlice[T any](a Arena, n int) []T {
	var zero T
	if n <= 0 {
		return nil
	}
	p := a.Alloc(uintptr(n) * unsafe.Sizeof(zero))
	if p == nil {
		return nil
	}
	return unsafe.Slice((*T)(p), n)
}

// CString returns s as a NUL-terminated string from a.
func CString(a Arena, s string) *byte {
	b := NewSlice[byte](a, len(s)+1)
	if b == nil {
		return nil
	}
	copy(b, s)
	return &b[0]
}

// DispatchKey is the loader's dispatch key of a dispatchable handle (the
// first pointer-sized word of the object it points to): an instance and its
// physical devices share one, a device and its queues and command buffers
// another. 0 for a null handle.
func DispatchKey(handle uintptr) uintptr { return uintptr(C.vkgen_key_of(C.uintptr_t(handle))) }
