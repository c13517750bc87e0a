package tracecheck

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/internal/perfettotools"
	"github.com/vkgen/vkgen/internal/vktest"
	"github.com/vkgen/vkgen/layer/memreport/tracesummary"
)

const growthRules = `
growth_events total app == 0
growth total app <= baseline+128KiB
growth type BUFFER <= 64KiB
growth_events type DEVICE_MEMORY <= 1
growth name "leak.*" == 0
growth name "frame.*" == 0
growth_events name "frame.*" <= baseline
`

// TestCheckGrowth records layer/memreport/testdata/frameprog through the
// real loader and lavapipe (over the memdriver, which answers its
// presents) steady for 100 frames as the baseline, then leaking a 64 KiB
// buffer in a 64 KiB allocation of its own every 10th frame, and checks
// growth rules on both: the leak's buffer and memory are each found
// growing by the 4 leaks (262144 bytes) seen by the time the layer tells,
// the steady frame buffers never.
func TestCheckGrowth(t *testing.T) {
	if testing.Short() {
		t.Skip("records through the real loader")
	}
	prog := vktest.Program(t, "layer/memreport/testdata/frameprog.c")
	dir := t.TempDir()
	record := func(args ...string) tracesummary.Input {
		trace := filepath.Join(dir, args[0]+".pftrace")
		cmd := exec.Command(prog, args...)
		cmd.Env = append(vktest.DriverEnv(t, "present", "VK_LAYER_VKGEN_DeviceMemoryReport"),
			"VK_VKGEN_TRACE_FILE="+trace, "VK_VKGEN_DEVICEMEMORYREPORT_FRAME_WINDOW_MS=60000")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("frameprog %v: %v\n%s", args, err, out)
		}
		perfettotools.CheckStats(t, trace)
		return tracesummary.Input{Name: trace, Open: func() (io.ReadCloser, error) { return os.Open(trace) }}
	}
	sums := tracesummary.ReadMany([]tracesummary.Input{record("steady", "100"), record("leak", "100")}, tracesummary.Options{Top: 1}, 0)
	for _, s := range sums {
		if s.Err != nil {
			t.Fatal(s.Err)
		}
	}
	rules, err := Parse(strings.NewReader(growthRules), "growth.rules")
	if err != nil {
		t.Fatal(err)
	}
	base, leak := Check(rules, "steady", sums[0].Summary, nil, sums[0].Summary), Check(rules, "leak", sums[1].Summary, nil, sums[0].Summary)
	got := func(r Result) string {
		var s []string
		for _, o := range r.Outcomes {
			s = append(s, o.Status[:1]+o.Subject+"="+format(o.Rule, o.Value))
		}
		return strings.Join(s, " ")
	}
	// The steady run has no leak.* name: that rule is an error there.
	if g, want := got(base), "p=0 p=0 B p=0 B p=0 e=0 B pframe.scratch=0 B pframe.scratch.memory=0 B pframe.scratch=0 pframe.scratch.memory=0"; g != want {
		t.Errorf("steady:\n got %s\nwant %s\n%s", g, want, Text([]Result{base}))
	}
	if g, want := got(leak), "f=2 f=524288 B f=262144 B p=1 fleak.buffer=262144 B fleak.memory=262144 B pframe.scratch=0 B pframe.scratch.memory=0 B pframe.scratch=0 pframe.scratch.memory=0"; g != want {
		t.Errorf("leak:\n got %s\nwant %s\n%s", g, want, Text([]Result{leak}))
	}
}
