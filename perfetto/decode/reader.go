package decode

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

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
// pipes and devices as well as files, whole-file gzip (inflated as it
// goes: offsets are then those of the inflated stream) and the packets
// traced compresses with deflate (compressed.go).
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
	// kind says what the input is when it does not look like a trace
	// (sniff.go); "" for what may be one.
	kind    string
	sniffed bool
	compressed
	// rawSeqs are the sequences NextRaw has seen; lastSeq the last one's.
	rawSeqs map[uint32]struct{}
	lastSeq uint32
	track   Track // NextRaw's
	state
	pkt     Packet
	stamped bool // some packet had a timestamp or sequence id
	lenient bool // Decode: empty input and unstamped packets are fine
	// skipDamaged and damage: see SkipDamaged (damage.go).
	skipDamaged bool
	damage      DamageError
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
// the failing one) starts; packets inflated from one compressed packet
// share its offset.
func (r *Reader) Offset() int64 { return r.start }

// Next decodes the next packet. It returns io.EOF at the clean end of a
// trace and an *Error otherwise. The packet and its Event are valid until
// the next call (they reuse the Reader's buffers); Clone keeps one.
func (r *Reader) Next() (*Packet, error) {
	for {
		var h head
		body, err := r.packet(&h)
		if err != nil {
			return nil, err
		}
		var p Packet
		if err := decodeBody(body, &h, &r.state, &p); err != nil {
			if e := r.fail(err); !r.skip(e) {
				return nil, e
			}
			continue
		}
		p.Index = r.n
		r.n++
		r.stamped = r.stamped || p.HasTimestamp || p.SeqID != 0
		r.pkt = p
		return &r.pkt, nil
	}
}

// packet returns the next packet's body, with its top-level fields parsed
// into h: the next of the packets inflated from a compressed one, else the
// next one of the input, inflated when it is compressed. The body is valid
// until the next call.
func (r *Reader) packet(h *head) ([]byte, error) {
	for {
		if r.inflating() {
			body, err := r.inner(h)
			if err != nil {
				if e := r.fail(err); !r.skip(e) {
					return nil, e
				}
				continue
			}
			return body, nil
		}
		body, err := r.frame()
		if err != nil {
			return nil, err
		}
		err = parseHead(body, h)
		switch {
		case err != nil:
			// The length may be the damage: look for the next packet
			// inside this one's bytes.
			if r.resync(err) {
				continue
			}
			return nil, r.notTrace(err)
		case h.zstd:
			return nil, r.fail(errors.New("zstd_compressed_packets: zstd-compressed packets are not read (record with compression deflate, or none)"))
		case h.deflated.end != 0:
			if err := r.inflate(h.deflated.of(body)); err != nil {
				if e := r.fail(err); !r.skip(e) {
					return nil, e
				}
			}
			continue
		}
		r.pos = r.start + r.shift
		return body, nil
	}
}

// maxHeader is the most bytes a packet's tag and length take.
const maxHeader = 1 + binary.MaxVarintLen64

// frame reads the next packet's framing and returns its body, valid until
// the next call: in the buffered reader's buffer when it fits (consumed at
// the next call), else in r.buf. Errors are *Error, io.EOF the clean end.
// Nothing of a packet is consumed before it is framed whole, so that a
// damaged one can be searched for the next packet (damage.go).
func (r *Reader) frame() (body []byte, err error) {
	for {
		if r.peeked > 0 {
			r.r.Discard(r.peeked)
			r.peeked = 0
		}
		r.start = r.off
		if !r.sniffed {
			if err := r.sniff(); err != nil {
				return nil, r.fail(err)
			}
		}
		buf, err := r.r.Peek(maxHeader)
		if len(buf) == 0 {
			if err == io.EOF {
				return nil, r.end()
			}
			return nil, r.fail(err)
		}
		size, hdr, err := header(buf, len(buf) < maxHeader)
		switch {
		case errors.Is(err, io.ErrUnexpectedEOF): // cut in its header
			r.off += int64(len(buf))
			return nil, r.notTrace(err)
		case err != nil:
			if r.resync(err) {
				continue
			}
			return nil, r.notTrace(err)
		}
		total := hdr + int(size)
		if total <= r.r.Size() { // framed in the buffer, consumed at the next call
			b, err := r.r.Peek(total)
			if err == nil {
				r.off += int64(total)
				r.peeked = total
				return b[hdr:], nil
			}
			if err != io.EOF {
				return nil, r.fail(err)
			}
			cut := fmt.Errorf("packet of %d bytes truncated after %d: %w", size, len(b)-hdr, io.ErrUnexpectedEOF)
			if r.resyncCut(cut) { // a damaged length, not the end
				continue
			}
			r.off += int64(len(b))
			return nil, r.notTrace(cut)
		}
		// Larger than the buffer: copied out.
		r.r.Discard(hdr)
		r.off += int64(hdr)
		if uint64(cap(r.buf)) < size {
			r.buf = make([]byte, size)
		}
		body = r.buf[:size]
		k, err := io.ReadFull(r.r, body)
		r.off += int64(k)
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			err = fmt.Errorf("packet of %d bytes truncated after %d: %w", size, k, io.ErrUnexpectedEOF)
		}
		if err != nil {
			return nil, r.fail(err)
		}
		return body, nil
	}
}

// header decodes a packet's tag and length at the start of b; eof says
// that b is all the input left.
func header(b []byte, eof bool) (size uint64, n int, err error) {
	tag, n := protowire.ConsumeVarint(b)
	if n < 0 {
		return 0, 0, errors.New("malformed top-level field")
	}
	if num, typ := protowire.DecodeTag(tag); num != 1 || typ != protowire.BytesType {
		return 0, 0, fmt.Errorf("top-level field %d (wire type %d); a trace holds only TracePacket fields (number 1, length-delimited)", num, typ)
	}
	size, k := protowire.ConsumeVarint(b[n:])
	switch {
	case k < 0 && eof:
		return 0, 0, fmt.Errorf("packet length: %w", io.ErrUnexpectedEOF)
	case k < 0:
		return 0, 0, errors.New("packet length: varint longer than 10 bytes")
	case size > MaxPacketBytes:
		return 0, 0, fmt.Errorf("packet of %d bytes exceeds the %d MiB limit", size, MaxPacketBytes>>20)
	}
	return size, n + k, nil
}

// end is the result at the end of the input: io.EOF for a trace.
func (r *Reader) end() error {
	switch {
	case r.lenient:
		return io.EOF
	case r.n == 0:
		return r.fail(fmt.Errorf("%w: the input is empty", ErrNotTrace))
	case !r.stamped:
		return r.notTrace(fmt.Errorf("none of its %d packets has a timestamp or a sequence id", r.n))
	}
	return io.EOF
}

func (r *Reader) fail(err error) *Error {
	return &Error{File: r.name, Offset: r.start, Packet: r.n, Err: err}
}
