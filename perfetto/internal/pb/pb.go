// Package pb holds the few protobuf wire helpers that the trace decoder
// (perfetto/decode), the producer (perfetto/system), its IPC framing and the
// fake service of its tests all need: a field walker and plain field
// appenders over google.golang.org/protobuf/encoding/protowire. It knows no
// message schema. The trace writer's hot path (perfetto/wire.go) keeps its
// own specialised encoders and must not be routed through here.
package pb

import "google.golang.org/protobuf/encoding/protowire"

// Walk calls fn for every field of a protobuf message: v holds varint and
// fixed values, data the bytes of length-delimited fields (a non-nil, possibly
// empty slice). Groups are skipped. Malformed input is an error, never a
// panic; an error from fn stops the walk and is returned.
func Walk(b []byte, fn func(num protowire.Number, v uint64, data []byte) error) error {
	for len(b) > 0 {
		num, v, data, rest, err := Next(b)
		if err != nil {
			return err
		}
		if b = rest; num == 0 {
			continue
		}
		if err := fn(num, v, data); err != nil {
			return err
		}
	}
	return nil
}

// Next decodes the first field of b, as Walk passes it to fn, and the
// fields after it. A group comes back with num 0, which no field has. Hot
// decoding loops call it directly instead of paying Walk's indirect call per
// field.
func Next(b []byte) (num protowire.Number, v uint64, data, rest []byte, err error) {
	p := b
	var typ protowire.Type
	var n int
	// Tags of fields 1-15 and small varints are one byte: most of a trace.
	if len(p) > 0 && p[0] < 0x80 && p[0]>>3 != 0 {
		num, typ, n = protowire.Number(p[0]>>3), protowire.Type(p[0]&7), 1
	} else if num, typ, n = protowire.ConsumeTag(p); n < 0 {
		return 0, 0, nil, nil, protowire.ParseError(n)
	}
	p = p[n:]
	switch {
	case typ == protowire.VarintType && len(p) > 0 && p[0] < 0x80:
		v, n = uint64(p[0]), 1
	case typ == protowire.VarintType:
		v, n = protowire.ConsumeVarint(p)
	case typ == protowire.Fixed32Type:
		var x uint32
		x, n = protowire.ConsumeFixed32(p)
		v = uint64(x)
	case typ == protowire.Fixed64Type:
		v, n = protowire.ConsumeFixed64(p)
	case typ == protowire.BytesType:
		data, n = protowire.ConsumeBytes(p)
	default:
		n = protowire.ConsumeFieldValue(num, typ, p)
	}
	if n < 0 {
		return 0, 0, nil, nil, protowire.ParseError(n)
	}
	if typ == protowire.StartGroupType {
		return 0, 0, nil, p[n:], nil
	}
	return num, v, data, p[n:], nil
}

// AppendVarint appends a varint field.
func AppendVarint(b []byte, num protowire.Number, v uint64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

// AppendBool appends a bool field.
func AppendBool(b []byte, num protowire.Number, v bool) []byte {
	return AppendVarint(b, num, protowire.EncodeBool(v))
}

// AppendBytes appends a length-delimited field (bytes or an embedded message).
func AppendBytes(b []byte, num protowire.Number, v []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

// AppendString appends a string field as is (no UTF-8 repair or truncation).
func AppendString(b []byte, num protowire.Number, v string) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, v)
}

// Varints calls fn with the value of a repeated varint field as Next
// returned it: v, or each varint of data when the field came packed (data
// not nil). Malformed packed data is an error.
func Varints(data []byte, v uint64, fn func(uint64)) error {
	if data == nil {
		fn(v)
		return nil
	}
	for len(data) > 0 {
		x, n := protowire.ConsumeVarint(data)
		if n < 0 {
			return protowire.ParseError(n)
		}
		fn(x)
		data = data[n:]
	}
	return nil
}
