package system

import (
	"testing"
	"time"

	"github.com/vkgen/vkgen/perfetto"
	"github.com/vkgen/vkgen/perfetto/system/internal/fakeservice"
)

// Events emitted before any instance reach the instances started within
// the window, on buffers of their own (target buffer 2 here); an instance
// whose filter rejects a registered category gets none of them.
func TestStartupTracing(t *testing.T) {
	e := setup(t, fakeservice.Options{}, Config{StartupWindow: time.Minute, StartupBytes: 1 << 20})
	for i := range 10 {
		perfetto.Instant(catMemory, evAlloc, perfetto.Uint(anHandle, uint64(i)))
	}
	c := e.conn
	if err := c.StartDataSource(1, fakeservice.Config{TargetBuffer: 2}, wait); err != nil {
		t.Fatal(err)
	}
	if err := c.StartDataSource(2, fakeservice.Config{TargetBuffer: 3, Disabled: []string{"VulkanDebugMarker"}}, wait); err != nil {
		t.Fatal(err)
	}
	if err := c.StartDataSource(3, fakeservice.Config{TargetBuffer: 4}, wait); err != nil {
		t.Fatal(err)
	}
	for id := range uint64(3) {
		if err := c.StopDataSource(id+1, wait); err != nil {
			t.Fatal(err)
		}
	}
	for target, want := range map[uint32]int{2: 10, 3: 0, 4: 10} {
		raw, _, err := c.TraceOf(target)
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := instants(decodeTrace(t, raw), "VulkanMemoryAllocation"); n != want {
			t.Errorf("target buffer %d: %d startup events, want %d", target, n, want)
		}
	}
	checkClean(t, c)
}

// Without a service socket, or with the window closed, nothing is kept.
func TestStartupTracingBounds(t *testing.T) {
	p := Start(Config{Socket: sockPath(t), StartupWindow: time.Minute, StartupBytes: 1 << 20})
	defer p.Close()
	if p.startup != nil {
		t.Error("startup tracing without a service socket")
	}
	e := setup(t, fakeservice.Options{}, Config{StartupWindow: time.Nanosecond, StartupBytes: 1 << 20})
	waitFor(t, "the startup window to close", func() bool {
		e.prod.startup.mu.Lock()
		defer e.prod.startup.mu.Unlock()
		return e.prod.startup.sess == nil
	})
	perfetto.Instant(catMemory, evAlloc)
	if err := e.conn.StartDataSource(1, fakeservice.Config{}, wait); err != nil {
		t.Fatal(err)
	}
	if n, _ := instants(decodeTrace(t, stopAndTrace(t, e.conn, 1)), "VulkanMemoryAllocation"); n != 0 {
		t.Errorf("%d startup events after the window closed", n)
	}
}
