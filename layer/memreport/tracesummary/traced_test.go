package tracesummary

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/vkgen/vkgen/internal/perfettotools"
	"github.com/vkgen/vkgen/perfetto/system"
	"google.golang.org/protobuf/encoding/protowire"
)

// A trace that the real traced recorded with compression_type DEFLATE
// (its packets in compressed_packets) summarises as the same events
// written to a file session at the same time, and trace_processor reads
// the same events from both.
func TestReadDeflatedByTraced(t *testing.T) {
	svc := perfettotools.StartTraced(t)
	p := system.Start(system.Config{Socket: svc.ProducerSock})
	t.Cleanup(func() { p.Close() })
	svc.WaitState(t, "the producer's track_event", func(st []byte) bool { return bytes.Contains(st, []byte("track_event")) })
	dir := t.TempDir()
	deflated := filepath.Join(dir, "deflated.pftrace")
	rec := svc.Record(t, `buffers { size_kb: 4096 fill_policy: DISCARD }
data_sources { config { name: "track_event" track_event_config { disabled_categories: "*" enabled_categories: "VulkanDeviceMemoryReport" } } }
compression_type: COMPRESSION_TYPE_DEFLATE
`, deflated)
	plain := record(t, func() { // into both sessions
		for i := range uint64(50) {
			alloc(cat, "CREATE", "DEVICE_MEMORY", 0x100+i, 4096, 0, 0x100+i, "unbound_memory")
			name(8, 0x100+i, "block")
		}
	})
	rec.Stop(t)

	data, err := os.ReadFile(deflated)
	if err != nil {
		t.Fatal(err)
	}
	_, _, n := protowire.ConsumeTag(data) // the first packet holds compressed_packets
	_, k := protowire.ConsumeVarint(data[n:])
	if num, _, _ := protowire.ConsumeTag(data[n+k:]); num != 50 {
		t.Fatalf("traced wrote no compressed_packets (first field %d)", num)
	}
	want, err := Read(bytes.NewReader(plain), "plain", Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Read(bytes.NewReader(data), deflated, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []*Summary{got, want} { // each session's own origin
		for i := range s.Objects {
			s.Objects[i].Created = 0
		}
	}
	if got.Events != 100 || !reflect.DeepEqual(got.Objects, want.Objects) {
		t.Errorf("deflated: %d events, objects %+v; want 100 and %+v", got.Events, got.Objects, want.Objects)
	}
	perfettotools.CheckStats(t, deflated)
	plainPath := filepath.Join(dir, "plain.pftrace")
	if err := os.WriteFile(plainPath, plain, 0o600); err != nil {
		t.Fatal(err)
	}
	const q = "SELECT COUNT(*) AS n FROM slice WHERE name IN ('VulkanMemoryAllocation', 'VulkanObjectName')"
	for _, path := range []string{deflated, plainPath} {
		if n := perfettotools.Query(t, path, q).Column("n"); len(n) != 1 || n[0] != "100" {
			t.Errorf("trace_processor reads %v events from %s, want 100", n, path)
		}
	}
}
