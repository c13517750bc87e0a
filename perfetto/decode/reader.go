package decode

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/vkgen/vkgen/perfetto/internal/pb"
	"google.golang.org/protobuf/encoding/protowire"
)

// MaxPacketBytes is the largest TracePacket a Reader accepts. Real packets
// are far smaller (trace writers chunk at a few hundred KiB); the limit keeps
// a corrupt length from making the reader allocate gigabytes.
const MaxPacketBytes = 64 << 20

// Error is a decoding error with its place in the input.
type Error struct {
	File   string // the name given to NewReader
	Offset int64  // byte offset of the packet (or field) that failed
	Packet int    // index of that packet
	Err    error
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: byte offset %d (packet %d): %v", e.File, e.Offset, e.Packet, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// ErrNotTrace is wrapped by the errors of input that is no Perfetto trace:
// an empty file, a top-level field other than Trace.packet, or packets of
// which none has a timestamp or a sequence id (another message that happens
// to use field 1, such as a TraceConfig).
var ErrNotTrace = errors.New("not a Perfetto trace")

// Reader decodes a trace one packet at a time, so a caller that keeps only
// what it needs reads any size of trace in memory bounded by the largest
// packet, the interning tables and the track descriptors. It reads from
// pipes and devices as well as files.
type Reader struct {
	r     *bufio.Reader
	name  string
	off   int64 // bytes consumed
	start int64 // offset of the current packet
	n     int   // packets returned
	buf   []byte
	// peeked is how many bytes of r's buffer the last packet still holds
	// (all of it, or its body): discarded at the next call.
	peeked int
	// rawSeqs are the sequences NextRaw has seen; lastSeq the last one's.
	rawSeqs map[uint32]struct{}
	lastSeq uint32
	track   Track // NextRaw's
	state
	pkt     Packet
	stamped bool // some packet had a timestamp or sequence id
	lenient bool // Decode: empty input and unstamped packets are fine
	// Tracks holds every TrackDescriptor seen so far by uuid (the last one
	// wins).
	Tracks map[uint64]*Track
}

// NewReader returns a Reader of r; name is used in errors.
func NewReader(r io.Reader, name string) *Reader {
	rd := &Reader{r: bufio.NewReaderSize(r, 1<<20), name: name, Tracks: map[uint64]*Track{}, rawSeqs: map[uint32]struct{}{}}
	rd.state = state{seqs: map[uint32]*seqState{}, tracks: rd.Tracks, strs: new([strSlots]string)}
	return rd
}

// Offset is the byte offset at which the packet last returned by Next (or
// the failing one) starts.
func (r *Reader) Offset() int64 { return r.start }

// Next decodes the next packet. It returns io.EOF at the clean end of a
// trace and an *Error otherwise. The packet and its Event are valid until
// the next call (they reuse the Reader's buffers); Clone keeps one.
func (r *Reader) Next() (*Packet, error) {
	body, err := r.frame()
	if err != nil {
		return nil, err
	}
	p, err := decodePacket(body, &r.state)
	if err != nil {
		return nil, r.fail(err)
	}
	p.Index = r.n
	r.n++
	r.stamped = r.stamped || p.HasTimestamp || p.SeqID != 0
	r.pkt = p
	return &r.pkt, nil
}

// frame reads the next packet's framing and returns its body, valid until
// the next call: in the buffered reader's buffer when it fits (consumed at
// the next call), else in r.buf. Errors are *Error, io.EOF the clean end.
func (r *Reader) frame() (body []byte, err error) {
	if r.peeked > 0 {
		r.r.Discard(r.peeked)
		r.peeked = 0
	}
	r.start = r.off
	// Most packets lie whole in the buffer: framed there at once.
	if buf, _ := r.r.Peek(r.r.Buffered()); len(buf) > 0 && buf[0] == 0x0a { // field 1, length-delimited
		if _, _, body, rest, err := pb.Next(buf); err == nil && len(body) <= MaxPacketBytes {
			n := len(buf) - len(rest)
			r.off += int64(n)
			r.peeked = n
			return body, nil
		}
	}
	tag, err := r.varint()
	if err == io.EOF {
		return nil, r.end()
	}
	if err != nil {
		return nil, r.fail(err)
	}
	num, typ := protowire.DecodeTag(tag)
	if num != 1 || typ != protowire.BytesType {
		return nil, r.fail(fmt.Errorf("%w: top-level field %d (wire type %d); a trace holds only TracePacket fields (number 1, length-delimited)", ErrNotTrace, num, typ))
	}
	size, err := r.varint()
	if err != nil {
		return nil, r.fail(truncated(err))
	}
	if size > MaxPacketBytes {
		return nil, r.fail(fmt.Errorf("packet of %d bytes exceeds the %d MiB limit", size, MaxPacketBytes>>20))
	}
	// A packet that fits in the buffer is decoded in place (decoding copies
	// what it keeps); a larger one is copied out.
	var k int
	peeked := size <= uint64(r.r.Size())
	if peeked {
		body, err = r.r.Peek(int(size))
		k = len(body)
	} else {
		if uint64(cap(r.buf)) < size {
			r.buf = make([]byte, size)
		}
		body = r.buf[:size]
		k, err = io.ReadFull(r.r, body)
	}
	if err != nil {
		r.off += int64(k)
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			err = fmt.Errorf("packet of %d bytes truncated after %d: %w", size, k, io.ErrUnexpectedEOF)
		}
		return nil, r.fail(err)
	}
	r.off += int64(size)
	if peeked {
		r.peeked = k
	}
	return body, nil
}

// end is the result at the end of the input: io.EOF for a trace.
func (r *Reader) end() error {
	switch {
	case r.lenient:
		return io.EOF
	case r.n == 0:
		return r.fail(fmt.Errorf("%w: the input is empty", ErrNotTrace))
	case !r.stamped:
		return r.fail(fmt.Errorf("%w: none of its %d packets has a timestamp or a sequence id", ErrNotTrace, r.n))
	}
	return io.EOF
}

func (r *Reader) fail(err error) error {
	return &Error{File: r.name, Offset: r.start, Packet: r.n, Err: err}
}

// varint reads one base-128 varint; io.EOF only before its first byte.
func (r *Reader) varint() (uint64, error) {
	var v uint64
	for i := 0; i < 10; i++ {
		c, err := r.r.ReadByte()
		if err != nil {
			if i > 0 && err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return 0, err
		}
		r.off++
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return v, nil
		}
	}
	return 0, errors.New("varint longer than 10 bytes")
}

func truncated(err error) error {
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("packet length: %w", err)
}
