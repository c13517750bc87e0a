package vk

import "unsafe"

// maxView bounds the counts the slice accessors of counted pointers
// (DeviceCreateInfo.QueueCreateInfos) believe: a larger one is garbage, and
// the accessor returns nil rather than a slice past any real allocation.
const maxView = 1 << 31

// view is the n elements at p as a slice over the memory p points to (C
// memory: valid while the call that handed it over runs); nil when p is
// nil, n is 0 or n is beyond maxView.
func view[T any, N ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr | ~int32 | ~int64](p *T, n N) []T {
	if p == nil || n <= 0 || uint64(n) > maxView {
		return nil
	}
	return unsafe.Slice(p, int(n))
}
