// Package blocktrace writes the block layouts of a trace summary
// (tracesummary.Block) as a Perfetto trace of their own whose time axis is
// the blocks' address space: one track per VkDeviceMemory, a slice per bound
// range, hole and nothing else, each starting at its byte offset and lasting
// its size in bytes (1 ns = 1 byte), so the Perfetto UI shows each block
// the way Radeon Memory Visualizer does. Ranges that alias earlier ones go
// on lanes below their block's track ("aliased"), since slices on one track
// nest. It owns only this rendering; it must not read traces.
package blocktrace

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"

	"github.com/vkgen/vkgen/layer/memreport/tracesummary"
	"github.com/vkgen/vkgen/perfetto"
)

// Category and the annotation names of the slices.
const Category = "VulkanMemoryBlocks"

var (
	category  = perfetto.NewCategory(Category, "Layout of Vulkan memory blocks: time is the byte offset")
	argOffset = perfetto.NewAnnotationName("offset")
	argSize   = perfetto.NewAnnotationName("size")
)

// Write renders blocks as a trace, in memory.
func Write(blocks []tracesummary.Block) ([]byte, error) {
	out := &memOutput{}
	s, err := perfetto.StartSession("blocks", out, perfetto.Options{})
	if err != nil {
		return nil, err
	}
	// Byte offset 0 of every block is one moment just after the session
	// began (the writer moves earlier events past its start): the UI shows
	// times relative to the trace's first event, offset 0. Each slice also
	// carries its offset and size as annotations.
	origin := perfetto.Now() + 1_000_000
	for i := range blocks {
		block(&blocks[i], i, origin)
	}
	if err := s.Stop(); err != nil {
		return nil, err
	}
	return out.b, nil
}

// item is one slice of a block: a range or a hole.
type item struct {
	off, size uint64
	name      string
}

func block(b *tracesummary.Block, n int, origin uint64) {
	name := fmt.Sprintf("VkDeviceMemory %#x heap %d %d bytes", b.Handle, b.Heap, b.Size)
	if b.Descriptor != "" {
		name += " (" + b.Descriptor + ")"
	}
	group := perfetto.GroupTrack{UUID: uuid("block", uint64(n), b.Handle), Name: name}
	var items []item
	for _, r := range b.Ranges {
		label := r.Name
		if label == "" {
			label = r.Descriptor
		}
		if label == "" {
			label = r.Type + " " + "0x" + strconv.FormatUint(r.Handle, 16)
		}
		items = append(items, item{r.Offset, r.Size, label})
	}
	for _, h := range b.Holes {
		items = append(items, item{h.Offset, h.Size, "hole (" + h.Kind + ")"})
	}
	slices.SortFunc(items, func(x, y item) int { return cmp.Or(cmp.Compare(x.off, y.off), cmp.Compare(y.size, x.size)) })
	// Lanes: each item on the first lane whose last slice ended at or
	// before its offset (interval partitioning).
	var ends []uint64
	for _, it := range items {
		if it.size == 0 || it.off+it.size < it.off {
			continue
		}
		lane := slices.IndexFunc(ends, func(e uint64) bool { return e <= it.off })
		if lane < 0 {
			lane, ends = len(ends), append(ends, 0)
		}
		ends[lane] = it.off + it.size
		track := uuid("lane", uint64(n), uint64(lane))
		laneName := "bound"
		if lane > 0 {
			laneName = "aliased " + strconv.Itoa(lane)
		}
		begin := perfetto.Slice{Op: perfetto.SliceBegin, Track: track, Groups: []perfetto.GroupTrack{group}, TrackName: laneName,
			Name: it.name, Arg: perfetto.Uint(argOffset, it.off), Detail: perfetto.Uint(argSize, it.size)}
		perfetto.Stamp(origin+it.off).Slices(category, begin)
		perfetto.Stamp(origin+it.off+it.size).Slices(category, perfetto.Slice{Op: perfetto.SliceEnd, Track: track})
	}
}

// uuid is a track uuid of a block or lane, unique in the trace.
func uuid(kind string, n, x uint64) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%d/%d", kind, n, x)
	return h.Sum64() | 1
}

// memOutput collects the session's packets.
type memOutput struct{ b []byte }

func (o *memOutput) Write(_ uint32, packets []byte) error {
	o.b = append(o.b, packets...)
	return nil
}

func (o *memOutput) Close() error { return nil }
