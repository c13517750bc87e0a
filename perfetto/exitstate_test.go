package perfetto

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
	"unsafe"

	"github.com/vkgen/vkgen/perfetto/decode"
)

// The exit state is read by C (layer/tracing/exitwatch.c) with the layout
// documented in exitstate.go: every field a 64-bit word at a fixed offset.
func TestExitStateLayout(t *testing.T) {
	var f exitFile
	var d exitDB
	for _, c := range []struct {
		what      string
		got, want uintptr
	}{
		{"table slot", unsafe.Sizeof(exitTable[0]), 8},
		{"view", unsafe.Sizeof(exitView{}), 32},
		{"db.v", unsafe.Offsetof(d.v), 8},
		{"db", unsafe.Sizeof(d), 72},
		{"seq.pend", unsafe.Offsetof(exitSeq{}.pend), 72},
		{"file.writing", unsafe.Offsetof(f.writing), 8},
		{"file.write_off", unsafe.Offsetof(f.writeOff), 16},
		{"file.nseq", unsafe.Offsetof(f.nseq), 24},
		{"file.seqs", unsafe.Offsetof(f.seqs), 32},
	} {
		if c.got != c.want {
			t.Errorf("%s: %d, want %d", c.what, c.got, c.want)
		}
	}
}

// view is the current view of d, as the exit watcher's view reads it.
func view(d *exitDB) exitView { return d.v[d.which.Load()&1] }

// drain does in Go what the exit watcher does in C: what the file would
// hold if the process ended now. The addresses the state holds are looked up
// among s's buffers (the test runs between events, so they are current).
func drain(file []byte, s *Session, f *exitFile) []byte {
	bytesAt := func(v exitView) []byte {
		for _, q := range s.all() {
			for _, b := range [][]byte{q.buf, q.spare} {
				if uint64(uintptr(unsafe.Pointer(unsafe.SliceData(b)))) == v.ptr {
					return b[:v.len]
				}
			}
		}
		panic("exit state names no buffer of the session")
	}
	if w := f.writing.Load(); w != 0 && uint64(len(file)) > f.writeOff.Load() && view(&f.all[w-1].pend).len > 0 {
		file = file[:f.writeOff.Load()]
	}
	for i := range f.all {
		pend, cur := view(&f.all[i].pend), view(&f.all[i].cur)
		if pend.len > 0 {
			file = append(file, bytesAt(pend)...)
		}
		if cur.len > 0 && !(pend.len > 0 && pend.gen == cur.gen) {
			file = append(file, bytesAt(cur)...)
		}
	}
	return file
}

// exitSession starts a file session of 2 sequences with opts in which only
// the test's goroutine writes (no timed flush, no buffer near its wake
// mark), stopped when the test ends, and returns its path and exit state.
func exitSession(t *testing.T, opts Options) (string, *Session, *exitFile) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "x.pftrace")
	opts.FlushInterval, opts.Sequences = time.Hour, 2
	s, err := StartFileSession(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Stop() })
	f := s.out.(*fileOutput).exit
	if f == nil {
		t.Fatal("no exit-state slot")
	}
	return path, s, f
}

// At every point between events and flushes, the file plus what the exit
// state says is unwritten is the whole trace: every event once, and it
// decodes. (A batch in flight, the pend half, exists only inside a write:
// TestExitStateRewritesKilledWrite stops one there, layer/tracing's kill
// tests end processes there.)
func TestExitStateCoversUnwritten(t *testing.T) {
	path, s, _ := exitSession(t, Options{})
	for i := range 300 {
		VkObjectName(1, 9, uint64(i), "n")
		if i%37 == 0 {
			s.Flush()
		}
		everyEventOnce(t, fmt.Sprintf("after event %d", i), path, s, i+1)
	}
}

// A write killed part-way through a compressed batch leaves part of its
// deflated stream in the file: the exit state cuts it off and appends the
// batch again whole, as it was in memory, and the trace holds every event
// once.
func TestExitStateRewritesKilledWrite(t *testing.T) {
	path, s, _ := exitSession(t, Options{Compress: true})
	out := s.out.(*fileOutput)
	const n = 400
	for i := range n {
		VkObjectName(1, 9, uint64(i), "n")
		if i == n/2 {
			s.Flush()
		}
	}
	var q *sequence
	for _, c := range s.all() {
		if len(c.buf) > 0 {
			q = c
		}
	}
	// What flushSeq and write do, up to a write(2) cut short.
	q.wmu.Lock()
	defer q.wmu.Unlock()
	q.mu.Lock()
	b := q.swapLocked()
	q.mu.Unlock()
	packet := out.z.packet(b)
	if len(packet) >= len(b) {
		t.Fatalf("the batch (%d bytes) was not compressed", len(b))
	}
	out.exit.beginWrite(q.id, out.good)
	if _, err := out.f.Write(packet[:len(packet)/2]); err != nil {
		t.Fatal(err)
	}
	everyEventOnce(t, "killed in the write", path, s, n)
	// Killed after the rest of the write and the clearing of its pend,
	// before the write's end was recorded: the batch is in the file and
	// stays.
	if _, err := out.f.Write(packet[len(packet)/2:]); err != nil {
		t.Fatal(err)
	}
	q.exit.pend.set(nil, 0, 0)
	everyEventOnce(t, "killed before the write's end was recorded", path, s, n)
}

// named does in Go what the exit watcher's named does: the highest
// object-name mark of f's views.
func named(f *exitFile) uint64 {
	m := uint64(0)
	for i := range f.all {
		m = max(m, view(&f.all[i].cur).mark, view(&f.all[i].pend).mark)
	}
	return m
}

// A name emitted with a mark is covered by the exit state's mark exactly
// when its packet is: before the packet is published (a process killed
// there) the mark is the previous one and the watcher writes the name, after
// it the file holds the name and the watcher must not; the mark stays
// through batches handed on and written.
func TestExitStateMarksNames(t *testing.T) {
	path, s, f := exitSession(t, Options{})
	const n = 200
	for i := range n {
		mark := uint64(i+1) * 64
		q := s.pick()
		if cap(q.buf)-len(q.buf) < 1<<10 { // the views must keep naming the current buffer
			q.buf = slices.Grow(q.buf, 1<<16)
			q.publishLocked()
		}
		q.objectNameLocked(mark, 1, 9, uint64(i), "n")
		q.mu.Unlock() // not published: killed here, the file lacks the name and the watcher appends it
		if got := named(f); got != mark-64 {
			t.Fatalf("name %d written, not published: mark %d, want %d", i, got, mark-64)
		}
		everyEventOnce(t, fmt.Sprintf("name %d written, not published", i), path, s, i)
		q.mu.Lock()
		q.unlock(false)
		if got := named(f); got != mark {
			t.Fatalf("name %d published: mark %d, want %d", i, got, mark)
		}
		everyEventOnce(t, fmt.Sprintf("name %d published", i), path, s, i+1)
		if i%37 == 0 {
			s.Flush()
			if got := named(f); got != mark {
				t.Fatalf("name %d flushed: mark %d, want %d", i, got, mark)
			}
		}
	}
}

// everyEventOnce checks, when, that the file at path plus what the exit
// state says is unwritten holds object names 0 to n-1 once each.
func everyEventOnce(t *testing.T, when, path string, s *Session, n int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := decode.Decode(drain(data, s, s.out.(*fileOutput).exit))
	if err != nil {
		t.Fatalf("%s: %v", when, err)
	}
	seen := map[uint64]int{}
	for _, p := range tr.ObjectNames() {
		seen[p.ObjectName.Object]++
	}
	for j := range n {
		if seen[uint64(j)] != 1 {
			t.Fatalf("%s: event %d %d times", when, j, seen[uint64(j)])
		}
	}
}
