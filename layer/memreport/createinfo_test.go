package memreport

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestBuildCreateInfo compiles testdata/createinfo_test.c with createinfo.c
// (the vkCreateDevice create-info rewriting, pure C) and runs it: the
// callback path cannot run on lavapipe, which lacks
// VK_EXT_device_memory_report.
func TestBuildCreateInfo(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not found")
	}
	if _, err := os.Stat("/usr/include/vulkan/vulkan.h"); err != nil {
		t.Skip("Vulkan headers (libvulkan-dev) not installed")
	}
	bin := filepath.Join(t.TempDir(), "createinfo_test")
	if out, err := exec.Command("gcc", "-Wall", "-Werror", "-fsanitize=address,undefined", "-o", bin,
		filepath.Join("testdata", "createinfo_test.c"), "createinfo.c").CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	if out, err := exec.Command(bin).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}
