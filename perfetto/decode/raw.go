package decode

import "fmt"

// Raw is where a packet is and what its top-level fields hold: what a
// caller keeps with the packet's body to hand it to the Decoder that owns
// its sequence. It holds no pointers, so batches of them cost the garbage
// collector nothing.
type Raw struct {
	Offset int64 // byte offset of the packet in the input (of the compressed packet it was inflated from)
	// Pos orders the packets and measures the distance between them: the
	// packet's offset in the input as if every compressed packet were
	// inflated in place (Offset when there is none).
	Pos   int64
	Index int  // position in the file
	head  head // the top-level fields, which the Decoder does not walk again
}

// SeqID is the packet's trusted_packet_sequence_id.
func (r *Raw) SeqID() uint32 { return r.head.seq }

// NextRaw reads the next packet without decoding it, except for its
// top-level fields and track descriptor, so that packets can be decoded in
// parallel by Decoders that each own whole sequences (interning is per
// sequence) while track descriptors, which span sequences, stay in file
// order. It fills raw; body is valid until the next call, and so is track, the packet's
// TrackDescriptor, nil when it has none (NextRaw does not collect them in
// Tracks: a trace can hold one per object, and the caller knows which it
// needs). Errors and the end of the input are as for Next. A Reader is used
// either with Next or with NextRaw.
func (r *Reader) NextRaw(raw *Raw) (body []byte, track *Track, err error) {
	h := &raw.head
	for {
		if body, err = r.packet(h); err != nil {
			return nil, nil, err
		}
		if h.seq != r.lastSeq || len(r.rawSeqs) == 0 { // runs of one sequence are the rule
			if _, ok := r.rawSeqs[h.seq]; !ok {
				if len(r.rawSeqs) >= MaxSequences {
					return nil, nil, r.fail(fmt.Errorf("sequence %d is more than the %d distinct sequences a trace may have", h.seq, MaxSequences))
				}
				r.rawSeqs[h.seq] = struct{}{}
			}
			r.lastSeq = h.seq
		}
		track = nil
		if td := h.td.of(body); td != nil {
			track, r.track = &r.track, Track{}
			if err = r.decodeTrackInto(td, track); err != nil {
				if e := r.fail(fmt.Errorf("track_descriptor: %w", err)); !r.skip(e) {
					return nil, nil, e
				}
				continue
			}
		}
		raw.Offset, raw.Pos, raw.Index = r.start, r.pos, r.n
		r.n++
		r.stamped = r.stamped || h.hasTS || h.seq != 0
		return body, track, nil
	}
}

// Decoder decodes the packets of the sequences given to it, in their file
// order, keeping their interning state; see NextRaw. It leaves track
// descriptors to NextRaw: Packet.Track stays nil.
type Decoder struct {
	name string
	state
	pkt Packet
}

// NewDecoder returns a Decoder; name is used in errors.
func NewDecoder(name string) *Decoder {
	return &Decoder{name: name, state: state{seqs: map[uint32]*seqState{}, strs: new([strSlots]string)}}
}

// Only makes d decode track events of the given types (TypeInstant, ...)
// in full; of other types the Event holds the fields before its type and
// the type (no extra counter values), and the rest is neither decoded nor
// checked (an uninterned iid there is no error). A caller that ignores slices skips most of their
// cost: writers put the type near the front.
func (d *Decoder) Only(types ...int32) {
	for _, t := range types {
		if t >= 0 && t < 32 {
			d.only |= 1 << t
		}
	}
}

// Decode decodes the packet of raw and body. The packet and its Event are
// valid until the next call; an error is an *Error at raw's offset.
func (d *Decoder) Decode(raw *Raw, body []byte) (*Packet, error) {
	if err := decodeBody(body, &raw.head, &d.state, &d.pkt); err != nil {
		return nil, &Error{File: d.name, Offset: raw.Offset, Packet: raw.Index, Err: err}
	}
	d.pkt.Index = raw.Index
	return &d.pkt, nil
}
