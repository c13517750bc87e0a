package system

import (
	"bytes"
	"testing"
	"time"

	"github.com/vkgen/vkgen/perfetto"
	"github.com/vkgen/vkgen/perfetto/decode"
	"github.com/vkgen/vkgen/perfetto/system/internal/fakeservice"
	"google.golang.org/protobuf/encoding/protowire"
)

// A batch far larger than the shared memory buffer reaches the service
// whole: the writer commits and waits for the service to free chunks
// instead of dropping the rest of the batch.
func TestFullBufferWaits(t *testing.T) {
	// a minute: only a broken wait can lose events
	tr, c := throughSmallBuffer(t, time.Minute, fakeservice.Options{SMBSize: 8192}, 2000) // about 100 KB
	if s := tr.Counters()[perfetto.DroppedEventsName]; s != nil {
		t.Errorf("loss reported: %+v", s.Samples)
	}
	checkClean(t, c)
}

// A service that keeps freeing chunks, however slowly, is waited for as long
// as it takes: the wait bound is per freed chunk, not per batch (issue 31:
// 8 threads at full speed lost a quarter of their events to a CPU-starved
// traced). The service here takes a tenth of the bound per commit, and the
// batch needs far more commits than ten.
func TestSlowServiceLosesNothing(t *testing.T) {
	const limit = 500 * time.Millisecond
	throughSmallBuffer(t, limit, fakeservice.Options{SMBSize: 8192, CommitDelay: limit / 10}, 4000) // about 200 KB
}

// throughSmallBuffer emits n instants through a service with opts and the
// writer's wait bound limit, and checks that every one reached the trace.
func throughSmallBuffer(t *testing.T, limit time.Duration, opts fakeservice.Options, n int) (*decode.Trace, *fakeservice.Conn) {
	old := stallLimit
	t.Cleanup(func() { stallLimit = old }) // after the producer closed
	stallLimit = limit
	e := setup(t, opts, Config{})
	c := e.conn
	if err := c.StartDataSource(1, fakeservice.Config{}, wait); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		perfetto.Instant(catMemory, evAlloc, perfetto.Uint(anHandle, uint64(i)))
	}
	raw := stopAndTrace(t, c, 1)
	if lost := e.prod.SMBDropped(); lost != 0 {
		t.Errorf("%d packets lost", lost)
	}
	tr := decodeTrace(t, raw)
	if got, _ := instants(tr, "VulkanMemoryAllocation"); got != n {
		t.Errorf("%d events in the trace, want %d", got, n)
	}
	return tr, c
}

// nextPacket reads the Trace.packet framing package perfetto writes, with
// lengths of one, two and three varint bytes, and refuses anything else.
func TestNextPacket(t *testing.T) {
	for _, size := range []int{0, 1, 127, 128, 16383, 16384, 70000} {
		p := bytes.Repeat([]byte{7}, size)
		b := append(protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), p), 0x0a, 0x01) // a truncated packet follows
		got, n := nextPacket(b)
		if n != len(b)-2 || !bytes.Equal(got, p) {
			t.Errorf("size %d: got %d bytes, consumed %d of %d", size, len(got), n, len(b)-2)
		}
		if _, n := nextPacket(b[n:]); n >= 0 {
			t.Errorf("size %d: a truncated packet was read (%d bytes)", size, n)
		}
		if _, n := nextPacket(b[:len(b)-3]); n >= 0 && size > 0 {
			t.Errorf("size %d: a packet cut short was read (%d bytes)", size, n)
		}
	}
	for _, b := range [][]byte{{0x12, 0x01, 0x00}, {0x08, 0x01, 0x00}, {0x0a, 0x80}, {0x0a, 0x85, 0x01, 0x00}} {
		if _, n := nextPacket(b); n >= 0 {
			t.Errorf("% x read as a packet (%d bytes)", b, n)
		}
	}
}
