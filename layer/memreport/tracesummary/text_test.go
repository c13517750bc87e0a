package tracesummary

import (
	"fmt"
	"strings"
	"testing"
)

// TestTextListsAreBounded: a sub-allocator's block of 150 bindings and a
// program leaving 150 objects alive give the text maxRows lines of each
// list and a line on the rest, not one line per object.
func TestTextListsAreBounded(t *testing.T) {
	const n = maxRows + 50
	var s Summary
	k := Block{Handle: 0xb10c, Size: 2 * n * 4096, FreedNS: -1}
	for i := range uint64(n) {
		k.Ranges = append(k.Ranges, Range{Offset: 2 * i * 4096, Size: 4096, Type: "BUFFER", Handle: 0x1000 + i, Name: fmt.Sprintf("range%d", i)})
		k.Holes = append(k.Holes, Hole{Offset: (2*i + 1) * 4096, Size: 4096, Kind: "free"})
		s.Leaks = append(s.Leaks, Leak{Name: fmt.Sprintf("leak%d", i), Type: "BUFFER", Handle: 0x2000 + i, Bytes: 4096})
		s.AliveAtEnd = append(s.AliveAtEnd, Leak{Name: fmt.Sprintf("alive%d", i), Type: "BUFFER", Handle: 0x3000 + i, Bytes: 4096})
	}
	k.Overlaps = []Hole{{Offset: 0, Size: 16}}
	s.Blocks = []Block{k}
	text := s.Text()
	for _, c := range []struct {
		row, more string // a row holds row after its offsets, or begins with it
	}{
		{"BUFFER", "  ... 50 more bindings (--format json lists every one)\n"},
		{"hole (free)", "  ... 50 more holes (--format json lists every one)\n"},
		{"leak", "\n... 50 more leaks (--format json lists every one)\n"},
		{"alive", "\n... 50 more objects (--format json lists every one)\n"},
	} {
		lines := 0
		for l := range strings.Lines(text) {
			if strings.HasPrefix(strings.TrimLeft(l, " 0123456789+"), c.row) {
				lines++
			}
		}
		if lines != maxRows || !strings.Contains(text, c.more) {
			t.Errorf("%s: %d rows, want %d and %q", c.row, lines, maxRows, c.more)
		}
	}
	if !strings.Contains(text, "overlap (aliased)") || strings.Contains(text, "more overlaps") {
		t.Errorf("the one overlap is not listed alone:\n%s", text)
	}
}
