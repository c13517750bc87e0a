package system

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/vkgen/vkgen/perfetto"
	"github.com/vkgen/vkgen/perfetto/system/internal/fakeservice"
)

// BenchmarkInstant emits instant events with three annotations into one
// session whose output is a file or the shared memory buffer of a (fake)
// traced, in the same run; the timed part ends with a flush that has
// handed every event to the output. Lost events are reported as a metric.
func BenchmarkInstant(b *testing.B) {
	anSize := perfetto.NewAnnotationName("size")
	emit := func() {
		perfetto.Instant(catMemory, evAlloc, perfetto.Uint(anHandle, 0xabcd), perfetto.Int(anSize, 65536), perfetto.String(anName, "buffer"))
	}
	report := func(b *testing.B, elapsed time.Duration, lost uint64) {
		b.ReportMetric(float64(b.N)/elapsed.Seconds(), "events/s")
		b.ReportMetric(float64(lost), "lost")
	}
	b.Run("file", func(b *testing.B) {
		s, err := perfetto.StartFileSession(filepath.Join(b.TempDir(), "t.pftrace"), perfetto.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		start := time.Now()
		for b.Loop() {
			emit()
		}
		if err := s.Flush(); err != nil {
			b.Fatal(err)
		}
		report(b, time.Since(start), s.Dropped())
		b.StopTimer()
		s.Stop()
	})
	b.Run("smb", func(b *testing.B) {
		svc, err := fakeservice.Start(sockPath(b), fakeservice.Options{PageSize: 32 << 10, SMBSize: 4 << 20, CountOnly: true})
		if err != nil {
			b.Fatal(err)
		}
		defer svc.Close()
		p := Start(Config{Socket: svc.Addr()})
		defer p.Close()
		c, err := svc.Next(wait)
		if err != nil {
			b.Fatal(err)
		}
		if err := c.StartDataSource(1, fakeservice.Config{}, wait); err != nil {
			b.Fatal(err)
		}
		s := perfetto.Sessions()[0]
		b.ReportAllocs()
		start := time.Now()
		for b.Loop() {
			emit()
		}
		if err := c.Flush([]uint64{1}, wait); err != nil {
			b.Fatal(err)
		}
		elapsed := time.Since(start)
		b.StopTimer()
		if err := c.StopDataSource(1, wait); err != nil {
			b.Fatal(err)
		}
		report(b, elapsed, s.Dropped()) // SMB losses included
	})
}
