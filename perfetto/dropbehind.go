package perfetto

import (
	"sync/atomic"
	"syscall"
)

// A trace file is written once and never read back by the process, yet left
// to the page cache it would take a new page of memory for every 4 KiB
// written, gigabytes over a long trace, each one a page the machine had to
// find (on a VM whose memory was never touched, the hypervisor's first-touch
// fault per page made write(2) cost about 2 ns per byte, ten times the copy
// into pages used before; docs/performance.md, "Writing a trace file"). So
// a dropper starts the writeback of every writebackStep written at once and
// drops the pages written dropLag and more before the end: the pages it
// frees are the ones the next writes get, so the file costs the process a
// copy into warm memory plus the writeback's submission, and the page cache
// holds a few tens of MiB of it, not the whole file. It runs on its own
// goroutine: a disk slower than the trace delays only it, and the writes go
// on into the page cache as they would without it.
const (
	writebackStep = 4 << 20
	dropLag       = 16 << 20
	// Pages still dirty or under writeback are not dropped; every page of
	// the window gets dropWindow/writebackStep tries before it is left to
	// the kernel's reclaim.
	dropWindow = 4 * writebackStep
)

type dropper struct {
	fd     int
	end    atomic.Int64  // the file's length, as the writer last reported it
	next   int64         // the writer's: the length at which it wakes the dropper next
	wake   chan struct{} // capacity 1; closed by stop
	done   chan struct{} // closed when the goroutine has returned
	kicked int64         // the goroutine's: writeback was started for the bytes before this
}

func startDropper(fd int) *dropper {
	d := &dropper{fd: fd, next: writebackStep, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go d.run()
	return d
}

// wrote tells the dropper the file is n bytes long now. The writer's calls
// and stop are serialised.
func (d *dropper) wrote(n int64) {
	d.end.Store(n)
	if n >= d.next {
		d.next = n + writebackStep
		select {
		case d.wake <- struct{}{}:
		default: // already woken: it reads end after this store
		}
	}
}

// stop waits for the dropper to finish what it was woken for: the file's
// descriptor must not be closed under it (it could be some other file's
// by then).
func (d *dropper) stop() {
	close(d.wake)
	<-d.done
}

func (d *dropper) run() {
	defer close(d.done)
	for range d.wake {
		d.dropBehind(d.end.Load())
	}
}

// dropBehind starts the writeback of the whole pages before end not started
// yet (without waiting for it) and drops the clean pages dropLag to
// dropLag+dropWindow before end. Both are advice: errors (a file system
// without writeback, such as tmpfs, which keeps its pages) change nothing.
func (d *dropper) dropBehind(end int64) {
	end &^= 4095 // the last partial page is written again next
	if end > d.kicked {
		_, _, _ = syscall.Syscall6(syscall.SYS_SYNC_FILE_RANGE, uintptr(d.fd), uintptr(d.kicked), uintptr(end-d.kicked), syncFileRangeWrite, 0, 0)
		d.kicked = end
	}
	if to := end - dropLag; to > 0 {
		from := max(0, to-dropWindow)
		_, _, _ = syscall.Syscall6(syscall.SYS_FADVISE64, uintptr(d.fd), uintptr(from), uintptr(to-from), fadvDontNeed, 0, 0)
	}
}

const (
	syncFileRangeWrite = 2 // SYNC_FILE_RANGE_WRITE
	fadvDontNeed       = 4 // POSIX_FADV_DONTNEED
)
