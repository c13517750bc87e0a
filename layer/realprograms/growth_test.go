package realprograms_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vkgen/vkgen/internal/perfettotools"
)

// steadyTime is how long the programs of TestNoFalseGrowth render: they
// have a steady workload after their start, so any growth found is false.
const steadyTime = 30 * time.Second

// TestNoFalseGrowth renders vkcube and glxgears on Zink for 30 s each
// through DeviceMemoryReport (frames are their presents): the trace and the
// summary count the frames and hold no growth, and nothing is printed
// about growth.
func TestNoFalseGrowth(t *testing.T) {
	realOnly(t, "renders for a minute")
	r := newRig(t)
	st := stacks[0] // alone, explicit
	for _, p := range []program{
		{name: "vkcube", argv: func(*rig) []string { return []string{"vkcube"} }},
		{name: "glxgears-zink", env: zink, argv: func(*rig) []string { return []string{"glxgears"} }},
	} {
		t.Run(p.name, func(t *testing.T) {
			dir := t.TempDir()
			argv := p.argv(r)
			ctx, cancel := context.WithTimeout(context.Background(), steadyTime+runLimit)
			defer cancel()
			cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
			cmd.Dir, cmd.Env = dir, r.env(t, p, st, true, dir)
			var out strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			timer := time.AfterFunc(steadyTime, func() { cmd.Process.Signal(syscall.SIGTERM) })
			defer timer.Stop()
			cmd.Wait()
			if strings.Contains(out.String(), "memory growth") {
				t.Errorf("%s printed growth:\n%s", p.name, tail(out.String()))
			}
			traces, _ := filepath.Glob(filepath.Join(dir, "trace-*.pftrace"))
			if len(traces) == 0 {
				t.Fatalf("no trace\n%s", tail(out.String()))
			}
			frames := uint64(0)
			for _, tr := range traces {
				perfettotools.CheckStats(t, tr)
				data, err := exec.Command(r.vkgen, "trace", "summary", "--format", "json", tr).Output()
				if err != nil {
					t.Fatalf("vkgen trace summary %s: %v\n%s", tr, err, data)
				}
				var s struct {
					Frames struct {
						Count uint64 `json:"count"`
					} `json:"frames"`
					Growths []struct {
						Type string `json:"type"`
						Name string `json:"name"`
					} `json:"growths"`
				}
				if err := json.Unmarshal(data, &s); err != nil {
					t.Fatal(err)
				}
				if len(s.Growths) != 0 {
					t.Errorf("%s: false growth %+v", tr, s.Growths)
				}
				frames += s.Frames.Count
			}
			if frames == 0 {
				t.Errorf("no frame in %v", steadyTime)
			}
			t.Logf("%s: %d frames in %v, no growth", p.name, frames, steadyTime)
		})
	}
}
