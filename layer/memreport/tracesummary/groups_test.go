package tracesummary

import (
	"bytes"
	"testing"

	"github.com/vkgen/vkgen/internal/perfettotools"
	"github.com/vkgen/vkgen/perfetto"
	"github.com/vkgen/vkgen/perfetto/decode"
)

func allocAt(ts uint64, op, src string, mem, size, off, handle uint64, typ string) {
	perfetto.Stamp(ts).Instant(cat, allocEv, perfetto.String(aOp, op), perfetto.String(aSrc, src), perfetto.Uint(aMem, mem),
		perfetto.Uint(aSize, size), perfetto.Uint(aOff, off), perfetto.Uint(aHandle, handle), perfetto.String(aType, typ))
}

func nameAt(ts uint64, objType int64, handle uint64, n string) {
	perfetto.Stamp(ts).Instant(cat, nameEv, perfetto.Int(aObjType, objType), perfetto.Uint(aHandle, handle), perfetto.String(aName, n))
}

// TestGroups checks the groups of a trace whose moves between groups
// happen at one timestamp: an allocation named at its creation's time
// never counts in its descriptor group, and a bind that moves bytes from
// unbound memory to a cluster does not raise the total.
func TestGroups(t *testing.T) {
	heap0 := perfetto.NewCounterTrack("vulkan.mem.heap0.app.usage.geometry_mesh", perfetto.UnitSizeBytes)
	budget := perfetto.NewCounterTrack("vulkan.mem.heap0.budget", perfetto.UnitSizeBytes)
	var buf bytes.Buffer
	s, err := perfetto.StartSession("test", perfetto.WriterOutput(&buf), perfetto.Options{})
	if err != nil {
		t.Fatal(err)
	}
	base := perfetto.Now() + 1e9                                                          // after the session's start: earlier stamps are moved up
	allocAt(base+500, "CREATE", "DEVICE_MEMORY", 0x200, 4096, 0, 0x200, "unbound_memory") // named later: no group of its own
	nameAt(base+600, 8, 0x200, "late")
	allocAt(base+700, "DESTROY", "DEVICE_MEMORY", 0x200, 4096, 0, 0x200, "unbound_memory")
	allocAt(base+1000, "CREATE", "DEVICE_MEMORY", 0x100, 65536, 0, 0x100, "unbound_memory")
	perfetto.Stamp(base+1000).Counter(unbound, 65536)
	perfetto.Stamp(base+1000).Counter(budget, 1<<30)
	nameAt(base+1000, 8, 0x100, "block")
	nameAt(base+1500, 9, 0xb1, "vertices")
	allocAt(base+2000, "BIND", "BUFFER", 0x100, 4096, 0, 0xb1, "geometry_mesh")
	perfetto.Stamp(base+2000).Counters(perfetto.CounterValue{Track: geometry, Value: 4096}, perfetto.CounterValue{Track: heap0, Value: 4096},
		perfetto.CounterValue{Track: unbound, Value: 61440})
	for i, ts := range []uint64{3000, 5000} {
		h := uint64(0xb2 + i)
		nameAt(base+ts, 9, h, "frame")
		allocAt(base+ts, "BIND", "BUFFER", 0x100, 4096, 4096, h, "geometry_mesh")
		allocAt(base+ts+1000, "DESTROY", "BUFFER", 0x100, 4096, 4096, h, "geometry_mesh")
	}
	allocAt(base+8000, "BIND", "BUFFER", 0x100, 8192, 8192, 0xb4, "geometry_mesh")
	allocAt(base+9000, "DESTROY", "BUFFER", 0x100, 8192, 8192, 0xb4, "geometry_mesh")
	allocAt(base+9000, "DESTROY", "BUFFER", 0x100, 4096, 0, 0xb1, "geometry_mesh")
	perfetto.Stamp(base+9000).Counters(perfetto.CounterValue{Track: geometry, Value: 0}, perfetto.CounterValue{Track: heap0, Value: 0},
		perfetto.CounterValue{Track: unbound, Value: 65536})
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	perfettotools.CheckStatsData(t, buf.Bytes())
	tr, err := decode.Decode(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Group{}
	for _, g := range Summarize(tr).Groups {
		got[g.Kind+"/"+g.Key] = g
	}
	want := []Group{
		{Kind: KindName, Key: "block", Peak: 65536, Final: 65536, Objects: 1},
		{Kind: KindName, Key: "vertices", Peak: 4096, Final: 0, Objects: 1},
		{Kind: KindName, Key: "frame", Peak: 4096, Final: 0, Objects: 2},
		{Kind: KindDescriptor, Key: "BUFFER geometry_mesh 8192", Peak: 8192, Final: 0, Objects: 1},
		{Kind: KindType, Key: "BUFFER", Peak: 12288, Final: 0, Objects: 4},
		{Kind: KindType, Key: "DEVICE_MEMORY", Peak: 65536, Final: 65536, Objects: 2},
		{Kind: KindName, Key: "late", Peak: 4096, Final: 0, Objects: 1},
		{Kind: KindCluster, Key: "geometry_mesh", Peak: 4096, Final: 0, Objects: 4},
		{Kind: KindCluster, Key: "unbound_memory", Peak: 65536, Final: 65536, Objects: 1},
		// the memory buffers were bound in (ClusterAllocation), in no counter
		{Kind: KindCluster, Key: ClusterAllocation, Peak: 0, Final: 0, Objects: 1},
		{Kind: KindHeap, Key: "0", Peak: 4096, Final: 0, Objects: 6},
		{Kind: KindTotal, Key: "app", Peak: 65536, Final: 65536, Objects: 6},
	}
	for _, w := range want {
		if g := got[w.Kind+"/"+w.Key]; g != w {
			t.Errorf("group %s/%s = %+v, want %+v", w.Kind, w.Key, g, w)
		}
		delete(got, w.Kind+"/"+w.Key)
	}
	if len(got) > 0 {
		t.Errorf("other groups: %+v", got)
	}
}

// Past MaxGroups, new names go to OtherNames and are counted.
func TestGroupsFold(t *testing.T) {
	g := newGroups(2)
	for _, n := range []string{"a", "b", "c", "d", "a"} {
		g.get(objectKey(n, "", "", "BUFFER", "x", 1))
	}
	if g.folded != 2 || len(g.m) != 3 || g.m[groupKey{gName, OtherNames}] == nil {
		t.Errorf("folded %d, groups %v", g.folded, g.m)
	}
}

// An object's group: its name wins, else its descriptor with its call
// site, else its descriptor alone; the descriptor is the layer's when the
// trace has one (a VkDeviceMemory's with its size).
func TestObjectKeyPrecedence(t *testing.T) {
	for _, c := range []struct {
		name, site, desc, typ string
		want                  groupKey
	}{
		{"vertices", "load (a.c:3)", "buffer 64 vertex", "BUFFER", groupKey{gName, "vertices"}},
		{"", "load (a.c:3)", "", "BUFFER", groupKey{gCallSite, "BUFFER geometry_mesh 64 — load (a.c:3)"}},
		{"", "load (a.c:3)", "buffer 64 vertex", "BUFFER", groupKey{gCallSite, "buffer 64 vertex — load (a.c:3)"}},
		{"", "", "", "BUFFER", groupKey{gDescriptor, "BUFFER geometry_mesh 64"}},
		{"", "", "buffer 64 vertex", "BUFFER", groupKey{gDescriptor, "buffer 64 vertex"}},
		{"", "", "memory type 0 heap 0", "DEVICE_MEMORY", groupKey{gDescriptor, "memory type 0 heap 0 64"}},
	} {
		if got := objectKey(c.name, c.site, c.desc, c.typ, "geometry_mesh", 64); got != c.want {
			t.Errorf("objectKey(%q, %q, %q) = %+v, want %+v", c.name, c.site, c.desc, got, c.want)
		}
	}
}
