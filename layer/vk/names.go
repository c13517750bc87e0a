package vk

import (
	"slices"
	"strconv"
	"strings"
	"sync"
)

// names is the table of the registry names of one enum type's values, the
// generated String methods' one lookup (instead of a switch per type):
// text holds "hexvalue NAME" pairs, values ascending as uint64 (an enum's
// negative values sign-extended), read once on first use.
type names struct {
	text string
	once sync.Once
	vals []uint64
	strs []string
}

// noNames is the table of flags types without bits.
var noNames = &names{}

func (n *names) lookup(v uint64) (string, bool) {
	n.once.Do(n.read)
	i, ok := slices.BinarySearch(n.vals, v)
	if !ok {
		return "", false
	}
	return n.strs[i], true
}

func (n *names) read() {
	f := strings.Fields(n.text)
	for i := 0; i+1 < len(f); i += 2 {
		v, err := strconv.ParseUint(f[i], 16, 64)
		if err != nil {
			panic("vk: bad generated names table: " + n.text) // generated, tested: never
		}
		n.vals, n.strs = append(n.vals, v), append(n.strs, f[i+1])
	}
}

// enum is the String of an enum value: its registry name, else
// typ(value).
func (n *names) enum(typ string, v int64) string {
	if s, ok := n.lookup(uint64(v)); ok {
		return s
	}
	return typ + "(" + strconv.FormatInt(v, 10) + ")"
}

// flags is the String of a flags value: the name of the whole value when
// it has one (0 prints the name of 0 if any, else "0"), otherwise the names
// of its bits, lowest first, joined by |, then the bits without a name as
// one hex number (0x...).
func (n *names) flags(v uint64) string {
	if s, ok := n.lookup(v); ok {
		return s
	}
	if v == 0 {
		return "0"
	}
	var b strings.Builder
	var rest uint64
	for i := range 64 {
		bit := uint64(1) << i
		if v&bit == 0 {
			continue
		}
		s, ok := n.lookup(bit)
		if !ok {
			rest |= bit
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('|')
		}
		b.WriteString(s)
	}
	if rest != 0 {
		if b.Len() > 0 {
			b.WriteByte('|')
		}
		b.WriteString("0x" + strconv.FormatUint(rest, 16))
	}
	return b.String()
}
