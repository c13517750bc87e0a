package decode

import (
	"fmt"

	"github.com/vkgen/vkgen/perfetto/internal/pb"
	"google.golang.org/protobuf/encoding/protowire"
)

// Sequence-scoped clocks (clock ids 64-127) are a sequence's own: a
// ClockSnapshot on the sequence ties one to another clock (CLOCK_BOOTTIME
// here) at one instant, and an incremental one is then read as the sum of
// the deltas since. This is what the official SDK and package perfetto
// write; other clock domains are left as written.
const (
	firstSeqClock = 64
	lastSeqClock  = 127
	clockBoottime = 6
)

type seqClockID struct {
	seq, clock uint32
}

// seqClock is a sequence-scoped clock: its value (the latest timestamp read
// on it) and what to add to a value to make it CLOCK_BOOTTIME.
type seqClock struct {
	value       uint64
	toBoottime  uint64 // added, wrapping: the offset may be negative
	incremental bool
	multiplier  uint64 // unit_multiplier_ns
}

// clockSnapshot reads a ClockSnapshot of sequence seq: each sequence-scoped
// clock in it is set to its timestamp, at the snapshot's CLOCK_BOOTTIME.
func (d *state) clockSnapshot(b []byte, seq uint32) error {
	type clock struct {
		id          uint32
		ts, mult    uint64
		incremental bool
	}
	var clocks []clock
	var boottime uint64
	hasBoottime := false
	err := pb.Walk(b, func(num protowire.Number, _ uint64, raw []byte) error {
		if num != 1 {
			return nil
		}
		c := clock{mult: 1}
		if err := pb.Walk(raw, func(num protowire.Number, v uint64, _ []byte) error {
			switch num {
			case 1:
				c.id = uint32(v)
			case 2:
				c.ts = v
			case 3:
				c.incremental = v != 0
			case 4:
				if v != 0 {
					c.mult = v
				}
			}
			return nil
		}); err != nil {
			return err
		}
		if c.id == clockBoottime {
			boottime, hasBoottime = c.ts, true
		}
		clocks = append(clocks, c)
		return nil
	})
	if err != nil || !hasBoottime {
		return err // a snapshot without CLOCK_BOOTTIME ties nothing this reads
	}
	for _, c := range clocks {
		if c.id < firstSeqClock || c.id > lastSeqClock {
			continue
		}
		if d.clocks == nil {
			d.clocks = map[seqClockID]*seqClock{}
		}
		if len(d.clocks) >= MaxSequences {
			return fmt.Errorf("more than %d sequence-scoped clocks", MaxSequences)
		}
		d.clocks[seqClockID{seq, c.id}] = &seqClock{value: c.ts, toBoottime: boottime - c.ts*c.mult,
			incremental: c.incremental, multiplier: c.mult}
	}
	return nil
}

// resolveTime makes p's timestamp CLOCK_BOOTTIME when it is written on a
// sequence-scoped clock (explicitly or by the sequence's default).
func (d *state) resolveTime(p *Packet, st *seqState) error {
	id := st.defaultClock
	if p.HasClockID {
		id = p.ClockID
	}
	if id < firstSeqClock || id > lastSeqClock {
		return nil
	}
	c := d.clocks[seqClockID{p.SeqID, id}]
	if c == nil {
		return fmt.Errorf("timestamp on clock %d of sequence %d before a clock snapshot defines it", id, p.SeqID)
	}
	v := p.Timestamp
	if c.incremental {
		v += c.value
		c.value = v
	}
	p.Timestamp = v*c.multiplier + c.toBoottime
	return nil
}
