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
		switch r.IntN(3) {
		case 0, 1:
			m.Set(k, i)
			want[k] = i
		default:
			m.Delete(k)
			delete(want, k)
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
