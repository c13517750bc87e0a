package system

import (
	"testing"

	"github.com/vkgen/vkgen/perfetto"
	"github.com/vkgen/vkgen/perfetto/system/shmabi"
)

// batchOutput keeps the first batch a session hands over.
type batchOutput struct{ b []byte }

func (o *batchOutput) Write(_ uint32, b []byte) error {
	if o.b == nil {
		o.b = append([]byte(nil), b...)
	}
	return nil
}
func (o *batchOutput) Close() error { return nil }

// BenchmarkCopy times the flusher's share of the traced path alone: copying
// a 256 KiB batch of the benchmarks' events into SMB chunks and committing
// them, with the service's side (freeing every chunk, dropping the queued
// CommitData) done untimed; ns/event is the time per packet copied.
func BenchmarkCopy(b *testing.B) {
	rec := &batchOutput{}
	s, err := perfetto.StartSession("copy", rec, perfetto.Options{Sequences: 1, OmitSequenceID: true})
	if err != nil {
		b.Fatal(err)
	}
	for range 256 << 10 / 50 {
		emit()
	}
	s.Stop()
	events := countPackets(rec.b)
	mem, err := privateSMB(4 << 20)
	if err != nil {
		b.Fatal(err)
	}
	defer unmap(mem)
	c := newConn(&Producer{}, nil)
	c.methods = map[string]uint32{}
	if err := c.setSMB(mem, 32<<10); err != nil {
		b.Fatal(err)
	}
	o := newOutput(c, dsConfig{})
	b.ReportAllocs()
	for b.Loop() {
		if err := o.Write(2, rec.b); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		for p := range c.buf.Pages() {
			for i := range shmabi.ChunksPerPage(shmabi.Layout(c.buf.Bitmap(p))) {
				if ch, ok := c.buf.TryAcquireForReading(p, i); ok {
					c.buf.ReleaseFree(ch)
				}
			}
		}
		c.qmu.Lock()
		c.queue = c.queue[:0]
		c.qmu.Unlock()
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*events), "ns/event")
}
