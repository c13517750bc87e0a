package decode

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"

	"github.com/vkgen/vkgen/perfetto/internal/pb"
)

// MaxInflatedBytes bounds what one compressed packet may inflate to (traced
// compresses a few hundred KiB of packets at a time), so that a small
// packet cannot make the reader allocate gigabytes.
const MaxInflatedBytes = MaxPacketBytes

// compressed is a Reader's state for TracePacket.compressed_packets: a
// zlib stream of a Trace (repeated field-1 packets), which traced writes
// with compression_type DEFLATE. The packets inflated from one are
// returned one by one before the next packet of the input is framed.
type compressed struct {
	zr       io.ReadCloser // reused
	inflated bytes.Buffer
	rest     []byte // of inflated: the packets not returned yet
	// pos is the position of the packet last returned in the input as if
	// every compressed packet were inflated in place (Raw.Pos); shift is
	// what the compressed packets so far added to the offsets; base is the
	// position of the current inflated packets.
	pos, shift, base int64
}

// inflating says whether packets inflated from a compressed one are left.
func (c *compressed) inflating() bool { return len(c.rest) > 0 }

// inflate inflates data, the compressed_packets of the packet at r.start,
// in at most MaxInflatedBytes.
func (r *Reader) inflate(data []byte) error {
	var err error
	if r.zr == nil {
		r.zr, err = zlib.NewReader(bytes.NewReader(data))
	} else {
		err = r.zr.(zlib.Resetter).Reset(bytes.NewReader(data), nil)
	}
	if err != nil {
		return fmt.Errorf("compressed_packets: %w", err)
	}
	r.inflated.Reset()
	n, err := io.CopyN(&r.inflated, r.zr, MaxInflatedBytes+1)
	switch {
	case n > MaxInflatedBytes:
		return fmt.Errorf("compressed_packets inflate to more than the %d MiB limit", MaxInflatedBytes>>20)
	case err != io.EOF:
		return fmt.Errorf("compressed_packets: %w", err)
	}
	r.rest = r.inflated.Bytes()
	r.base = r.start + r.shift
	r.shift += int64(len(r.rest)) - (r.off - r.start)
	return nil
}

// inner returns the next inflated packet's body with its head parsed into
// h. A framing error drops the rest of the inflated packets.
func (r *Reader) inner(h *head) ([]byte, error) {
	at := r.inflated.Len() - len(r.rest)
	num, _, body, rest, err := pb.Next(r.rest)
	if err == nil && (num != 1 || body == nil) {
		err = fmt.Errorf("field %d; a trace holds only TracePacket fields (number 1, length-delimited)", num)
	}
	if err != nil {
		r.rest = nil
		return nil, fmt.Errorf("compressed_packets: byte %d of %d inflated: %w", at, r.inflated.Len(), err)
	}
	r.rest = rest
	r.pos = r.base + int64(at)
	if err := parseHead(body, h); err != nil {
		return nil, fmt.Errorf("compressed_packets: packet at byte %d of %d inflated: %w", at, r.inflated.Len(), err)
	}
	if h.deflated.end != 0 || h.zstd {
		return nil, errors.New("compressed_packets: compressed packets inside compressed packets")
	}
	return body, nil
}
