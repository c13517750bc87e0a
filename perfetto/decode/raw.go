package decode

import (
	"fmt"

	"github.com/vkgen/vkgen/perfetto/internal/pb"
)

// Raw is one packet as read, not yet decoded: what a caller needs to hand
// it to the Decoder that owns its sequence.
type Raw struct {
	Body   []byte // valid until the next call of NextRaw
	Offset int64  // byte offset of the packet in the input
	Index  int    // position in the file
	SeqID  uint32
	// Track is the packet's TrackDescriptor, nil when it has none. NextRaw
	// does not collect them in the Reader's Tracks: a trace can hold one per
	// object, and the caller knows which it needs.
	Track *Track
}

// NextRaw reads the next packet without decoding it, except for its
// sequence id and track descriptor, so that packets can be decoded in
// parallel by Decoders that each own whole sequences (interning is per
// sequence) while track descriptors, which span sequences, stay in file
// order. Errors and the end of the input are as for Next. A Reader is used
// either with Next or with NextRaw.
func (r *Reader) NextRaw() (Raw, error) {
	body, err := r.frame()
	if err != nil {
		return Raw{}, err
	}
	raw := Raw{Body: body, Offset: r.start, Index: r.n}
	var stamped bool
	var td []byte
	for b := body; len(b) > 0; {
		num, v, data, rest, err := pb.Next(b)
		if err != nil {
			return Raw{}, r.fail(err)
		}
		switch b = rest; num {
		case 8:
			stamped = true
		case 10:
			raw.SeqID = uint32(v)
		case 60:
			td = data
		}
	}
	if raw.SeqID != r.lastSeq || len(r.rawSeqs) == 0 { // runs of one sequence are the rule
		if _, ok := r.rawSeqs[raw.SeqID]; !ok {
			if len(r.rawSeqs) >= MaxSequences {
				return Raw{}, r.fail(fmt.Errorf("sequence %d is more than the %d distinct sequences a trace may have", raw.SeqID, MaxSequences))
			}
			r.rawSeqs[raw.SeqID] = struct{}{}
		}
		r.lastSeq = raw.SeqID
	}
	if td != nil {
		tr, err := decodeTrack(td)
		if err != nil {
			return Raw{}, r.fail(fmt.Errorf("track_descriptor: %w", err))
		}
		raw.Track = tr
	}
	r.n++
	r.stamped = r.stamped || stamped || raw.SeqID != 0
	return raw, nil
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

// Decode decodes raw. The packet and its Event are valid until the next
// call; an error is an *Error at raw's offset.
func (d *Decoder) Decode(raw Raw) (*Packet, error) {
	p, err := decodePacket(raw.Body, &d.state)
	if err != nil {
		return nil, &Error{File: d.name, Offset: raw.Offset, Packet: raw.Index, Err: err}
	}
	p.Index = raw.Index
	d.pkt = p
	return &d.pkt, nil
}
