package acceptance

import (
	"bufio"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/internal/perfettotools"
	"github.com/vkgen/vkgen/internal/vktest"
	"github.com/vkgen/vkgen/perfetto/internal/pb"
	"google.golang.org/protobuf/encoding/protowire"
)

// The layers every program enables.
var layers = []string{"VK_LAYER_VKGEN_DeviceMemoryReport", "VK_LAYER_VKGEN_DebugMarker"}

// prog is a running testdata/vksys: the test drives it line by line.
type prog struct {
	t     *testing.T
	pid   int
	stdin io.WriteCloser
	out   *bufio.Scanner
	done  chan error
	log   *strings.Builder
}

// startProg runs vksys with the layers, pointed at svc, with extra
// environment entries (later ones win).
func startProg(t *testing.T, svc *perfettotools.Service, extraEnv ...string) *prog {
	t.Helper()
	cmd := exec.Command(vktest.Program(t, "testdata/vksys/vksys.c"))
	cmd.Env = append(append(vktest.Env(t, layers...), svc.Env()...), extraEnv...)
	p := &prog{t: t, done: make(chan error, 1), log: &strings.Builder{}}
	var err error
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = p.log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- cmd.Wait() }()
	t.Cleanup(func() {
		p.stdin.Close()
		<-p.done
	})
	p.out = bufio.NewScanner(stdout)
	if _, err := fmt.Sscanf(p.line(), "ready pid=%d", &p.pid); err != nil {
		t.Fatalf("vksys: %v\n%s", err, p.log)
	}
	return p
}

func (p *prog) line() string {
	if !p.out.Scan() {
		p.t.Fatalf("vksys ended early: %v\n%s", p.out.Err(), p.log)
	}
	return p.out.Text()
}

// do sends a command and returns the program's answer.
func (p *prog) do(cmd string) string {
	p.t.Helper()
	if _, err := io.WriteString(p.stdin, cmd+"\n"); err != nil {
		p.t.Fatalf("vksys %s: %v\n%s", cmd, err, p.log)
	}
	return p.line()
}

// end sends quit (destroy everything, return from main) or exit (exit(3)
// at once) and waits for a clean exit.
func (p *prog) end(how string) {
	p.t.Helper()
	io.WriteString(p.stdin, how+"\n")
	p.stdin.Close()
	if err := <-p.done; err != nil {
		p.t.Fatalf("vksys: %v\n%s", err, p.log)
	}
	p.done <- nil
}

// trackEventProducers returns the pids of the producers that registered
// track_event (TracingServiceState producers and data_sources). A producer
// behind traced_relay shows the relay's pid.
func trackEventProducers(state []byte) []int {
	pids := map[uint64]int{}
	var regs []uint64
	pb.Walk(state, func(num protowire.Number, _ uint64, d []byte) error {
		switch num {
		case 1: // Producer{id = 1, pid = 5}
			var id, pid uint64
			pb.Walk(d, func(n protowire.Number, v uint64, _ []byte) error {
				if n == 1 {
					id = v
				} else if n == 5 {
					pid = v
				}
				return nil
			})
			pids[id] = int(pid)
		case 2: // DataSource{ds_descriptor{name = 1} = 1, producer_id = 2}
			var name string
			var prod uint64
			pb.Walk(d, func(n protowire.Number, v uint64, d []byte) error {
				if n == 2 {
					prod = v
				} else if n == 1 {
					pb.Walk(d, func(n protowire.Number, _ uint64, d []byte) error {
						if n == 1 {
							name = string(d)
						}
						return nil
					})
				}
				return nil
			})
			if name == "track_event" {
				regs = append(regs, prod)
			}
		}
		return nil
	})
	var out []int
	for _, r := range regs {
		out = append(out, pids[r])
	}
	return out
}

// waitRegistered waits until every program's producer registered.
func waitRegistered(t *testing.T, svc *perfettotools.Service, ps ...*prog) {
	t.Helper()
	svc.WaitState(t, "the programs' producers", func(st []byte) bool {
		pids := trackEventProducers(st)
		for _, p := range ps {
			if !slices.Contains(pids, p.pid) {
				return false
			}
		}
		return true
	})
}

// waitGone waits until traced no longer lists the ended programs'
// producers: a session stopped before traced has seen a producer's socket
// close sends it a flush that can only time out (traced_flushes_failed).
func waitGone(t *testing.T, svc *perfettotools.Service, ps ...*prog) {
	t.Helper()
	svc.WaitState(t, "the programs' producers gone", func(st []byte) bool {
		pids := trackEventProducers(st)
		for _, p := range ps {
			if slices.Contains(pids, p.pid) {
				return false
			}
		}
		return true
	})
}

// config is a TraceConfig recording track_event with the given
// TrackEventConfig fields, then extra top-level fields.
func config(trackEvent, extra string) string {
	return `buffers { size_kb: 16384 fill_policy: DISCARD }
data_sources { config { name: "track_event" track_event_config { ` + trackEvent + ` } } }
` + extra
}

const layerCategories = `disabled_categories: "*" enabled_categories: "VulkanDebugMarker" enabled_categories: "VulkanDeviceMemoryReport"`

// sessionID is the id of the one tracing session the service runs.
func sessionID(state []byte) uint64 {
	var id uint64
	pb.Walk(state, func(num protowire.Number, _ uint64, d []byte) error {
		if num == 6 { // TracingSession{id = 1}
			pb.Walk(d, func(n protowire.Number, v uint64, _ []byte) error {
				if n == 1 {
					id = v
				}
				return nil
			})
		}
		return nil
	})
	return id
}
