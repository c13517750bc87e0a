package vktest_test

import (
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/internal/vktest"
)

// TestMemDriverEmulations runs testdata/memdriver/check through the loader
// with only the memdriver layer over lavapipe and every option on (heaps
// too): what each emulation advertises and does, exactly (the
// device-memory-report events themselves are checked with the
// DeviceMemoryReport layer above, in layer/memreport).
func TestMemDriverEmulations(t *testing.T) {
	if testing.Short() {
		t.Skip("builds C programs; skipped with -short")
	}
	prog := vktest.Program(t, "testdata/memdriver/check/memdriver_check.c")
	cmd := exec.Command(prog)
	cmd.Env = append(vktest.EnvWith(t, vktest.MemDriver(t), vktest.MemDriverLayer), "VKGEN_MEMDRIVER=all,heaps")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// lavapipe's one heap and memory type, then the heaps option's: the
	// budget is half of each heap.
	m := regexp.MustCompile(`(?m)^budget before_device heaps=2 heap0=(\d+) .* type0=(0x[0-9a-f]+)/heap0 `).FindSubmatch(out)
	if m == nil {
		t.Fatalf("no budget line with two heaps:\n%s", out)
	}
	heap, _ := strconv.ParseUint(string(m[1]), 10, 64)
	budget := func(when string, usage0, usage1 uint64) string {
		return fmt.Sprintf("budget %s heaps=2 heap0=%d budget0=%d usage0=%d heap1=268435456/0x1 budget1=134217728 usage1=%d type0=%s/heap0 type1=0x1/heap1",
			when, heap, heap/2, usage0, usage1, m[2])
	}
	want := []string{
		"extension VK_EXT_device_memory_report=1",
		"extension VK_EXT_memory_budget=1",
		"extension VK_KHR_maintenance6=1",
		"extension VK_KHR_video_queue=1",
		"features deviceMemoryReport=1 maintenance6=1 sparseBinding=1 queue0_sparse=1",
		budget("before_device", 0, 0),
		budget("device", 0, 1048576),        // the device's internal allocation, in the device-local heap
		budget("allocated", 65536, 1048576), // and the application's, in its type's heap
		"heaps types=0x3 device_types=0x3 bind=0",
		budget("allocated_heap1", 65536, 1048576+4096),
		"bind2 result=-2 status0=0 status1=-2 rebind1=0", // the 0xdead0000 bind refused, not bound below
		"sparse bind=0 fence=0",
		"video session=0x71de0010 bindings=2 [0 size=65536 align=4096 types=0x3] [1 size=262144 align=4096 types=0x3] bind=0 rebind=-3",
		budget("destroyed", 0, 0),
	}
	if got := strings.Split(strings.TrimSpace(string(out)), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestMemDriverOptionsOff: without VKGEN_MEMDRIVER only the report
// extension is offered, and a device enabling the others (and
// sparseBinding) is refused by lavapipe: the driver passes down what it
// does not offer.
func TestMemDriverOptionsOff(t *testing.T) {
	if testing.Short() {
		t.Skip("builds C programs; skipped with -short")
	}
	prog := vktest.Program(t, "testdata/memdriver/check/memdriver_check.c")
	cmd := exec.Command(prog)
	cmd.Env = vktest.EnvWith(t, vktest.MemDriver(t), vktest.MemDriverLayer)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Errorf("exit: %v, want status 1 (vkCreateDevice refused)", err)
	}
	want := "extension VK_EXT_device_memory_report=1\nextension VK_EXT_memory_budget=0\n" +
		"extension VK_KHR_maintenance6=0\nextension VK_KHR_video_queue=0\n" +
		"features deviceMemoryReport=1 maintenance6=0 sparseBinding=0 queue0_sparse=0\n" +
		"budget before_device heaps=1 heap0="
	if !strings.HasPrefix(string(out), want) || !regexp.MustCompile(`^memdriver-check: vkCreateDevice\(.*\) failed: -8 `).MatchString(stderr.String()) {
		t.Errorf("got:\n%s%s\nwant it to start with:\n%s\nand vkCreateDevice to fail with VK_ERROR_FEATURE_NOT_PRESENT (-8)", out, stderr.String(), want)
	}
}
