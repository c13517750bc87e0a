package tracing

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/vkgen/vkgen/perfetto"
	"github.com/vkgen/vkgen/perfetto/decode"
	"github.com/vkgen/vkgen/perfetto/system"
)

// With no tracing service at the socket, Start returns at once, the
// producer keeps retrying in the background, and the file session works.
// (The fake service is internal to perfetto/system, so the connected case
// is tested there.)
func TestStartWithoutService(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.pftrace")
	t.Setenv(system.EnvProducerSocket, filepath.Join(dir, "no-such.sock"))
	t.Setenv(system.EnvSystem, "")
	t.Setenv(perfetto.EnvTraceFile, trace)

	if err := Start(); err != nil {
		t.Fatal(err)
	}
	if err := Start(); err != nil { // idempotent
		t.Fatal(err)
	}
	p := system.StartFromEnv() // the producer Start made
	if p == nil || p.Connected() {
		t.Fatalf("producer %v: want one, not connected", p)
	}
	if n := len(perfetto.Sessions()); n != 1 {
		t.Fatalf("%d sessions, want the file session only", n)
	}
	cat := perfetto.NewCategory("tracing.test")
	ev := perfetto.NewEventName("started")
	perfetto.Instant(cat, ev)
	if err := Flush(); err != nil {
		t.Fatal(err)
	}
	if err := perfetto.StopAll(); err != nil {
		t.Fatal(err)
	}
	p.Close()
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := decode.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(tr.Instants()); n != 1 || tr.Instants()[0].Event.Name != "started" {
		t.Errorf("trace holds %d instants, want the one emitted", n)
	}
}
