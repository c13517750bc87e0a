package vk

import (
	"iter"
	"unsafe"
)

// Chained is what every struct with an sType value implements.
type Chained interface{ StructureType() StructureType }

// MaxChainLength bounds every walk of a pNext chain, so a chain that loops
// back on itself ends instead of hanging the application.
const MaxChainLength = 1 << 12

// Chain yields the sType and address of every struct of the pNext chain
// starting at pNext, in order, at most MaxChainLength of them.
func Chain(pNext unsafe.Pointer) iter.Seq2[StructureType, unsafe.Pointer] {
	return func(yield func(StructureType, unsafe.Pointer) bool) {
		for n := 0; pNext != nil && n < MaxChainLength; n++ {
			s := (*BaseInStructure)(pNext)
			if !yield(s.SType, pNext) {
				return
			}
			pNext = unsafe.Pointer(s.PNext)
		}
	}
}

// Find returns the first struct of type T in the pNext chain starting at
// pNext, nil when the chain has none:
//
//	if f := vk.Find[vk.PhysicalDeviceVulkan12Features](ci.PNext); f != nil { ... }
func Find[T any, PT interface {
	*T
	Chained
}](pNext unsafe.Pointer) *T {
	want := PT(nil).StructureType()
	for st, p := range Chain(pNext) {
		if st == want {
			return (*T)(p)
		}
	}
	return nil
}
