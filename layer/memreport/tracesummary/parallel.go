package tracesummary

import (
	"errors"
	"io"
	"runtime"
	"sync"

	"github.com/vkgen/vkgen/perfetto/decode"
)

// Read decodes packets on several workers and orders and applies their
// events on the calling goroutine. One goroutine reads the input: it frames
// packets, decodes track descriptors (they span sequences) and deals the
// packets out in rounds of about roundBytes or roundPackets, each worker
// getting every packet of the sequences it owns (interning state is per
// sequence and changes as the trace goes). The caller merges each round's
// events by position in the file (decode.Raw.Pos), so the reordering and
// the ties are those of one pass in file order. With one worker the
// reading goroutine decodes too (deal). Damaged packets are
// skipped and counted (decode.Reader.SkipDamaged), by the reader and the
// workers. Memory stays bounded: at most
// roundsInFlight rounds exist, reused, and a round holds one packet more
// than it may (so at worst roundsInFlight packets of decode.MaxPacketBytes).
const (
	roundBytes     = 256 << 10
	roundPackets   = 4096
	roundsInFlight = 6
	maxWorkers     = 8
)

// round is a stretch of the trace.
type round struct {
	in     []batch              // per worker: its packets
	out    [][]item             // per worker: its events, in file order
	damage []decode.DamageError // per worker: the packets it could not decode
	tracks []trackAt            // track descriptors, in file order
	end    error                // the reader's error after this round (io.EOF at the end)
	done   sync.WaitGroup       // the workers' part
}

// batch is packets copied out of the reader's buffer, back to back.
type batch struct {
	body []byte
	pkts []packetAt
}

type packetAt struct {
	end int // in body; the previous packet's end is its start
	raw decode.Raw
}

// trackAt is a track descriptor: a counter track's, or the uuid of
// another.
type trackAt struct {
	pos     int64
	uuid    uint64
	counter *decode.Track
}

// item is an event on its way from a worker.
type item struct {
	seq uint32
	pos int64
	e   event
}

// Read summarises the trace read from r in one pass; name is used in errors,
// which give the byte offset. Input that is not a Perfetto trace is an error
// wrapping decode.ErrNotTrace. A trace that ends inside a packet (one still
// being written, or cut) after whole ones returns the summary of every
// packet before it together with the error, which wraps
// io.ErrUnexpectedEOF. A trace with damaged packets returns the summary of
// the others with a *decode.DamageError (the cut, if any, counted in it).
func Read(r io.Reader, name string, o Options) (*Summary, error) {
	workers := o.Workers
	if workers <= 0 {
		workers = min(runtime.GOMAXPROCS(0), maxWorkers)
	}
	s := newSummarizer(o, workers)
	free := make(chan *round, roundsInFlight)
	merge := make(chan *round, roundsInFlight)
	decs := make([]*decoder, workers)
	for w := range decs {
		decs[w] = newDecoder(name, s.sym)
		s.local[w].from = decs[w].x.strs
	}
	// One worker decodes on the reading goroutine, from the reader's
	// buffer: no copy of the packets, no hand-over per round. This is how
	// diff and check read their traces side by side, one core each.
	var inline *decoder
	var work []chan *round
	quit := make(chan struct{})
	var wg sync.WaitGroup
	if workers == 1 {
		inline = decs[0]
	} else {
		work = make([]chan *round, workers)
		for w := range work {
			work[w] = make(chan *round, roundsInFlight)
			wg.Go(func() { decodeRounds(w, work[w], decs[w]) })
		}
	}
	dr := decode.NewReader(r, name)
	dr.SkipDamaged()
	wg.Go(func() {
		defer func() {
			for _, c := range work {
				close(c)
			}
			close(merge)
		}()
		deal(dr, workers, free, work, merge, quit, inline)
	})
	var damage decode.DamageError
	err := s.mergeRounds(merge, free, &damage)
	close(quit) // the reader may wait for a free round
	wg.Wait()
	if d := dr.Damaged(); d != nil {
		damage.Add(d.First, d.Packets)
	}
	var de *decode.Error
	switch {
	case err == io.EOF:
	case errors.Is(err, io.ErrUnexpectedEOF) && errors.As(err, &de) && de.Packet > 0:
		// Cut inside a packet that follows whole ones: mergeRounds merged
		// every packet before it.
		if damage.Packets == 0 {
			return s.finish(), err
		}
		damage.Add(de, 1)
	default:
		return nil, err
	}
	if damage.Packets > 0 {
		return s.finish(), &damage
	}
	return s.finish(), nil
}

// deal reads packets into rounds and hands each round to every worker and
// to the merger, until the input ends (the last round's end says how) or
// quit closes. With inline set there are no workers: deal decodes each
// packet itself, as worker 0.
// Rounds are made as needed (a small trace needs one) and their slices grow
// to what a round holds, then are reused. No send blocks: each channel can
// hold every round.
func deal(dr *decode.Reader, workers int, free chan *round, work []chan *round, merge chan *round, quit chan struct{}, inline *decoder) {
	made := 0
	for {
		var rd *round
		select {
		case rd = <-free:
		case <-quit:
			return
		default:
			if made < roundsInFlight {
				rd = &round{in: make([]batch, workers), out: make([][]item, workers), damage: make([]decode.DamageError, workers)}
				made++
				break
			}
			select {
			case rd = <-free:
			case <-quit:
				return
			}
		}
		for w := range rd.in {
			b := &rd.in[w]
			if cap(b.body) > 4*roundBytes { // held a huge packet: let it go
				b.body = nil
			}
			b.body, b.pkts = b.body[:0], b.pkts[:0]
			rd.out[w], rd.damage[w] = rd.out[w][:0], decode.DamageError{}
		}
		rd.tracks, rd.end = rd.tracks[:0], nil
		var raw decode.Raw
		for n, k := 0, 0; n < roundBytes && k < roundPackets; k++ {
			body, tr, err := dr.NextRaw(&raw)
			if err != nil {
				rd.end = err
				break
			}
			if tr != nil {
				t := trackAt{pos: raw.Pos, uuid: tr.UUID}
				if tr.Counter != nil { // the summary keeps only these; tr is the reader's
					c := *tr
					t.counter = &c
				}
				rd.tracks = append(rd.tracks, t)
			}
			n += len(body)
			if inline != nil {
				rd.out[0] = inline.decode(&raw, body, rd.out[0], &rd.damage[0])
				continue
			}
			b := &rd.in[int(raw.SeqID())%len(rd.in)]
			b.body = append(b.body, body...)
			b.pkts = append(b.pkts, packetAt{len(b.body), raw})
		}
		rd.done.Add(len(work))
		for _, c := range work {
			c <- rd
		}
		merge <- rd
		if rd.end != nil {
			return
		}
	}
}

// decoder is a worker's decoding state: interning is per sequence, and a
// worker sees every packet of its sequences.
type decoder struct {
	dec *decode.Decoder
	x   *extractor
}

func newDecoder(name string, sym *Symbolizer) *decoder {
	dec := decode.NewDecoder(name)
	dec.Only(decode.TypeInstant, decode.TypeCounter) // what extractor.event reads
	return &decoder{dec: dec, x: newExtractor(sym)}
}

// decode appends the events of the packet raw, body, to out; a packet that
// does not decode is counted in damage.
func (d *decoder) decode(raw *decode.Raw, body []byte, out []item, damage *decode.DamageError) []item {
	p, err := d.dec.Decode(raw, body)
	if err != nil {
		// Looked at only on an error: errors.As's target escapes, an
		// allocation per packet otherwise.
		var de *decode.Error
		if errors.As(err, &de) {
			damage.Add(de, 1)
			return out
		}
	}
	return d.x.events(p, out, raw.SeqID(), raw.Pos)
}

// decodeRounds is worker w: it decodes its packets of every round, in
// order, and counts those that do not decode.
func decodeRounds(w int, rounds chan *round, d *decoder) {
	for rd := range rounds {
		b, out := &rd.in[w], rd.out[w]
		start := 0
		for i := range b.pkts {
			pk := &b.pkts[i]
			out = d.decode(&pk.raw, b.body[start:pk.end], out, &rd.damage[w])
			start = pk.end
		}
		rd.out[w] = out
		rd.done.Done()
	}
}

// mergeRounds takes the rounds in order, merges each one's events and
// track descriptors by position into the summarizer, adds up the packets
// the workers could not decode in damage and recycles the round. It
// returns how the input ended: io.EOF at the end of the trace.
func (s *summarizer) mergeRounds(merge, free chan *round, damage *decode.DamageError) error {
	next := make([]int, len(s.local))
	for {
		rd := <-merge // the last round has end set
		rd.done.Wait()
		for _, d := range rd.damage {
			if d.Packets > 0 {
				damage.Add(d.First, d.Packets)
			}
		}
		clear(next)
		t := 0
		for {
			// The source with the first event, and how far it can go
			// before another source's next one.
			best, bound := -1, int64(1<<63-1)
			at := bound
			for w, out := range rd.out {
				if next[w] < len(out) {
					if p := out[next[w]].pos; p < at {
						best, bound, at = w, at, p
					} else if p < bound {
						bound = p
					}
				}
			}
			if t < len(rd.tracks) && rd.tracks[t].pos < at {
				s.track(rd.tracks[t].uuid, rd.tracks[t].counter)
				t++
				continue
			}
			if best < 0 {
				break
			}
			if t < len(rd.tracks) {
				bound = min(bound, rd.tracks[t].pos)
			}
			out := rd.out[best]
			i := next[best]
			for ; i < len(out) && out[i].pos < bound; i++ {
				s.accept(best, &out[i])
			}
			next[best] = i
		}
		if rd.end != nil {
			return rd.end
		}
		free <- rd
	}
}
