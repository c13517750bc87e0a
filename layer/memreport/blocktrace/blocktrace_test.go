package blocktrace

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/internal/perfettotools"
	"github.com/vkgen/vkgen/layer/memreport/tracesummary"
)

// A block of two aliased buffers, an image after an alignment hole and free
// space: trace_processor reads each range and hole at its byte offset, with
// its size as duration, the alias on a lane of its own, and a clean stats
// table.
func TestBlockTrace(t *testing.T) {
	perfettotools.BinDir(t)
	blocks := []tracesummary.Block{{
		Handle: 0x100, Heap: 0, Size: 1 << 20, Descriptor: "memory type 0 heap 0 device_local",
		Ranges: []tracesummary.Range{
			{Offset: 0, Size: 4096, Type: "BUFFER", Handle: 0xb1, Descriptor: "buffer 4096 vertex"},
			{Offset: 0, Size: 4096, Type: "BUFFER", Handle: 0xb2, Name: "alias"},
			{Offset: 65536, Size: 65536, Type: "IMAGE", Handle: 0x1a},
		},
		Holes: []tracesummary.Hole{{Offset: 4096, Size: 61440, Kind: "alignment"}, {Offset: 131072, Size: 1<<20 - 131072, Kind: "free"}},
	}, {Handle: 0x200, Heap: 1, Size: 256, Holes: []tracesummary.Hole{{Offset: 0, Size: 256, Kind: "free"}}}}
	data, err := Write(blocks)
	if err != nil {
		t.Fatal(err)
	}
	perfettotools.CheckStatsData(t, data)
	trace := filepath.Join(t.TempDir(), "blocks.pftrace")
	if err := os.WriteFile(trace, data, 0o600); err != nil {
		t.Fatal(err)
	}
	res := perfettotools.Query(t, trace, `SELECT p.name, t.name, s.ts - (SELECT start_ts FROM trace_bounds), s.dur, s.name,
	    EXTRACT_ARG(s.arg_set_id, 'debug.offset'), EXTRACT_ARG(s.arg_set_id, 'debug.size')
	  FROM slice s JOIN track t ON t.id = s.track_id JOIN track p ON p.id = t.parent_id`)
	var got []string
	for _, r := range res.Rows {
		got = append(got, strings.Join(r, " | "))
	}
	slices.Sort(got)
	want := []string{
		"VkDeviceMemory 0x100 heap 0 1048576 bytes (memory type 0 heap 0 device_local) | aliased 1 | 0 | 4096 | alias | 0 | 4096",
		"VkDeviceMemory 0x100 heap 0 1048576 bytes (memory type 0 heap 0 device_local) | bound | 0 | 4096 | buffer 4096 vertex | 0 | 4096",
		"VkDeviceMemory 0x100 heap 0 1048576 bytes (memory type 0 heap 0 device_local) | bound | 131072 | 917504 | hole (free) | 131072 | 917504",
		"VkDeviceMemory 0x100 heap 0 1048576 bytes (memory type 0 heap 0 device_local) | bound | 4096 | 61440 | hole (alignment) | 4096 | 61440",
		"VkDeviceMemory 0x100 heap 0 1048576 bytes (memory type 0 heap 0 device_local) | bound | 65536 | 65536 | IMAGE 0x1a | 65536 | 65536",
		"VkDeviceMemory 0x200 heap 1 256 bytes | bound | 0 | 256 | hole (free) | 0 | 256",
	}
	if !slices.Equal(got, want) {
		t.Errorf("slices:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
