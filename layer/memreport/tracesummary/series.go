package tracesummary

import "github.com/vkgen/vkgen/perfetto/decode"

// maxBuckets bounds the points kept per counter track for the chart; a
// chart is under a thousand pixels wide, so more would not show.
const maxBuckets = 2048

// bucket is a stretch of time of a counter track: its first timestamp and
// the highest, lowest and last value in it.
type bucket struct {
	idx          uint64
	t            uint64
	hi, lo, last int64
}

// decimator keeps a counter track's samples (given in time order) for
// drawing in bounded memory: samples are merged into buckets of width
// 2^shift ns from the track's first sample, and when there are too many
// buckets the width doubles. Peaks survive (each bucket keeps its high and
// low), so the chart never hides a spike.
type decimator struct {
	t0      uint64
	shift   uint
	buckets []bucket
}

func (d *decimator) add(ts uint64, v int64) {
	if len(d.buckets) == 0 {
		d.t0 = ts
	}
	idx := (ts - d.t0) >> d.shift
	if n := len(d.buckets); n > 0 && d.buckets[n-1].idx == idx {
		b := &d.buckets[n-1]
		b.hi, b.lo, b.last = max(b.hi, v), min(b.lo, v), v
		return
	}
	d.buckets = append(d.buckets, bucket{idx: idx, t: ts, hi: v, lo: v, last: v})
	for len(d.buckets) > maxBuckets {
		d.coarsen()
	}
}

// coarsen doubles the bucket width, merging neighbours.
func (d *decimator) coarsen() {
	d.shift++
	out := d.buckets[:0]
	for _, b := range d.buckets {
		b.idx >>= 1
		if n := len(out); n > 0 && out[n-1].idx == b.idx {
			p := &out[n-1]
			p.hi, p.lo, p.last = max(p.hi, b.hi), min(p.lo, b.lo), b.last
			continue
		}
		out = append(out, b)
	}
	d.buckets = out
}

// samples is the step line to draw, times relative to t0: each bucket's
// range at its first timestamp, ending on its last value.
func (d *decimator) samples(t0 uint64) []decode.CounterSample {
	var out []decode.CounterSample
	for _, b := range d.buckets {
		t := b.t - t0
		out = append(out, decode.CounterSample{Timestamp: t, Value: b.hi})
		if b.lo != b.hi {
			out = append(out, decode.CounterSample{Timestamp: t, Value: b.lo})
		}
		if b.last != b.lo {
			out = append(out, decode.CounterSample{Timestamp: t, Value: b.last})
		}
	}
	return out
}
