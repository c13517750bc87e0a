// Package hashmap is a map keyed by small structs through a 64-bit hash the
// key computes itself: an open-addressing table with linear probing and
// backward-shift deletion, its entries inline. The runtime's map hashes a
// struct key byte by byte and even a uint64 key again; on the drain's paths
// (the name store, memreport's accounting and lifetimes: a few dozen lookups
// per application call) that hashing and the runtime's bookkeeping were most
// of the map time. Keys with equal hashes are told apart by ==, so the
// result is exact whatever the hash; a poor hash only costs probes.
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

// minSlots is the smallest table, kept when the map empties: a map that
// keeps going from one key to none and back allocates nothing.
const minSlots = 8

// Map is a map from K to V; the zero value is empty and ready to use. It
// grows past seven eighths full, as the runtime's map does, and unlike it
// shrinks below an eighth, so memory follows the number of keys after
// deletes. Probes read tags, eight to a cache line, and touch an entry only
// where its tag matches.
type Map[K Key, V any] struct {
	tags  []uint64 // the key's hash with bit 0 set; 0: empty
	ents  []entry[K, V]
	n     int
	shift uint8 // 64 - log2(len(tags))
	walks int   // All loops running: the table is not resized under them
}

func tagOf(h uint64) uint64 { return h | 1 }

// home is a tag's first slot: Fibonacci hashing spreads weak hashes (a
// counter, a handle's low bits) over the table.
func (t *Map[K, V]) home(tag uint64) int { return int((tag * 0x9e3779b97f4a7c15) >> t.shift) }

// find returns the slot of k and true, or the empty slot where the probe
// ended and false.
func (t *Map[K, V]) find(k K, tag uint64) (int, bool) {
	mask := len(t.tags) - 1
	for i := t.home(tag); ; i = (i + 1) & mask {
		switch t.tags[i] {
		case 0:
			return i, false
		case tag:
			if t.ents[i].k == k {
				return i, true
			}
		}
	}
}

// Get returns the value of k and whether it is present.
func (t *Map[K, V]) Get(k K) (V, bool) {
	if t.n != 0 {
		if i, ok := t.find(k, tagOf(k.Hash())); ok {
			return t.ents[i].v, true
		}
	}
	var zero V
	return zero, false
}

// At returns the value of k, the zero value when absent.
func (t *Map[K, V]) At(k K) V {
	v, _ := t.Get(k)
	return v
}

// Set sets the value of k.
func (t *Map[K, V]) Set(k K, v V) { t.Swap(k, v) }

// Swap sets the value of k and returns the one it replaced, if any: a Get
// and a Set in one probe.
func (t *Map[K, V]) Swap(k K, v V) (old V, had bool) {
	tag := tagOf(k.Hash())
	if t.tags == nil {
		t.resize(minSlots)
	}
	i, ok := t.find(k, tag)
	if ok {
		old, t.ents[i].v = t.ents[i].v, v
		return old, true
	}
	if (t.n+1)*8 > len(t.tags)*7 {
		t.resize(len(t.tags) * 2)
		i, _ = t.find(k, tag)
	}
	t.tags[i], t.ents[i] = tag, entry[K, V]{k, v}
	t.n++
	return old, false
}

// Delete removes k; absent keys are ignored.
func (t *Map[K, V]) Delete(k K) { t.Take(k) }

// Take removes k and returns its value, if it was present: a Get and a
// Delete in one probe.
func (t *Map[K, V]) Take(k K) (v V, had bool) {
	if t.n == 0 {
		return v, false
	}
	i, ok := t.find(k, tagOf(k.Hash()))
	if !ok {
		return v, false
	}
	v = t.ents[i].v
	t.n--
	// Backward shift: move the later entries of the cluster whose home is
	// not cyclically in (i, j] into the hole, so no probe stops early.
	mask := len(t.tags) - 1
	for j := (i + 1) & mask; t.tags[j] != 0; j = (j + 1) & mask {
		h := t.home(t.tags[j])
		if i <= j && i < h && h <= j || i > j && (i < h || h <= j) {
			continue
		}
		t.tags[i], t.ents[i] = t.tags[j], t.ents[j]
		i = j
	}
	t.tags[i], t.ents[i] = 0, entry[K, V]{}
	if t.walks == 0 {
		t.shrink()
	}
	return v, true
}

// shrink halves the table while it is under an eighth full.
func (t *Map[K, V]) shrink() {
	if n := t.fit(t.n); n != len(t.tags) {
		t.resize(n)
	}
}

// fit is the table size for n keys: the current one halved while n would
// fill under an eighth of it.
func (t *Map[K, V]) fit(n int) int {
	size := len(t.tags)
	for size > minSlots && n*8 < size {
		size /= 2
	}
	return size
}

// resize moves the entries into a table of n slots (a power of two).
func (t *Map[K, V]) resize(n int) {
	tags, ents := t.tags, t.ents
	t.alloc(n)
	for i, tag := range tags {
		if tag != 0 {
			j, _ := t.find(ents[i].k, tag)
			t.tags[j], t.ents[j] = tag, ents[i]
		}
	}
}

// alloc gives the map an empty table of n slots (a power of two).
func (t *Map[K, V]) alloc(n int) {
	t.tags, t.ents = make([]uint64, n), make([]entry[K, V], n)
	t.shift = 64
	for ; n > 1; n >>= 1 {
		t.shift--
	}
}

// Clear removes every key and keeps a table of the size those keys needed:
// a map refilled to about the same size allocates nothing, one that once
// held many more keys gives that memory back. Not while All runs.
func (t *Map[K, V]) Clear() {
	if t.n == 0 {
		return
	}
	size := t.fit(t.n)
	t.n = 0
	if size != len(t.tags) {
		t.alloc(size)
		return
	}
	clear(t.tags)
	clear(t.ents)
}

// Len returns the number of keys.
func (t *Map[K, V]) Len() int { return t.n }

// All yields every key and value in no particular order. The loop may
// delete the key just yielded, the only change allowed while it runs: the
// walk starts after an empty slot and goes backwards, so the entries a
// delete shifts back are ones already yielded, and none is yielded twice or
// missed. The table is not shrunk until the loop ends.
func (t *Map[K, V]) All() iter.Seq2[K, V] {
	return func(yield func(K, V) bool) {
		if t.n == 0 {
			return
		}
		t.walks++
		defer func() {
			if t.walks--; t.walks == 0 {
				t.shrink()
			}
		}()
		mask := len(t.tags) - 1
		start := 0
		for t.tags[start] != 0 {
			start++
		}
		for i := (start - 1) & mask; i != start; i = (i - 1) & mask {
			if t.tags[i] != 0 && !yield(t.ents[i].k, t.ents[i].v) {
				return
			}
		}
	}
}

// Spread is splitmix64's step, x advanced by its gamma and then mixed: 0
// and small numbers spread over 64 bits too (uuids made of counters).
func Spread(x uint64) uint64 { return Mix(x + 0x9e3779b97f4a7c15) }

// Mix is splitmix64's finaliser: a good 64-bit hash of a 64-bit value, for
// keys to build their Hash from.
func Mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}
