package perfettotools

import (
	"bytes"
	"compress/zlib"
	"io"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// Inflated returns trace with each packet that holds compressed_packets
// (TracePacket field 50, a zlib stream of packets) replaced by the packets
// it holds, for readers that do not inflate, such as protoc. It inflates
// with the standard library, not the writer's compressor.
func Inflated(t testing.TB, trace []byte) []byte {
	t.Helper()
	var out []byte
	for b := trace; len(b) > 0; {
		_, _, n := protowire.ConsumeTag(b)
		if n < 0 {
			t.Fatalf("inflating a trace: %v at byte %d", protowire.ParseError(n), len(trace)-len(b))
		}
		pkt, m := protowire.ConsumeBytes(b[n:])
		if m < 0 {
			t.Fatalf("inflating a trace: %v at byte %d", protowire.ParseError(m), len(trace)-len(b))
		}
		num, _, k := protowire.ConsumeTag(pkt)
		if num != 50 {
			out = append(out, b[:n+m]...)
			b = b[n+m:]
			continue
		}
		stream, _ := protowire.ConsumeBytes(pkt[k:])
		zr, err := zlib.NewReader(bytes.NewReader(stream))
		if err == nil {
			var inner []byte
			inner, err = io.ReadAll(zr)
			out = append(out, inner...)
		}
		if err != nil {
			t.Fatalf("inflating the compressed packet at byte %d: %v", len(trace)-len(b), err)
		}
		b = b[n+m:]
	}
	return out
}
