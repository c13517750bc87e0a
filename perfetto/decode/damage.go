package decode

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// DamageError is what a Reader that skips damaged packets (SkipDamaged)
// skipped: the first damage in the input, and how many damaged packets
// (or stretches of damaged bytes between two packets) there were.
type DamageError struct {
	First   *Error
	Packets int
}

func (e *DamageError) Error() string {
	return fmt.Sprintf("%v; %d damaged packet(s) skipped", e.First, e.Packets)
}

func (e *DamageError) Unwrap() error { return e.First }

// Count is Packets, 0 for a nil e.
func (e *DamageError) Count() int {
	if e == nil {
		return 0
	}
	return e.Packets
}

// Add counts n more damaged packets, the first of them at err, keeping
// the first in the input.
func (e *DamageError) Add(err *Error, n int) {
	e.Packets += n
	if e.First == nil || err.Offset < e.First.Offset {
		e.First = err
	}
}

// SkipDamaged makes r skip damaged packets, as trace_processor does, once
// it has read a packet with a timestamp or a sequence id (before that,
// input that does not parse is no trace). A packet whose fields do not
// decode is skipped. A framing that does not parse (a garbage tag or
// length, a length that runs past the end or whose packet does not parse)
// is skipped up to the next offset where a packet plausibly starts: one
// that fits in half the read buffer, is followed by another packet's tag
// or the end, parses, and has a timestamp, a sequence id or compressed
// packets. Damaged says what was skipped. Such a Reader still fails on
// input that is no trace, on reading errors and on limits, and returns
// a trace cut inside its last packet as an error wrapping
// io.ErrUnexpectedEOF.
func (r *Reader) SkipDamaged() { r.skipDamaged = true }

// Damaged returns what r skipped so far, nil when nothing.
func (r *Reader) Damaged() *DamageError {
	if r.damage.Packets == 0 {
		return nil
	}
	d := r.damage
	return &d
}

// skip counts err, at a packet that was framed whole, as damage when r
// skips damaged packets; false means that err stops the read.
func (r *Reader) skip(err *Error) bool {
	if !r.skipDamaged || !r.stamped {
		return false
	}
	r.damage.Add(err, 1)
	return true
}

// resync counts err, the damage of the framing at r.start, and moves to
// the next plausible packet, or to the end of the input. False means that
// err stops the read (nothing moved).
func (r *Reader) resync(err error) bool {
	if !r.skip(r.fail(err)) {
		return false
	}
	// The frame's bytes still in the buffer are searched too: the damage
	// may be its length.
	r.off -= int64(r.peeked)
	if r.off == r.start {
		r.r.Discard(1)
		r.off++
	}
	r.peeked = 0
	r.seek()
	return true
}

// resyncCut is resync for a packet at r.start that runs past the end of
// the input: damage when a packet follows within it (its length was
// damaged), else a cut trace and false. Nothing of it has been consumed.
func (r *Reader) resyncCut(cut error) bool {
	if !r.skipDamaged || !r.stamped {
		return false
	}
	r.r.Discard(1)
	r.off++
	if !r.seek() {
		return false
	}
	r.damage.Add(r.fail(cut), 1)
	return true
}

// seek discards bytes up to the next offset where a packet plausibly
// starts (see SkipDamaged), or to the end of the input; it says whether it
// found one. Each byte is looked at in one window: a candidate is framed
// in the first half of the buffer and checked only if it fits in the
// other, so the work is linear in the bytes skipped.
func (r *Reader) seek() bool {
	half := r.r.Size() / 2
	var h head
	for {
		buf, err := r.r.Peek(r.r.Size())
		eof := err != nil // the end, or a read error that the next frame reports
		if len(buf) == 0 {
			return false
		}
		scan := len(buf)
		if !eof {
			scan = half
		}
		i := 0
		for i < scan {
			j := bytes.IndexByte(buf[i:scan], 0x0a)
			if j < 0 {
				i = scan
				break
			}
			i += j
			if plausible(buf[i:], eof, half, &h) {
				r.r.Discard(i)
				r.off += int64(i)
				return true
			}
			i++
		}
		r.r.Discard(i)
		r.off += int64(i)
		if eof && i == len(buf) {
			return false
		}
	}
}

// plausible says whether a packet plausibly starts at b[0]: framed in at
// most limit bytes, followed by another packet's tag or the end of the
// input (eof: b is all of it), parsing, with a timestamp, a sequence id or
// compressed packets.
func plausible(b []byte, eof bool, limit int, h *head) bool {
	size, n, err := header(b, eof)
	if err != nil || n+int(size) >= limit {
		return false
	}
	end := n + int(size)
	switch {
	case end > len(b), end == len(b) && !eof, end < len(b) && b[end] != 0x0a:
		return false
	}
	return parseHead(b[n:end], h) == nil && (h.hasTS || h.seq != 0 || h.deflated.end != 0)
}

// notTrace is the error for input that fails before anything trace-like
// was read: not a trace, and what it looks like when that is known.
func (r *Reader) notTrace(err error) *Error {
	switch {
	case r.stamped:
		return r.fail(err)
	case r.kind != "":
		return r.fail(fmt.Errorf("%w: %s", ErrNotTrace, r.kind))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return r.fail(err)
	}
	return r.fail(fmt.Errorf("%w: %w", ErrNotTrace, err))
}
