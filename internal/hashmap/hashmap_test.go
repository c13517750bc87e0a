package hashmap

import (
	"maps"
	"math/rand/v2"
	"testing"
)

// key hashes to one of four values, so most keys collide.
type key struct{ a, b uint64 }

func (k key) Hash() uint64 { return (k.a ^ k.b) & 3 }

// TestMatchesGoMap applies random operations to a Map and a Go map and
// compares them after each.
func TestMatchesGoMap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var m Map[key, int]
	want := map[key]int{}
	for i := range 20000 {
		k := key{r.Uint64N(8), r.Uint64N(8)}
		old, had := want[k]
		var got int
		var gotHad bool
		switch r.IntN(5) {
		case 0, 1:
			m.Set(k, i)
			want[k] = i
			got, gotHad = old, had
		case 2:
			got, gotHad = m.Swap(k, i)
			want[k] = i
		case 3:
			m.Delete(k)
			delete(want, k)
			got, gotHad = old, had
		default:
			got, gotHad = m.Take(k)
			delete(want, k)
		}
		if got != old || gotHad != had {
			t.Fatalf("op %d: previous value of %v: %d, %v; want %d, %v", i, k, got, gotHad, old, had)
		}
		if v, ok := m.Get(k); v != want[k] || ok != (want[k] != 0 || hasKey(want, k)) {
			t.Fatalf("op %d: Get(%v) = %d, %v; want %d", i, k, v, ok, want[k])
		}
		if m.Len() != len(want) {
			t.Fatalf("op %d: Len %d, want %d", i, m.Len(), len(want))
		}
	}
	got := maps.Collect(m.All())
	if !maps.Equal(got, want) {
		t.Fatalf("All = %v, want %v", got, want)
	}
	for k := range m.All() { // deleting while iterating
		m.Delete(k)
	}
	if m.Len() != 0 {
		t.Fatalf("Len after deleting all = %d", m.Len())
	}
}

func hasKey(m map[key]int, k key) bool { _, ok := m[k]; return ok }

// wide is a key with a hash of its own choosing, for tables of thousands.
type wide struct{ a, weak uint64 }

func (k wide) Hash() uint64 {
	if k.weak != 0 {
		return k.a & 15 // long clusters: every probe path is exercised
	}
	return Mix(k.a)
}

// TestGrowShrinkAndWalkDeleting checks a table through growth to thousands
// of keys and back, with weak and good hashes: every key found after every
// hundredth change, All deleting some of the keys it yields (each key yielded
// once, the rest kept), and the table's size following the key count down.
func TestGrowShrinkAndWalkDeleting(t *testing.T) {
	for _, weak := range []uint64{0, 1} {
		r := rand.New(rand.NewPCG(3, weak))
		var m Map[wide, int]
		want := map[wide]int{}
		check := func(when string) {
			t.Helper()
			if m.Len() != len(want) {
				t.Fatalf("weak=%d %s: Len %d, want %d", weak, when, m.Len(), len(want))
			}
			for k, v := range want {
				if got, ok := m.Get(k); !ok || got != v {
					t.Fatalf("weak=%d %s: Get(%v) = %d, %v; want %d", weak, when, k, got, ok, v)
				}
			}
		}
		for round := range 3 {
			for i := range 3000 {
				k := wide{r.Uint64N(4000), weak}
				if r.IntN(4) == 0 {
					m.Delete(k)
					delete(want, k)
				} else {
					m.Set(k, i)
					want[k] = i
				}
				if i%100 == 0 {
					check("while changing")
				}
			}
			seen := map[wide]bool{}
			for k, v := range m.All() {
				if seen[k] {
					t.Fatalf("weak=%d: %v yielded twice", weak, k)
				}
				seen[k] = true
				if want[k] != v {
					t.Fatalf("weak=%d: All yielded %v=%d, want %d", weak, k, v, want[k])
				}
				if (k.a+uint64(round))%3 != 0 {
					m.Delete(k)
					delete(want, k)
				}
			}
			if len(seen) != len(want)+countDeleted(seen, want) {
				t.Fatalf("weak=%d: All yielded %d keys", weak, len(seen))
			}
			check("after deleting while walking")
		}
		for k := range m.All() {
			m.Delete(k)
		}
		if m.Len() != 0 || len(m.tags) > minSlots {
			t.Fatalf("weak=%d: emptied map keeps %d keys, %d slots", weak, m.Len(), len(m.tags))
		}
		for i := range 5000 {
			m.Set(wide{uint64(i), weak}, i)
		}
		for i := range 4990 {
			m.Delete(wide{uint64(i), weak})
		}
		if len(m.tags) > 128 {
			t.Fatalf("weak=%d: 10 keys left in %d slots", weak, len(m.tags))
		}
	}
}

func countDeleted(seen map[wide]bool, want map[wide]int) int {
	n := 0
	for k := range seen {
		if _, ok := want[k]; !ok {
			n++
		}
	}
	return n
}

// Clear empties the map and keeps its table: refilling it to the same size
// allocates nothing.
func TestClear(t *testing.T) {
	var m Map[wide, int]
	for i := range 1000 {
		m.Set(wide{uint64(i), 0}, i)
	}
	m.Clear()
	if m.Len() != 0 {
		t.Fatalf("Len %d after Clear", m.Len())
	}
	if _, ok := m.Get(wide{7, 0}); ok {
		t.Fatal("a key survived Clear")
	}
	allocs := testing.AllocsPerRun(10, func() {
		for i := range 1000 {
			m.Set(wide{uint64(i), 1}, i)
		}
		m.Clear()
	})
	if allocs != 0 {
		t.Errorf("refilling a cleared map allocated %v times", allocs)
	}
	var empty Map[wide, int]
	empty.Clear() // the zero value too
	// A map that once held many more keys than now gives the table back.
	for i := range 1000 {
		m.Set(wide{uint64(i), 2}, i)
	}
	m.Clear()
	m.Set(wide{1, 3}, 1)
	before := len(m.tags)
	m.Clear()
	if len(m.tags) >= before || len(m.tags) < minSlots {
		t.Errorf("a table of %d slots for one key cleared to %d, want fewer (at least %d)", before, len(m.tags), minSlots)
	}
	if _, ok := m.Get(wide{1, 3}); ok || m.Len() != 0 {
		t.Errorf("the key survived a Clear that shrank the table (Len %d)", m.Len())
	}
	m.Set(wide{4, 4}, 4)
	if v, ok := m.Get(wide{4, 4}); !ok || v != 4 {
		t.Error("a key set after a shrinking Clear is missing")
	}
}
