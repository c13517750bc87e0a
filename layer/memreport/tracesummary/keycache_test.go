package tracesummary

import (
	"fmt"
	"reflect"
	"testing"
)

// The key cache changes no group: unnamed objects of colliding and
// repeating inputs, some folded into OtherNames once the groups are full,
// end in the groups (and the folded count) of a run that builds every key.
func TestKeyCache(t *testing.T) {
	run := func(cache bool) ([]Group, int) {
		strs := newInterner()
		o := newObjects(1, 20)
		buf, mem := strs.id("BUFFER"), strs.id("DEVICE_MEMORY")
		ts := uint64(0)
		for i := range 2000 {
			ts++
			src := buf
			if i%2 == 0 {
				src = mem
			}
			e := event{ts: ts, kind: evAlloc, op: opAdd, src: src, handle: uint64(i), mem: 7, size: uint64(64 << (i % 3)),
				clust: strs.id(fmt.Sprint("cluster", i%5)), site: strs.id(fmt.Sprint("site", i%3)), desc: strs.id(fmt.Sprint("desc", i%7))}
			if i%13 == 0 {
				e.site, e.desc = 0, 0
			}
			if i%17 == 0 {
				e.size = uint64(i) // sizes of their own: new keys after the groups are full
			}
			if !cache {
				o.keys = keyCache{}
			}
			o.at(ts)
			o.apply(&e, 0, strs)
			if i%2 == 0 { // grows: a new key for sized descriptors
				e.key, e.size = 1, 32
				o.apply(&e, 0, strs)
			}
			e.op = opRemove
			o.apply(&e, 0, strs)
			if i%2 == 0 {
				e.key = 0
				o.apply(&e, 0, strs)
			}
		}
		return o.list(), o.folded
	}
	want, wantFolded := run(false)
	got, folded := run(true)
	if wantFolded == 0 {
		t.Fatal("no key folded into OtherNames: the test covers too little")
	}
	if !reflect.DeepEqual(got, want) || folded != wantFolded {
		t.Errorf("with the cache: %d groups, %d folded; without: %d groups, %d folded", len(got), folded, len(want), wantFolded)
	}
}
