package perfetto

import "syscall"

// A trace file is written once and never read back by the process, yet left
// to the page cache it would take a new page of memory for every 4 KiB
// written, gigabytes over a long trace, each one a page the machine had to
// find (on a VM whose memory was never touched, the hypervisor's first-touch
// fault per page made write(2) cost about 2 ns per byte, 13 times the copy
// into pages already in use; docs/performance.md, "Writing a trace file").
// So the output starts the writeback of every writebackStep it wrote at
// once and drops the pages written dropLag and more before the end: the
// pages it frees are the ones its next writes get, so the file costs the
// process a copy into warm memory plus the writeback's submission, and the
// page cache holds a few tens of MiB of it, not the whole file.
const (
	writebackStep = 4 << 20
	dropLag       = 16 << 20
	// Pages still dirty or under writeback are not dropped; every page of
	// the window gets dropWindow/writebackStep tries before it is left to
	// the kernel's reclaim.
	dropWindow = 4 * writebackStep
)

// dropBehind starts the writeback of the whole pages written since the last
// call (without waiting for it) and drops the clean pages dropLag to
// dropLag+dropWindow before the end. Both are advice: errors (a file system
// without writeback, such as tmpfs, which keeps its pages) change nothing.
func (o *fileOutput) dropBehind() {
	end := o.good &^ 4095 // the last partial page is written again next
	_, _, _ = syscall.Syscall6(syscall.SYS_SYNC_FILE_RANGE, uintptr(o.fd), uintptr(o.kicked), uintptr(end-o.kicked), syncFileRangeWrite, 0, 0)
	o.kicked = end
	if to := end - dropLag; to > 0 {
		from := max(0, to-dropWindow)
		_, _, _ = syscall.Syscall6(syscall.SYS_FADVISE64, uintptr(o.fd), uintptr(from), uintptr(to-from), fadvDontNeed, 0, 0)
	}
}

const (
	syncFileRangeWrite = 2 // SYNC_FILE_RANGE_WRITE
	fadvDontNeed       = 4 // POSIX_FADV_DONTNEED
)
