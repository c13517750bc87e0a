package realprograms_test

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vkgen/vkgen/internal/perfettotools"
	"github.com/vkgen/vkgen/internal/vktest"
	"github.com/vkgen/vkgen/layer/memreport/tracesummary"
)

// TestRealProgramsMemory (issue 34): what vkcube and glmark2 and glxgears
// on Zink create is described, clustered and totalled in a way that fits
// them: descriptors from the create infos, Zink's every-usage buffers as
// general_buffer and its textures as static_texture, VkDeviceMemory that
// holds resources as allocation (not unbound_memory), and totals that add up
// with Zink's two buffers per range counted once.
func TestRealProgramsMemory(t *testing.T) {
	if os.Getenv("VKGEN_REAL_PROGRAMS") != "1" {
		t.Skip("runs third-party programs: set VKGEN_REAL_PROGRAMS=1 (scripts/test.sh runs it as a step of its own)")
	}
	perfettotools.BinDir(t)
	r := &rig{layers: vktest.Layers(t), display: startXvfb(t)}
	run := func(t *testing.T, env []string, timed bool, argv ...string) *tracesummary.Summary {
		t.Helper()
		trace := filepath.Join(t.TempDir(), "run.pftrace")
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = append(append(r.baseEnv(t), env...), "VK_ADD_LAYER_PATH="+r.layers,
			"VK_INSTANCE_LAYERS=VK_LAYER_VKGEN_DeviceMemoryReport", "VK_VKGEN_TRACE_FILE="+trace)
		if timed {
			timer := time.AfterFunc(gearsTime, func() { cmd.Process.Signal(syscall.SIGTERM) })
			defer timer.Stop()
		}
		if out, err := cmd.CombinedOutput(); err != nil && !(timed && exitOf(err) == "signal terminated") {
			t.Fatalf("%v: %v\n%s", argv, err, tail(string(out)))
		}
		perfettotools.CheckStats(t, trace)
		f, err := os.Open(trace)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		s, err := tracesummary.Read(f, trace, tracesummary.Options{})
		if err != nil {
			t.Fatal(err)
		}
		// What the program created, once per kind (how the cluster rules
		// were chosen: docs/memreport.md "Clusters").
		kinds := map[string]int{}
		for _, o := range s.Objects {
			kinds[o.Type+" "+o.Cluster+" "+o.Descriptor]++
		}
		for _, k := range slices.Sorted(maps.Keys(kinds)) {
			t.Logf("%3d x %s", kinds[k], k)
		}
		return s
	}
	find := func(s *tracesummary.Summary, typ, descPart string) []tracesummary.Object {
		var out []tracesummary.Object
		for _, o := range s.Objects {
			if o.Type == typ && strings.Contains(o.Descriptor, descPart) {
				out = append(out, o)
			}
		}
		return out
	}
	t.Run("vkcube", func(t *testing.T) {
		s := run(t, nil, false, "vkcube", "--c", "30")
		depth := find(s, "IMAGE", "D16_UNORM depth_stencil_attachment")
		tex := find(s, "IMAGE", "R8G8B8A8_UNORM linear sampled")
		if len(depth) != 1 || depth[0].Cluster != "depth_stencil_target" || len(tex) != 1 || tex[0].Cluster != "static_texture" {
			t.Errorf("depth image %+v, texture %+v", depth, tex)
		}
		for _, o := range find(s, "DEVICE_MEMORY", "memory type") {
			if o.Cluster != tracesummary.ClusterAllocation {
				t.Errorf("vkcube binds everything it allocates, yet %+v is not an allocation", o)
			}
		}
		if all := s.Totals[len(s.Totals)-1].Peak; all.Bound != all.Allocated || all.Aliased != (tracesummary.Bytes{}) {
			t.Errorf("vkcube's peak totals %+v, want everything bound, nothing aliased", all)
		}
	})
	zinkEnv := append(slices.Clone(zink), "vblank_mode=0")
	checkZink := func(t *testing.T, s *tracesummary.Summary) {
		for _, o := range find(s, "BUFFER", "buffer") {
			if o.Cluster != "general_buffer" {
				t.Errorf("Zink buffer %+v: want general_buffer", o)
			}
		}
		// Zink binds two buffers to the same range: counted once in the
		// totals, once per buffer in the clusters and resources.
		peak := s.Totals[len(s.Totals)-1].Peak
		if peak.Aliased == (tracesummary.Bytes{}) || peak.Resources.Minus(peak.Bound) != peak.Aliased || peak.Allocated.Less(peak.Bound) {
			t.Errorf("Zink's peak totals %+v: want aliasing counted once", peak)
		}
	}
	t.Run("glmark2-zink", func(t *testing.T) {
		s := run(t, zinkEnv, false, "glmark2", "--off-screen", "-s", "320x240", "-b", "texture:duration=0.4") // off screen: no window to tear down (glmark2 can die of an X error there)
		checkZink(t, s)
		if tex := find(s, "IMAGE", "512x512"); len(tex) == 0 || tex[0].Cluster != "static_texture" {
			t.Errorf("glmark2's texture %+v: want static_texture", tex)
		}
	})
	t.Run("glxgears-zink", func(t *testing.T) {
		s := run(t, zinkEnv, true, "glxgears")
		checkZink(t, s)
		// Killed with memory held: the app clusters at the end hold the
		// unbound bytes and every bound buffer in full.
		var clusters int64
		for _, c := range s.Clusters {
			if strings.HasPrefix(c.Track, "vulkan.mem.app.usage.") {
				clusters += c.Final
			}
		}
		end := s.Totals[len(s.Totals)-1].Final
		if end.Allocated == (tracesummary.Bytes{}) || end.Unbound.Plus(end.Resources).Int64() != clusters {
			t.Errorf("glxgears at the end: clusters %d, totals %+v", clusters, end)
		}
	})
}
