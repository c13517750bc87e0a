package system

import (
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/vkgen/vkgen/internal/perfettotools"
	"github.com/vkgen/vkgen/internal/testenv"
	"github.com/vkgen/vkgen/perfetto"
	"github.com/vkgen/vkgen/perfetto/system/internal/fakeservice"
)

var anSize = perfetto.NewAnnotationName("size")

// emit is the benchmarks' event: an instant with three annotations, as the
// Perfetto C++ SDK measurement it is compared with.
func emit() {
	perfetto.Instant(catMemory, evAlloc, perfetto.Uint(anHandle, 0xabcd), perfetto.Int(anSize, 65536), perfetto.String(anName, "buffer"))
}

// tracedInstance starts a real traced with a session recording the shipped
// configuration (configs/vkgen.pbtxt, its 64 MiB buffer) and a producer
// whose instance of it runs; the returned session is that instance's.
func tracedInstance(b *testing.B) (*perfetto.Session, *Producer, *perfettotools.Recording, *perfettotools.Service) {
	b.Helper()
	cfg, err := os.ReadFile(filepath.Join(testenv.Root(), "configs", "vkgen.pbtxt"))
	if err != nil {
		b.Fatal(err)
	}
	svc := perfettotools.StartTraced(b)
	rec := svc.Record(b, string(cfg), filepath.Join(b.TempDir(), "bench.pftrace"))
	p := Start(Config{Socket: svc.ProducerSock})
	b.Cleanup(func() { p.Close() })
	for p.Instances() == 0 { // set-up, not timed
		time.Sleep(time.Millisecond)
	}
	return perfetto.Sessions()[0], p, rec, svc
}

// BenchmarkInstant emits events into one session whose output is a file or
// the shared memory buffer of a real traced instance, from one goroutine
// and from eight, in the same run; the timed part ends with a flush that
// handed every event to the output. Lost events are a metric.
func BenchmarkInstant(b *testing.B) {
	for _, par := range []int{1, 8} {
		run := func(b *testing.B, s *perfetto.Session, svc *perfettotools.Service) {
			b.ReportAllocs()
			start, cpu := time.Now(), cpuTime()
			var tcpu time.Duration
			if svc != nil {
				tcpu = svc.CPUTime()
			}
			if par == 1 {
				for b.Loop() {
					emit()
				}
			} else {
				b.SetParallelism((par + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						emit()
					}
				})
			}
			if err := s.Flush(); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "events/s")
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/event")
			if svc != nil {
				b.ReportMetric(float64(svc.CPUTime()-tcpu)/float64(b.N), "traced-cpu-ns/event")
			}
			b.ReportMetric(float64(s.Dropped()), "lost")
		}
		b.Run(map[int]string{1: "1thread", 8: "8threads"}[par], func(b *testing.B) {
			b.Run("file", func(b *testing.B) {
				s, err := perfetto.StartFileSession(filepath.Join(b.TempDir(), "t.pftrace"), perfetto.Options{})
				if err != nil {
					b.Fatal(err)
				}
				defer s.Stop()
				run(b, s, nil)
			})
			b.Run("traced", func(b *testing.B) {
				s, p, rec, svc := tracedInstance(b)
				run(b, s, svc)
				b.ReportMetric(float64(p.SMBDropped()), "smb-lost")
				b.StopTimer()
				rec.Stop(b)
			})
		})
	}
}

// cpuTime is the CPU time of this process so far (every goroutine, user
// and system): on a shared machine less noisy than wall time, and blind to
// traced's share.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkPaced emits 1 M events/s for one second into a real traced
// recording the shipped configuration and reports the losses (goal: none).
func BenchmarkPaced(b *testing.B) {
	const rate, batch = 1_000_000, 10_000 // a batch every 10 ms
	for b.Loop() {
		s, p, rec, _ := tracedInstance(b)
		start := time.Now()
		for i := 0; i < rate; i += batch {
			for range batch {
				emit()
			}
			time.Sleep(time.Until(start.Add(time.Duration(i+batch) * time.Second / rate)))
		}
		b.StopTimer()
		rec.Stop(b)
		b.ReportMetric(float64(s.Dropped()), "lost")
		b.ReportMetric(float64(p.SMBDropped()), "smb-lost")
		b.StartTimer()
	}
}

// BenchmarkBurst emits 300,000 events (about 15 MB: nearly 4 times the
// default shared memory buffer) at full speed into a real traced recording
// the shipped configuration, then flushes, and reports the events lost per
// burst. Timed: the burst and the flush, not traced's start.
func BenchmarkBurst(b *testing.B) {
	const n = 300_000
	var lost, smbLost uint64
	for b.Loop() {
		b.StopTimer()
		s, p, rec, _ := tracedInstance(b)
		b.StartTimer()
		for range n {
			emit()
		}
		if err := s.Flush(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		rec.Stop(b)
		lost += s.Dropped()
		smbLost += p.SMBDropped()
		b.StartTimer()
	}
	b.ReportMetric(float64(lost)/float64(b.N), "lost/burst")
	b.ReportMetric(float64(smbLost)/float64(b.N), "smb-lost/burst")
}

// BenchmarkReplay times a data-source start, from the StartDataSource
// command to NotifyDataSourceStarted (the replay written and committed),
// with the layers' scale of state (100,000 names, 1,000 live allocations
// with CREATE and BIND events) and with no state, in the same run.
func BenchmarkReplay(b *testing.B) {
	for _, n := range []int{0, 100_000} {
		b.Run(map[int]string{0: "empty", 100_000: "100k-names-1k-allocations"}[n], func(b *testing.B) {
			if n > 0 {
				defer perfetto.RegisterReplay(func(e *perfetto.Emitter) {
					for i := range n {
						e.VkObjectName(1, 9, uint64(0x1000+i), "replayed buffer name")
						e.Instant(catMemory, evName, perfetto.Uint(anHandle, uint64(0x1000+i)), perfetto.String(anName, "replayed buffer name"))
					}
					for i := range 1000 {
						for _, op := range []string{"CREATE", "BIND"} {
							e.Instant(catMemory, evAlloc, perfetto.String(anName, op), perfetto.Uint(anHandle, uint64(i)), perfetto.Int(anSize, 65536))
						}
					}
				})()
			}
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
			id := uint64(0)
			for b.Loop() {
				id++
				if err := c.StartDataSource(id, fakeservice.Config{}, wait); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if err := c.StopDataSource(id, wait); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
		})
	}
}
