package decode

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"io"
	"reflect"
	"slices"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// read reads data to its end or first error, as Decode does (lenient), or
// skipping damage: the packets, the offsets they were read at, and the
// error. Positions must grow with every packet: the reader never returns
// twice from the same place.
func read(t *testing.T, data []byte, skip bool) (pkts []Packet, offs []int64, d *DamageError, err error) {
	r := NewReader(bytes.NewReader(data), "fuzz")
	r.lenient = true
	if skip {
		r.SkipDamaged()
	}
	last := int64(-1)
	for {
		var p *Packet
		if p, err = r.Next(); err != nil {
			break
		}
		if r.pos <= last {
			t.Fatalf("packet %d at position %d after %d", len(pkts), r.pos, last)
		}
		last = r.pos
		pkts = append(pkts, p.Clone())
		offs = append(offs, r.Offset())
	}
	if err == io.EOF {
		err = nil
	}
	return pkts, offs, r.Damaged(), err
}

// before returns the packets read before offset off.
func before(pkts []Packet, offs []int64, off int64) []Packet {
	n := 0
	for n < len(offs) && offs[n] < off {
		n++
	}
	return pkts[:n]
}

// Any input is read to an error or the end, never a panic or a hang:
// what was read before an error (or the first damage) is what reading the
// input up to it gives, and skipping damage reads the same up to there.
func FuzzReader(f *testing.F) {
	// Two stamped packets, the second with a track event; then the same
	// with garbage between them, gzip'd, and as compressed packets.
	plain := []byte{0x0a, 0x04, 0x08, 0x01, 0x50, 0x02, 0x0a, 0x08, 0x08, 0x02, 0x50, 0x02, 0x5a, 0x02, 0x48, 0x03}
	var gz, z bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(plain)
	w.Close()
	zw := zlib.NewWriter(&z)
	zw.Write(plain)
	zw.Close()
	container := protowire.AppendBytes(protowire.AppendTag(nil, 50, protowire.BytesType), z.Bytes())
	f.Add(plain)
	f.Add(slices.Concat(plain[:6], []byte{0xff, 0x0a, 0x7f}, plain[6:]))
	f.Add(gz.Bytes())
	f.Add(slices.Concat(plain[:6], protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), container)))
	f.Fuzz(func(t *testing.T, data []byte) {
		gz := bytes.HasPrefix(data, gzipMagic) // offsets are of the inflated stream
		pkts, offs, _, err := read(t, data, false)
		var de *Error
		if err != nil && !errors.As(err, &de) {
			t.Fatalf("error %v is no *Error", err)
		}
		if de != nil && !gz {
			prefix, _, _, perr := read(t, data[:de.Offset], false)
			if want := before(pkts, offs, de.Offset); perr != nil || !reflect.DeepEqual(prefix, want) {
				t.Fatalf("the %d bytes before the error at %d (%v) read as %d packets (%v), want %d", de.Offset, de.Offset, err, len(prefix), perr, len(want))
			}
		}
		skipped, soffs, dmg, serr := read(t, data, true)
		if serr != nil && !errors.As(serr, &de) {
			t.Fatalf("skipping: error %v is no *Error", serr)
		}
		if dmg != nil {
			at := dmg.First.Offset
			if a, b := before(skipped, soffs, at), before(pkts, offs, at); !reflect.DeepEqual(a, b) {
				t.Fatalf("skipping damage: %d packets before the damage at %d, want %d", len(a), at, len(b))
			}
		}
	})
}
