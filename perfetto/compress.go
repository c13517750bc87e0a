package perfetto

import "github.com/klauspost/compress/zlib"

// A compressed trace file (Options.Compress) holds each batch a sequence
// hands to the output, whole packets, as one TracePacket whose
// compressed_packets field is those packets as a zlib stream: what traced
// writes with compression_type DEFLATE, and what trace_processor, the
// Perfetto UI and perfetto/decode inflate as they read. A layer's events
// repeat their interned ids, tracks and argument layouts from one call to
// the next, so deflate's fastest level keeps about a tenth of the bytes
// (docs/performance.md, "Trace bytes per iteration"). It runs where the
// batch is written, on the session's flusher: beside the application's
// threads and the layers' drain, not in their way.
type deflater struct {
	zw  *zlib.Writer
	buf []byte // the packet being built: deflateRoom, then the stream
}

// deflateRoom is room for the packet's framing before the stream: the
// TracePacket's tag and length, compressed_packets' tag and length.
const deflateRoom = 1 + 5 + 2 + 5

func newDeflater() *deflater {
	d := &deflater{}
	d.zw, _ = zlib.NewWriterLevel(d, zlib.BestSpeed) // a valid level: no error
	return d
}

// Write takes the zlib stream.
func (d *deflater) Write(p []byte) (int, error) {
	d.buf = append(d.buf, p...)
	return len(p), nil
}

// packet returns the packets of b as one compressed packet, or b when that
// is no smaller. The result is valid until the next call.
func (d *deflater) packet(b []byte) []byte {
	d.buf = append(d.buf[:0], make([]byte, deflateRoom)...)
	d.zw.Reset(d)
	_, _ = d.zw.Write(b) // into memory: no error
	_ = d.zw.Close()
	n := len(d.buf) - deflateRoom
	var head [deflateRoom]byte
	h := appendMsgHeader(head[:0], fTracePacket, sizeMsg(fCompressedPackets, n))
	h = appendMsgHeader(h, fCompressedPackets, n)
	start := deflateRoom - len(h)
	if len(d.buf)-start >= len(b) {
		return b
	}
	copy(d.buf[start:], h)
	return d.buf[start:]
}
