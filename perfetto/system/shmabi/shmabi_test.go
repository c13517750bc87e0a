package shmabi

import (
	"encoding/binary"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

func newBuf(t *testing.T, pages int) (*Buffer, []byte) {
	t.Helper()
	words := make([]uint64, pages*4096/8) // 8-byte aligned backing store
	mem := unsafeBytes(words)
	b, err := New(mem, 4096)
	if err != nil {
		t.Fatal(err)
	}
	return b, mem
}

func TestNewRejectsBadGeometry(t *testing.T) {
	mem := make([]byte, 8192)
	for _, tc := range []struct{ size, page int }{{8192, 1000}, {8192, 128 << 10}, {6000, 4096}, {0, 4096}} {
		if _, err := New(mem[:tc.size], tc.page); err == nil {
			t.Errorf("New(size %d, page %d) accepted", tc.size, tc.page)
		}
	}
}

func TestChunkSizes(t *testing.T) {
	b, _ := newBuf(t, 1)
	// ((4096 - 8) / n) rounded down to 4.
	want := map[uint32]int{PageDiv1: 4088, PageDiv2: 2044, PageDiv4: 1020, PageDiv7: 584, PageDiv14: 292, 6: 0}
	for l, n := range want {
		if got := b.ChunkSize(l); got != n {
			t.Errorf("layout %d: chunk size %d, want %d", l, got, n)
		}
	}
}

// Every transition of the ABI, in order, with the page header bitmap and
// the chunk header bytes checked against the documented layout.
func TestChunkLifecycle(t *testing.T) {
	b, mem := newBuf(t, 2)
	if _, ok := b.TryAcquireForReading(0, 0); ok {
		t.Fatal("read-acquired a chunk of an unpartitioned page")
	}
	if !b.TryPartition(1, PageDiv4) || b.TryPartition(1, PageDiv2) {
		t.Fatal("partitioning a free page must succeed once")
	}
	if got := binary.LittleEndian.Uint32(mem[4096:]); got != PageDiv4<<28 {
		t.Fatalf("bitmap after partition = %#x", got)
	}
	c, ok := b.TryAcquireForWriting(1, 2, Header{ChunkID: 0x01020304, WriterID: 7})
	if !ok {
		t.Fatal("acquire for writing failed")
	}
	if _, again := b.TryAcquireForWriting(1, 2, Header{}); again {
		t.Fatal("a chunk being written was acquired twice")
	}
	if st := State(b.Bitmap(1), 2); st != ChunkBeingWritten {
		t.Fatalf("state %d, want BeingWritten", st)
	}
	if _, ok := b.TryAcquireForReading(1, 2); ok {
		t.Fatal("the service read a chunk being written")
	}
	off := 4096 + PageHeaderSize + 2*1020
	b.SetHeader(c, Header{ChunkID: 0x01020304, WriterID: 7, Count: 5, Flags: LastPacketContinuesOnNextChunk})
	if id := binary.LittleEndian.Uint32(mem[off:]); id != 0x01020304 {
		t.Errorf("chunk_id bytes = %#x", id)
	}
	if w := binary.LittleEndian.Uint16(mem[off+4:]); w != 7 {
		t.Errorf("writer_id bytes = %d", w)
	}
	if p := binary.LittleEndian.Uint16(mem[off+6:]); p != 5|LastPacketContinuesOnNextChunk<<10 {
		t.Errorf("packets word = %#x (count in the low 10 bits, flags above)", p)
	}
	if h := b.ReadHeader(c); h != (Header{ChunkID: 0x01020304, WriterID: 7, Count: 5, Flags: LastPacketContinuesOnNextChunk}) {
		t.Errorf("ReadHeader = %+v", h)
	}
	if !b.ReleaseComplete(c) || b.ReleaseComplete(c) {
		t.Fatal("BeingWritten -> Complete must happen exactly once")
	}
	if b.Unacquire(c) {
		t.Fatal("a complete chunk went back to free from the producer side")
	}
	r, ok := b.TryAcquireForReading(1, 2)
	if !ok || State(b.Bitmap(1), 2) != ChunkBeingRead {
		t.Fatal("Complete -> BeingRead failed")
	}
	if !b.ReleaseFree(r) {
		t.Fatal("BeingRead -> Free failed")
	}
	if b.Bitmap(1) != 0 {
		t.Fatalf("page with every chunk free must be de-partitioned, bitmap %#x", b.Bitmap(1))
	}
}

func TestUnacquireAndAcquireAny(t *testing.T) {
	b, _ := newBuf(t, 2)
	var got []Chunk
	for {
		c, ok := b.AcquireAny(1, PageDiv4, Header{WriterID: 1})
		if !ok {
			break
		}
		got = append(got, c)
	}
	if len(got) != 8 {
		t.Fatalf("acquired %d chunks from 2 pages of 4, want 8", len(got))
	}
	if got[0].Page != 1 {
		t.Errorf("search did not start at the given page")
	}
	for _, c := range got {
		if !b.Unacquire(c) {
			t.Fatal("unacquire failed")
		}
	}
	if b.Bitmap(0) != 0 || b.Bitmap(1) != 0 {
		t.Fatal("pages not free after returning every chunk")
	}
}

func TestPutPacketSize(t *testing.T) {
	for _, n := range []int{0, 1, 127, 128, 1020, 1 << 20, MaxFragment} {
		var b [4]byte
		PutPacketSize(b[:], n)
		v, k := protowire.ConsumeVarint(b[:])
		if k != 4 || v != uint64(n) {
			t.Errorf("size %d: decoded %d from %d bytes", n, v, k)
		}
	}
}
