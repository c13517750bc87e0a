package pb

import (
	"errors"
	"reflect"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

type field struct {
	num  protowire.Number
	v    uint64
	data string
}

func TestWalkRoundTrip(t *testing.T) {
	b := AppendVarint(nil, 1, 300)
	b = AppendBool(b, 2, true)
	b = AppendString(b, 3, "name")
	b = AppendBytes(b, 4, nil)
	b = protowire.AppendTag(b, 5, protowire.Fixed32Type)
	b = protowire.AppendFixed32(b, 7)
	b = protowire.AppendTag(b, 6, protowire.Fixed64Type)
	b = protowire.AppendFixed64(b, 1<<40)
	// A group is skipped, not reported.
	b = protowire.AppendTag(b, 7, protowire.StartGroupType)
	b = AppendVarint(b, 1, 1)
	b = protowire.AppendTag(b, 7, protowire.EndGroupType)
	var got []field
	if err := Walk(b, func(num protowire.Number, v uint64, data []byte) error {
		got = append(got, field{num, v, string(data)})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := []field{{1, 300, ""}, {2, 1, ""}, {3, 0, "name"}, {4, 0, ""}, {5, 7, ""}, {6, 1 << 40, ""}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}

func TestWalkMalformed(t *testing.T) {
	for name, b := range map[string][]byte{
		"truncated tag":    {0x80},
		"truncated varint": {0x08, 0x80},
		"length too long":  {0x1a, 0x05, 'a'},
		"field number 0":   {0x00, 0x01},
		"open group":       {0x3b},
	} {
		if err := Walk(b, func(protowire.Number, uint64, []byte) error { return nil }); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestWalkStopsOnCallbackError(t *testing.T) {
	stop := errors.New("stop")
	n := 0
	err := Walk(AppendVarint(AppendVarint(nil, 1, 1), 2, 2), func(protowire.Number, uint64, []byte) error {
		n++
		return stop
	})
	if !errors.Is(err, stop) || n != 1 {
		t.Fatalf("err %v after %d calls, want stop after 1", err, n)
	}
}

// Next's inline decoding gives exactly what protowire's gives (next), for
// any input: values, data, the rest and errors.
func FuzzNextMatchesProtowire(f *testing.F) {
	f.Add(AppendVarint(nil, 1, 300))
	f.Add(AppendString(nil, 3, "name"))
	f.Add(AppendVarint(nil, 58, 1<<63))               // two-byte tag, ten-byte varint
	f.Add(AppendBytes(nil, 2000, []byte("x")))        // three-byte tag
	f.Add([]byte{0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f}) // length beyond the input
	f.Add([]byte{0x80, 0x00, 0x01})                   // non-minimal tag of field 0
	f.Fuzz(func(t *testing.T, b []byte) {
		num, v, data, rest, err := Next(b)
		wnum, wv, wdata, wrest, werr := next(b)
		if num != wnum || v != wv || string(data) != string(wdata) || (data == nil) != (wdata == nil) ||
			len(rest) != len(wrest) || (err == nil) != (werr == nil) || (err != nil && err.Error() != werr.Error()) {
			t.Errorf("Next(%x) = %d %d %q %d %v, protowire: %d %d %q %d %v", b, num, v, data, len(rest), err, wnum, wv, wdata, len(wrest), werr)
		}
	})
}
