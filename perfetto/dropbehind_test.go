package perfetto

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"unsafe"
)

// A trace file's pages leave the page cache once they are clean and dropLag
// behind the end of the file, and the file still holds every byte written.
func TestFileDropsPagesBehind(t *testing.T) {
	dir := t.TempDir()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	if st.Type == 0x01021994 || st.Type == 0x858458f6 { // TMPFS_MAGIC, RAMFS_MAGIC
		t.Skip("the temporary directory is in memory: its pages are the file")
	}
	path := filepath.Join(dir, "t.pftrace")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	o := newFileOutput(f, nil)
	var want []byte
	write := func(n int) {
		b := make([]byte, 256<<10)
		for len(want) < n {
			for i := range b {
				b[i] = byte(len(want)/len(b) + i)
			}
			if err := o.Write(1, b); err != nil {
				t.Fatal(err)
			}
			want = append(want, b...)
		}
	}
	// Up to the end of the first drop window, then everything clean, so
	// that the next step's drop has nothing it must leave (Close waits for
	// the dropper).
	write(dropLag + dropWindow)
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	write(dropLag + dropWindow + writebackStep)
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}

	r, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	resident := residentPages(t, r, len(want))
	from, to := writebackStep/4096, (writebackStep+dropWindow)/4096 // the last drop's window
	if n := bytes.Count(resident[from:to], []byte{1}); n != 0 {
		t.Errorf("%d of the %d pages of the last drop window still cached", n, to-from)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("file holds %d bytes, not the %d written", len(got), len(want))
	}
}

// residentPages is mincore(2) of f's first n bytes: 1 per cached page.
func residentPages(t *testing.T, f *os.File, n int) []byte {
	m, err := syscall.Mmap(int(f.Fd()), 0, n, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(m)
	vec := make([]byte, (n+4095)/4096)
	if _, _, e := syscall.Syscall(syscall.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(n), uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
		t.Fatal(e)
	}
	for i := range vec {
		vec[i] &= 1
	}
	return vec
}

// BenchmarkFileOutput writes 256 KiB batches to a new file as a trace
// file's output does ("drop"), and with plain writes that leave every page
// in the page cache ("keep"), reporting the process's CPU per byte
// (getrusage: the kernel's copy and writeback submission included). Which
// pages "keep" gets decides its cost: memory the machine used before and
// freed is cheap, memory a VM never touched is not (docs/performance.md,
// "Writing a trace file").
func BenchmarkFileOutput(b *testing.B) {
	for _, mode := range []string{"drop", "keep"} {
		b.Run(mode, func(b *testing.B) {
			f, err := os.Create(filepath.Join(b.TempDir(), "t.pftrace"))
			if err != nil {
				b.Fatal(err)
			}
			var out Output = newFileOutput(f, nil)
			defer out.Close()
			if mode == "keep" {
				out = WriterOutput(f)
			}
			batch := bytes.Repeat([]byte{0x0a, 0x7f}, 128<<10)
			b.SetBytes(int64(len(batch)))
			cpu0 := processCPU()
			for b.Loop() {
				if err := out.Write(1, batch); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N*len(batch)), "cpu-ns/B")
		})
	}
}

func processCPU() int64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}
