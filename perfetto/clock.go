package perfetto

import (
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// Timestamps are CLOCK_BOOTTIME nanoseconds. The Go runtime reads
// CLOCK_MONOTONIC through the vDSO (time.Since on a monotonic time.Time), while
// CLOCK_BOOTTIME needs a real system call (~100+ ns, too slow per event).
// The two clocks differ only by time spent in system suspend, so we keep
// offset = BOOTTIME - MONOTONIC and re-measure it from every flush tick;
// the offset only ever grows (suspend), so timestamps never go backwards.
var (
	monoBase   = time.Now()
	bootOffset atomic.Int64
)

const clockBoottime = 7 // CLOCK_BOOTTIME in <linux/time.h>

func sysBoottime() (int64, bool) {
	var ts syscall.Timespec
	_, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockBoottime, uintptr(unsafe.Pointer(&ts)), 0)
	if errno != 0 {
		return 0, false
	}
	return ts.Nano(), true
}

// calibrateClock re-measures the BOOTTIME-MONOTONIC offset. Sub-millisecond
// differences are measurement jitter and are ignored.
func calibrateClock() {
	m1 := int64(time.Since(monoBase))
	b, ok := sysBoottime()
	m2 := int64(time.Since(monoBase))
	if !ok {
		return
	}
	off := b - (m1+m2)/2
	for {
		old := bootOffset.Load()
		if old != 0 && off < old+int64(time.Millisecond) {
			return
		}
		if bootOffset.CompareAndSwap(old, off) {
			return
		}
	}
}

// Now returns the current CLOCK_BOOTTIME in nanoseconds, the timebase of every
// timestamp in the trace (clock id ClockBoottime).
func Now() uint64 { return uint64(int64(time.Since(monoBase)) + bootOffset.Load()) }

// Process identity, fixed at load: the layer library never changes process.
var (
	pid         = int32(os.Getpid())
	processUUID uint64
	processName string
	cmdline     []string
)

func init() {
	calibrateClock()
	processUUID = fnv1a(strconv.Itoa(int(pid))+"/"+strconv.FormatUint(Now(), 10)) | 1
	cmdline = os.Args
	if b, err := os.ReadFile("/proc/self/cmdline"); err == nil && len(b) > 0 {
		cmdline = strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
	}
	if len(cmdline) > 0 {
		processName = cmdline[0]
	}
}

// Track selects the track an instant event goes to. The zero Track is the
// process track (the sequence default, so it costs no bytes per event).
type Track struct{ tid int32 }

// ThreadTrack is the track of OS thread tid of this process. Its uuid is the
// process track's uuid XOR tid, as the SDK derives it; the thread
// TrackDescriptor is written once per sequence before its first event.
func ThreadTrack(tid int32) Track { return Track{tid: tid} }

// UUID is the track uuid written to the trace.
func (t Track) UUID() uint64 {
	if t.tid == 0 {
		return processUUID
	}
	return processUUID ^ uint64(t.tid)
}

// ProcessTrackUUID is the uuid of this process's track (the parent of every
// counter track).
func ProcessTrackUUID() uint64 { return processUUID }

func threadName(tid int32) string {
	b, err := os.ReadFile("/proc/self/task/" + strconv.Itoa(int(tid)) + "/comm")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
