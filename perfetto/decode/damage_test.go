package decode_test

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"slices"
	"testing"

	"github.com/vkgen/vkgen/perfetto"
	"github.com/vkgen/vkgen/perfetto/decode"
)

// smallTrace is a few dozen packets on one sequence: interned names,
// instants, counters and object names.
func smallTrace(t testing.TB) []byte {
	var buf bytes.Buffer
	s, err := perfetto.StartSession("small", perfetto.WriterOutput(&buf), perfetto.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 12 {
		perfetto.Instant(cat, instant, perfetto.Uint(aSize, uint64(i)), perfetto.String(aKind, "buffer"))
		perfetto.Counter(usage, int64(i))
		perfetto.VkObjectName(1, 9, uint64(i), "name")
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// at is a packet read with the offset it was read at.
type at struct {
	off int64
	p   decode.Packet
}

// readSkipping reads data with SkipDamaged: the packets, their offsets and
// the error that ended the read (nil at the end).
func readSkipping(data []byte) ([]at, *decode.DamageError, error) {
	r := decode.NewReader(bytes.NewReader(data), "t")
	r.SkipDamaged()
	var out []at
	for {
		p, err := r.Next()
		if err == io.EOF {
			return out, r.Damaged(), nil
		}
		if err != nil {
			return out, r.Damaged(), err
		}
		c := p.Clone()
		c.Index = 0 // shifts when a packet is lost
		normalize(&c)
		out = append(out, at{r.Offset(), c})
	}
}

// One flipped bit anywhere after the first packet never stops the read
// in the middle: every other packet is read at its offset, or counted as
// damaged (one that uses names the damaged packet interned); or the last
// packet now runs past the end (a cut). A flip inside a value changes
// the packet, or the packets using a name it interned, unnoticed, as in
// trace_processor.
func TestSkipDamagedBitFlips(t *testing.T) {
	data := smallTrace(t)
	want, _, err := readSkipping(data)
	if err != nil {
		t.Fatal(err)
	}
	for pos := want[1].off; pos < int64(len(data)); pos++ {
		hit := 0 // the packet holding the flip
		for hit+1 < len(want) && want[hit+1].off <= pos {
			hit++
		}
		for _, bit := range []int64{pos % 7, 7} { // and the varints' continuation bit
			bad := bytes.Clone(data)
			bad[pos] ^= 1 << bit
			got, dmg, err := readSkipping(bad)
			if err != nil && !(errors.Is(err, io.ErrUnexpectedEOF) && hit == len(want)-1) {
				t.Fatalf("bit %d of byte %d (packet %d): %v", bit, pos, hit, err)
			}
			var lost []int
			k := 0
			for j, w := range want {
				for k < len(got) && got[k].off < w.off {
					k++
				}
				if j != hit && (k == len(got) || got[k].off != w.off) {
					lost = append(lost, j)
				}
			}
			if damaged := dmg.Count(); len(lost) > damaged || (len(lost) > 0 && lost[0] < hit) {
				t.Errorf("bit %d of byte %d (packet %d): lost packets %v, %d damaged (%v)", bit, pos, hit, lost, damaged, dmg)
			}
		}
	}
}

// Damaged framing costs the damaged packet only: the others read as in the
// whole trace, and the damage names the packet's offset.
func TestSkipDamagedFraming(t *testing.T) {
	data := smallTrace(t)
	want, _, err := readSkipping(data)
	if err != nil {
		t.Fatal(err)
	}
	// An object name: no other packet needs it.
	hit := slices.IndexFunc(want, func(a at) bool { return a.p.ObjectName != nil })
	start, end := want[hit].off, want[hit+1].off
	body := data[start+2 : end] // tag and a one-byte length
	if data[start+1] >= 0x80 {
		t.Fatalf("packet %d has a length of more than one byte", hit)
	}
	edit := func(mid ...byte) []byte {
		return slices.Concat(data[:start], mid, data[end:])
	}
	for what, bad := range map[string][]byte{
		"garbage tag":    edit(slices.Concat([]byte{0xff, byte(len(body))}, body)...),
		"longer":         edit(slices.Concat([]byte{0x0a, byte(len(body) + 5)}, body)...),
		"shorter":        edit(slices.Concat([]byte{0x0a, byte(len(body) - 3)}, body)...),
		"past the limit": edit(slices.Concat([]byte{0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f}, body)...),
		"garbage body":   edit(slices.Concat([]byte{0x0a, byte(len(body))}, bytes.Repeat([]byte{0xff}, len(body)))...),
		"garbage bytes":  edit(bytes.Repeat([]byte{0x0a, 0x30, 0x08}, 100)...),
		"no packet":      edit(),
	} {
		got, dmg, err := readSkipping(bad)
		wantDamage := 1
		if what == "no packet" {
			wantDamage = 0
		}
		if err != nil || dmg.Count() != wantDamage || (dmg != nil && dmg.First.Offset != start) {
			t.Errorf("%s: error %v, damage %v; want %d at offset %d", what, err, dmg, wantDamage, start)
			continue
		}
		others := slices.Delete(slices.Clone(want), hit, hit+1)
		if len(got) != len(others) {
			t.Errorf("%s: %d packets, want %d", what, len(got), len(others))
			continue
		}
		for i := range got {
			if !reflect.DeepEqual(got[i].p, others[i].p) {
				t.Errorf("%s: packet %d differs: %+v, want %+v", what, i, got[i].p, others[i].p)
			}
		}
	}
}
