// Package hashmap is a map keyed by small structs through a 64-bit hash the
// key computes itself. The runtime hashes a struct key byte by byte (most of
// the accounting's map time on the memory-event path); a uint64 key takes
// its fast path. Keys whose hashes collide are kept in an ordinary map, so
// the result is exact whatever the hash.
package hashmap

import "iter"

// Key is a comparable key with its own hash.
type Key interface {
	comparable
	Hash() uint64
}

type entry[K Key, V any] struct {
	k K
	v V
}

// Map is a map from K to V; the zero value is empty and ready to use.
type Map[K Key, V any] struct {
	m    map[uint64]entry[K, V]
	over map[K]V // keys whose hash another key holds in m
}

// Get returns the value of k and whether it is present.
func (t *Map[K, V]) Get(k K) (V, bool) {
	if e, ok := t.m[k.Hash()]; ok && e.k == k {
		return e.v, true
	}
	v, ok := t.over[k]
	return v, ok
}

// At returns the value of k, the zero value when absent.
func (t *Map[K, V]) At(k K) V {
	v, _ := t.Get(k)
	return v
}

// Set stores v for k.
func (t *Map[K, V]) Set(k K, v V) {
	h := k.Hash()
	if e, ok := t.m[h]; ok && e.k != k {
		if t.over == nil {
			t.over = map[K]V{}
		}
		t.over[k] = v
		return
	}
	if t.m == nil {
		t.m = map[uint64]entry[K, V]{}
	}
	t.m[h] = entry[K, V]{k, v}
	if t.over != nil {
		delete(t.over, k) // kept there while another key held h
	}
}

// Delete removes k.
func (t *Map[K, V]) Delete(k K) {
	h := k.Hash()
	if e, ok := t.m[h]; ok && e.k == k {
		delete(t.m, h)
		return
	}
	delete(t.over, k)
}

// Len is the number of keys.
func (t *Map[K, V]) Len() int { return len(t.m) + len(t.over) }

// All yields every key and value, in no particular order; the loop may
// delete the key it was given.
func (t *Map[K, V]) All() iter.Seq2[K, V] {
	return func(yield func(K, V) bool) {
		for _, e := range t.m {
			if !yield(e.k, e.v) {
				return
			}
		}
		for k, v := range t.over {
			if !yield(k, v) {
				return
			}
		}
	}
}

// Mix spreads x over 64 bits (splitmix64's finaliser); keys combine their
// fields with it.
func Mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}
