package objectnames

import (
	"cmp"
	"iter"
	"slices"
)

func compareKeys(a, b key) int {
	if c := cmp.Compare(a.typ, b.typ); c != 0 {
		return c
	}
	if c := cmp.Compare(a.handle, b.handle); c != 0 {
		return c
	}
	return cmp.Compare(a.dev, b.dev)
}

// sortedKeys snapshots every key, locking one shard at a time, in replay
// order: type ascending (as int32), then handle, then owning device.
func (s *Store) sortedKeys() []key {
	// Size the slice first so a large store is copied once, not regrown.
	keys := make([]key, 0, s.Len()+numShards)
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		for k := range sh.m.All() {
			keys = append(keys, k)
		}
		sh.mu.Unlock()
	}
	slices.SortFunc(keys, compareKeys)
	return keys
}

// EmitAll replays every current name to e (typically the emitter of one
// trace session that just started) in replay order: type ascending as int32,
// then handle, then owning device. It never emits removals, does not modify
// the store, and may run any number of times, concurrently with naming and
// with other replays. It returns the number of records emitted.
//
// Each record is emitted under its shard lock with the name current at that
// moment, so together with the live stream the last name delivered for an
// object is always its stored name (see the package doc for the exact
// guarantee). A nil e emits nothing.
func (s *Store) EmitAll(e Emitter) int {
	if e == nil {
		return 0
	}
	n := 0
	for _, k := range s.sortedKeys() {
		if s.shardOf(k).emitCurrent(k, e) {
			n++
		}
	}
	return n
}

// emitCurrent emits k's current record, if any, holding the shard lock; the
// deferred unlock keeps the shard usable if e panics.
func (sh *shard) emitCurrent(k key, e Emitter) bool {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	en, ok := sh.m.Get(k)
	if ok {
		e.EmitName(Record{Device: en.dev, Type: k.objectType(), Handle: k.handle, Name: en.name})
	}
	return ok
}

// All returns an iterator over a snapshot of every stored name in replay
// order. The snapshot is taken when iteration starts; no lock is held while
// the caller's loop body runs, so the body may use the store.
func (s *Store) All() iter.Seq[Record] {
	return func(yield func(Record) bool) {
		type item struct {
			k key
			e entry
		}
		var items []item
		for i := range s.shards {
			sh := &s.shards[i]
			sh.mu.Lock()
			for k, e := range sh.m.All() {
				items = append(items, item{k, e})
			}
			sh.mu.Unlock()
		}
		slices.SortFunc(items, func(a, b item) int { return compareKeys(a.k, b.k) })
		for _, it := range items {
			if !yield(Record{Device: it.e.dev, Type: it.k.objectType(), Handle: it.k.handle, Name: it.e.name}) {
				return
			}
		}
	}
}
