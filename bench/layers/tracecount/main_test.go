package main

import (
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/vkgen/vkgen/internal/perfettotools"
	"github.com/vkgen/vkgen/internal/vktest"
)

// TestVkloopUnderVkgenLayers is the smoke test of bench/layers/peer.sh's
// parts: vkloop runs each mode for 10 iterations under the vkgen layers
// that mode uses there, writing a trace file, and tracecount finds the
// layers' events for every iteration plus the setup's (the memory mode's
// one allocation; the probe buffer, never bound, records no event).
func TestVkloopUnderVkgenLayers(t *testing.T) {
	prog := vktest.Program(t, "testdata/vkloop/vkloop.c")
	cases := []struct {
		mode   string
		layers []string
		want   map[string]int
	}{
		{"loop", []string{"VK_LAYER_VKGEN_DebugMarker", "VK_LAYER_VKGEN_DeviceMemoryReport"}, map[string]int{
			"packet VkDebugUtilsObjectName": 30, "event VulkanObjectName": 30,
			// per iteration CREATE (the memory), BIND, DESTROY of both
			"event VulkanMemoryAllocation": 40}},
		{"memory", []string{"VK_LAYER_VKGEN_DeviceMemoryReport"}, map[string]int{
			// per iteration BIND and DESTROY; CREATE and DESTROY of the
			// shared memory
			"event VulkanMemoryAllocation": 20 + 2}},
		{"rename", []string{"VK_LAYER_VKGEN_DebugMarker"}, map[string]int{"packet VkDebugUtilsObjectName": 10}},
	}
	for _, c := range cases {
		t.Run(c.mode, func(t *testing.T) {
			trace := filepath.Join(t.TempDir(), "t.pftrace")
			cmd := exec.Command(prog, "--mode", c.mode, "--iterations", "5", "--reps", "2")
			cmd.Env = append(vktest.Env(t, c.layers...), "VK_VKGEN_TRACE_FILE="+trace, "VK_VKGEN_PERFETTO_SYSTEM=0")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("vkloop: %v\n%s", err, out)
			}
			got, err := count(trace)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("counts %v, want %v\nvkloop: %s", got, c.want, out)
			}
			perfettotools.CheckStats(t, trace)
		})
	}
}

func TestCountRejectsNonTrace(t *testing.T) {
	if _, err := count("main.go"); err == nil {
		t.Error("count(main.go) succeeded, want an error")
	}
}
