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
	// Traces are made of well-formed varint and length-delimited fields
	// with tags of one or two bytes: decoded here, in one call per field;
	// anything else, and anything malformed, by protowire in next.
	var tag uint64
	i := 0
	switch {
	case len(b) > 0 && b[0] < 0x80:
		tag, i = uint64(b[0]), 1
	case len(b) > 1 && b[1] < 0x80:
		tag, i = uint64(b[0]&0x7f)|uint64(b[1])<<7, 2
	default:
		return next(b)
	}
	num, typ := protowire.Number(tag>>3), protowire.Type(tag&7)
	if num == 0 || (typ != protowire.VarintType && typ != protowire.BytesType) {
		return next(b)
	}
	for s := uint(0); ; s += 7 {
		if i >= len(b) || s > 56 { // 9 bytes hold any value without overflow
			return next(b)
		}
		c := b[i]
		i++
		v |= uint64(c&0x7f) << s
		if c < 0x80 {
			break
		}
	}
	if typ == protowire.VarintType {
		return num, v, nil, b[i:], nil
	}
	if v > uint64(len(b)-i) {
		return next(b)
	}
	end := i + int(v)
	return num, 0, b[i:end], b[end:], nil
}

func next(b []byte) (num protowire.Number, v uint64, data, rest []byte, err error) {
	p := b
	var typ protowire.Type
	var n int
	if num, typ, n = protowire.ConsumeTag(p); n < 0 {
		return 0, 0, nil, nil, protowire.ParseError(n)
	}
	p = p[n:]
	switch typ {
	case protowire.VarintType:
		v, n = protowire.ConsumeVarint(p)
	case protowire.Fixed32Type:
		var x uint32
		x, n = protowire.ConsumeFixed32(p)
		v = uint64(x)
	case protowire.Fixed64Type:
		v, n = protowire.ConsumeFixed64(p)
	case protowire.BytesType:
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
