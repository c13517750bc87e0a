package perfetto

import (
	"sync/atomic"
	"unsafe"
)

// Exit state: what a helper that outlives the process needs to append each
// file session's unwritten packets to its file once the process is gone
// (layer/tracing starts such a helper; docs/layers.md, "Process lifetime").
// It is plain integers at fixed addresses, kept consistent at every
// instruction boundary of the thread changing it, so that a process killed
// at any point leaves a state the helper can trust (it reads only once the
// process is gone): a new view is written into the inactive half of a
// double buffer and made current by one atomic store, and a view whose
// buffer only grew gets its new length in place, one aligned word. The C
// mirror is layer/tracing/exitwatch.c:
//
//	struct view { uint64_t ptr, len, gen, mark; };
//	struct db   { uint64_t which; struct view v[2]; };  // current: v[which & 1]
//	struct seq  { struct db cur, pend; };
//	struct file { int64_t fd; uint64_t writing, write_off, nseq; struct seq *seqs; };
//	struct file *table[ExitSlots];                      // ExitState()
//
// Per sequence (seqs[id-1]), cur is the buffer emitters append to, published
// after every event with its generation, and pend the batch handed to the
// file, with the cur generation whose bytes it took over: while pend.gen ==
// cur.gen, cur's bytes are in pend and must not be written twice. writing
// is the id of the sequence whose batch is being handed to write(2) (0 once
// its pend is cleared) and write_off the file's length before it: while
// that pend is set, what a killed write left in the file past write_off is
// cut off and the batch written again whole (the file may hold it
// compressed, pend holds it as it is); once it is cleared the batch is in
// the file, whole.
//
// mark is the sequence's latest object-name mark (VkObjectNameMarked: the
// position of the naming record in the layer framework's ring) whose packet
// is in the view's bytes or was handed on before them; it changes with the
// view, in one store, so the helper, which writes the naming records the
// drain had not passed, knows whether the name being emitted when the
// process died reached a buffer (the highest mark of a file's views).

// ExitSlots is the number of file sessions the exit state can describe at
// once; further file sessions work without it.
const ExitSlots = 8

var exitTable [ExitSlots]atomic.Pointer[exitFile]

// ExitState returns the address of the exit-state table (see above).
func ExitState() unsafe.Pointer { return unsafe.Pointer(&exitTable) }

type exitFile struct {
	fd       atomic.Int64 // -1 once the session ended: nothing may be appended
	writing  atomic.Uint64
	writeOff atomic.Uint64
	nseq     uint64
	seqs     *exitSeq
	all      []exitSeq // keeps seqs alive
	slot     int       // index in exitTable, -1 when not published
}

type exitSeq struct{ cur, pend exitDB }

type exitDB struct {
	which atomic.Uint64
	v     [2]exitView
}

type exitView struct{ ptr, len, gen, mark uint64 }

// set makes (b, gen, mark) the current view. When only its length changed
// (an event appended in place, the common case) the current view's length
// is stored alone: one aligned word, so the view is consistent at every
// instruction boundary without the atomic exchange, a full fence per event.
func (d *exitDB) set(b []byte, gen, mark uint64) {
	ptr := uint64(uintptr(unsafe.Pointer(unsafe.SliceData(b))))
	w := d.which.Load()
	if v := &d.v[w&1]; v.ptr == ptr && v.gen == gen && v.mark == mark {
		v.len = uint64(len(b))
		return
	}
	d.v[w&1^1] = exitView{ptr, uint64(len(b)), gen, mark}
	d.which.Store(w ^ 1)
}

// newExitFile publishes the exit state of a file session with fd and n
// sequences (the replay's included); nil when every slot is taken.
func newExitFile(fd uintptr, n int) *exitFile {
	f := &exitFile{nseq: uint64(n), all: make([]exitSeq, n), slot: -1}
	f.seqs = &f.all[0]
	f.fd.Store(int64(fd))
	for i := range exitTable {
		if exitTable[i].CompareAndSwap(nil, f) {
			f.slot = i
			return f
		}
	}
	return nil
}

// seq returns the state of sequence id; nil on a nil file.
func (f *exitFile) seq(id uint32) *exitSeq {
	if f == nil {
		return nil
	}
	return &f.all[id-1]
}

// ended withdraws the state before the file is closed or truncated: its
// descriptor may be reused for anything after that.
func (f *exitFile) ended() {
	if f == nil {
		return
	}
	f.fd.Store(-1)
	if f.slot >= 0 {
		exitTable[f.slot].CompareAndSwap(f, nil)
	}
}

// beginWrite records, before a batch of sequence id goes to write(2), the
// file's length then.
func (f *exitFile) beginWrite(id uint32, off int64) {
	if f != nil {
		f.writeOff.Store(uint64(off))
		f.writing.Store(uint64(id))
	}
}

// endWrite follows clearing the written batch's pend: until then, writing
// tells how much of it is in the file; after, a new batch of the same
// sequence must not be taken for it.
func (f *exitFile) endWrite() {
	if f != nil {
		f.writing.Store(0)
	}
}
