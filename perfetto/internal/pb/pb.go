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
		num, typ, v, data, n := Field(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		if typ == protowire.StartGroupType {
			continue
		}
		if err := fn(num, v, data); err != nil {
			return err
		}
	}
	return nil
}

// Field decodes the field at the start of b, as Walk passes it to fn, and
// its length n; n < 0 is protowire's error code. A group (typ
// StartGroupType) has no value. Hot decoding loops call it directly instead
// of paying Walk's indirect call per field.
func Field(b []byte) (num protowire.Number, typ protowire.Type, v uint64, data []byte, n int) {
	// Tags of fields 1-15 and small varints are one byte: most of a trace.
	if len(b) > 0 && b[0] < 0x80 && b[0]>>3 != 0 {
		num, typ, n = protowire.Number(b[0]>>3), protowire.Type(b[0]&7), 1
	} else if num, typ, n = protowire.ConsumeTag(b); n < 0 {
		return num, typ, 0, nil, n
	}
	b = b[n:]
	var m int
	switch {
	case typ == protowire.VarintType && len(b) > 0 && b[0] < 0x80:
		v, m = uint64(b[0]), 1
	case typ == protowire.VarintType:
		v, m = protowire.ConsumeVarint(b)
	case typ == protowire.Fixed32Type:
		var x uint32
		x, m = protowire.ConsumeFixed32(b)
		v = uint64(x)
	case typ == protowire.Fixed64Type:
		v, m = protowire.ConsumeFixed64(b)
	case typ == protowire.BytesType:
		data, m = protowire.ConsumeBytes(b)
	default:
		m = protowire.ConsumeFieldValue(num, typ, b)
	}
	if m < 0 {
		return num, typ, 0, nil, m
	}
	return num, typ, v, data, n + m
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
