// Package shmabi implements Perfetto's shared memory buffer ABI (the SMB a
// producer shares with traced): pages with an 8-byte header whose 32-bit
// bitmap holds the page layout and a 2-bit state per chunk, chunks with an
// 8-byte header (chunk id, writer id, packet count and fragment flags), and
// packets prefixed by a 4-byte redundant varint size.
//
// It owns the byte layout and the lock-free state transitions of both sides:
// the producer's (Free -> BeingWritten -> Complete) and the service's
// (Complete -> BeingRead -> Free), all by compare-and-swap on the page
// header, never a lock shared with the other process. It must not know about
// IPC, sessions or trace content. Facts follow Perfetto's shared_memory_abi.h
// (a long-term stable ABI); the code is ours.
package shmabi

import (
	"errors"
	"fmt"
	"sync/atomic"
	"unsafe"
)

// Chunk states, two bits per chunk in the page header bitmap.
const (
	ChunkFree         = 0
	ChunkBeingWritten = 1
	ChunkBeingRead    = 2
	ChunkComplete     = 3
)

// Page layouts (bits 28..30 of the page header bitmap).
const (
	PageNotPartitioned = 0
	PageDiv1           = 1
	PageDiv2           = 2
	PageDiv4           = 3
	PageDiv7           = 4
	PageDiv14          = 5
)

// Chunk header flags (the top 6 bits of the 16-bit packets word).
const (
	FirstPacketContinuesFromPrevChunk = 1 << 0
	LastPacketContinuesOnNextChunk    = 1 << 1
	ChunkNeedsPatching                = 1 << 2
)

const (
	PageHeaderSize   = 8
	ChunkHeaderSize  = 8
	PacketHeaderSize = 4 // redundant varint fragment size
	MinPageSize      = 4096
	MaxPageSize      = 64 << 10 // chunk sizes are 16-bit
	MaxPacketsCount  = 1<<10 - 1
	MaxWriterID      = 1<<16 - 1

	layoutShift = 28
	layoutMask  = 0x70000000
	chunkMask   = 0x3
)

var chunksForLayout = [8]int{0, 1, 2, 4, 7, 14, 0, 0}

// ChunksPerPage is the number of chunks of a layout (0 for invalid ones).
func ChunksPerPage(layout uint32) int { return chunksForLayout[layout&7] }

// Buffer is a view of a mapped SMB. Every header access is atomic, because
// the other process reads and writes the same memory concurrently.
type Buffer struct {
	mem      []byte
	pageSize int
	pages    int
}

// New wraps mem (a mapping of the whole SMB) with the given page size.
func New(mem []byte, pageSize int) (*Buffer, error) {
	if pageSize < MinPageSize || pageSize > MaxPageSize || pageSize%MinPageSize != 0 {
		return nil, fmt.Errorf("shmabi: invalid page size %d (want a multiple of 4096 up to 64 KiB)", pageSize)
	}
	if len(mem) == 0 || len(mem)%pageSize != 0 {
		return nil, fmt.Errorf("shmabi: buffer size %d is not a positive multiple of the page size %d", len(mem), pageSize)
	}
	if uintptr(unsafe.Pointer(&mem[0]))%8 != 0 {
		return nil, errors.New("shmabi: buffer is not 8-byte aligned")
	}
	return &Buffer{mem: mem, pageSize: pageSize, pages: len(mem) / pageSize}, nil
}

func (b *Buffer) Pages() int    { return b.pages }
func (b *Buffer) PageSize() int { return b.pageSize }

// ChunkSize is the size of each chunk (header included) for a layout: the
// page minus its header, divided evenly, rounded down to 4 bytes.
func (b *Buffer) ChunkSize(layout uint32) int {
	n := ChunksPerPage(layout)
	if n == 0 {
		return 0
	}
	return ((b.pageSize - PageHeaderSize) / n) &^ 3
}

func (b *Buffer) word(off int) *uint32 { return (*uint32)(unsafe.Pointer(&b.mem[off])) }

// Bitmap returns a page's header bitmap.
func (b *Buffer) Bitmap(page int) uint32 { return atomic.LoadUint32(b.word(page * b.pageSize)) }

// Layout and State decode a bitmap.
func Layout(bitmap uint32) uint32 { return (bitmap & layoutMask) >> layoutShift }
func State(bitmap uint32, chunk int) uint32 {
	return (bitmap >> (uint(chunk) * 2)) & chunkMask
}

// Chunk locates one chunk of the buffer.
type Chunk struct {
	Page, Index int
	off, size   int
}

func (c Chunk) Valid() bool { return c.size > 0 }

// Size is the chunk size including its header; PayloadSize excludes it.
func (c Chunk) Size() int        { return c.size }
func (c Chunk) PayloadSize() int { return c.size - ChunkHeaderSize }

// ChunkAt returns the chunk at (page, index) under the page's current
// layout, or an invalid Chunk when the page has no such chunk.
func (b *Buffer) ChunkAt(page, index int) Chunk {
	if page < 0 || page >= b.pages || index < 0 {
		return Chunk{}
	}
	l := Layout(b.Bitmap(page))
	if index >= ChunksPerPage(l) {
		return Chunk{}
	}
	size := b.ChunkSize(l)
	return Chunk{Page: page, Index: index, off: page*b.pageSize + PageHeaderSize + index*size, size: size}
}

// transition moves one chunk from state from to state to by CAS, retrying
// while other chunks of the page change under it. When the page ends up
// with every chunk free it is de-partitioned (bitmap 0), as the ABI says.
func (b *Buffer) transition(page, index int, from, to uint32) bool {
	w := b.word(page * b.pageSize)
	for {
		old := atomic.LoadUint32(w)
		if index >= ChunksPerPage(Layout(old)) || State(old, index) != from {
			return false
		}
		next := old&^(chunkMask<<(uint(index)*2)) | to<<(uint(index)*2)
		if next&^layoutMask == 0 {
			next = 0
		}
		if atomic.CompareAndSwapUint32(w, old, next) {
			return true
		}
	}
}

// TryPartition partitions a free page with layout; false if it is in use.
func (b *Buffer) TryPartition(page int, layout uint32) bool {
	if ChunksPerPage(layout) == 0 {
		return false
	}
	return atomic.CompareAndSwapUint32(b.word(page*b.pageSize), 0, layout<<layoutShift)
}

// Header is a chunk header's content.
type Header struct {
	ChunkID  uint32
	WriterID uint16
	Count    uint16 // packets (or fragments) in the chunk, 10 bits
	Flags    uint8  // 6 bits
}

// Producer side.

// TryAcquireForWriting moves a free chunk to BeingWritten and writes its
// header. It fails if the chunk is not free.
func (b *Buffer) TryAcquireForWriting(page, index int, h Header) (Chunk, bool) {
	if page < 0 || page >= b.pages || !b.transition(page, index, ChunkFree, ChunkBeingWritten) {
		return Chunk{}, false
	}
	c := b.ChunkAt(page, index)
	b.SetHeader(c, h)
	return c, true
}

// AcquireAny finds a free chunk, starting at page start and partitioning
// free pages with layout, and acquires it for writing.
func (b *Buffer) AcquireAny(start int, layout uint32, h Header) (Chunk, bool) {
	for i := 0; i < b.pages; i++ {
		p := (start + i) % b.pages
		bm := b.Bitmap(p)
		if bm == 0 {
			b.TryPartition(p, layout)
			bm = b.Bitmap(p)
		}
		for c := 0; c < ChunksPerPage(Layout(bm)); c++ {
			if State(bm, c) != ChunkFree {
				continue
			}
			if ch, ok := b.TryAcquireForWriting(p, c, h); ok {
				return ch, true
			}
		}
	}
	return Chunk{}, false
}

// SetHeader stores a chunk header: the id word, then the writer/packets
// word with release semantics (Go atomics are sequentially consistent).
func (b *Buffer) SetHeader(c Chunk, h Header) {
	atomic.StoreUint32(b.word(c.off), h.ChunkID)
	atomic.StoreUint32(b.word(c.off+4), packetsWord(h))
}

func packetsWord(h Header) uint32 {
	packets := uint32(h.Count&MaxPacketsCount) | uint32(h.Flags&0x3f)<<10
	return uint32(h.WriterID) | packets<<16
}

// ReadHeader loads a chunk header.
func (b *Buffer) ReadHeader(c Chunk) Header {
	id := atomic.LoadUint32(b.word(c.off))
	w := atomic.LoadUint32(b.word(c.off + 4))
	packets := uint16(w >> 16)
	return Header{ChunkID: id, WriterID: uint16(w), Count: packets & MaxPacketsCount, Flags: uint8(packets >> 10)}
}

// Bytes is the whole chunk, header included (what shared-memory emulation
// sends over the socket).
func (b *Buffer) Bytes(c Chunk) []byte { return b.mem[c.off : c.off+c.size] }

// Payload is the writable area of a chunk after its header.
func (b *Buffer) Payload(c Chunk) []byte { return b.mem[c.off+ChunkHeaderSize : c.off+c.size] }

// ReleaseComplete hands a chunk being written to the service.
func (b *Buffer) ReleaseComplete(c Chunk) bool {
	return b.transition(c.Page, c.Index, ChunkBeingWritten, ChunkComplete)
}

// Unacquire returns an unused chunk being written to the free state. The
// service never touches chunks being written, so this is invisible to it.
func (b *Buffer) Unacquire(c Chunk) bool {
	return b.transition(c.Page, c.Index, ChunkBeingWritten, ChunkFree)
}

// Service side.

// TryAcquireForReading moves a complete chunk to BeingRead.
func (b *Buffer) TryAcquireForReading(page, index int) (Chunk, bool) {
	if page < 0 || page >= b.pages || !b.transition(page, index, ChunkComplete, ChunkBeingRead) {
		return Chunk{}, false
	}
	return b.ChunkAt(page, index), true
}

// ReleaseFree returns a chunk that was read to the free state.
func (b *Buffer) ReleaseFree(c Chunk) bool {
	return b.transition(c.Page, c.Index, ChunkBeingRead, ChunkFree)
}

// PutPacketSize writes n as a 4-byte redundant varint (the SMB fragment
// size header, fixed width so it can be written before or after the data).
func PutPacketSize(dst []byte, n int) {
	dst[0] = byte(n&0x7f) | 0x80
	dst[1] = byte(n>>7&0x7f) | 0x80
	dst[2] = byte(n>>14&0x7f) | 0x80
	dst[3] = byte(n >> 21 & 0x7f)
}

// MaxFragment is the largest fragment size a 4-byte varint can state.
const MaxFragment = 1<<28 - 1
