package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/vkgen/vkgen/internal/testenv"
)

// TestRegistryInputs: devices are refused before reading, pipes are read,
// and a registry over --registry-max-mb is refused naming the file, for
// --registry and $VK_REGISTRY alike.
func TestRegistryInputs(t *testing.T) {
	t.Cleanup(func() { vkgen(t, "tables", "--registry-max-mb", "32", "--help") })
	good := testenv.Registry(t, "1.3.239")
	dir := t.TempDir()
	big := filepath.Join(dir, "big.xml")
	// A registry of one comment, just over the 32 MiB default.
	if err := os.WriteFile(big, []byte("<registry><!--"+strings.Repeat(" ", 32<<20+1024)+"--></registry>"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "vk.xml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	feed := func(path string) {
		go func() {
			src, _ := os.ReadFile(path)
			if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
				w.Write(src) // the reader may stop early: EPIPE is fine
				w.Close()
			}
		}()
	}
	for _, c := range []struct {
		name    string
		args    []string
		env     string
		feed    string
		code    int
		want    string
		wantOut string
	}{
		{"/dev/zero", []string{"--registry", "/dev/zero"}, "", "", 2, "registry: /dev/zero is a character device", ""},
		{"$VK_REGISTRY=/dev/zero", nil, "/dev/zero", "", 2, "registry: /dev/zero is a character device", ""},
		{"too large", []string{"--registry", big}, "", "", 2, big + ": 33555484 bytes, larger than the registry size limit of 33554432 bytes (32.0 MiB); raise it with --registry-max-mb", ""},
		{"$VK_REGISTRY too large", nil, big, "", 2, big + ": 33555484 bytes, larger than", ""},
		{"limit raised", []string{"--registry", big, "--registry-max-mb", "64"}, "", "", 2, "has no VkDebugReportObjectTypeEXT", ""},
		{"FIFO", []string{"--registry", fifo}, "", good, 0, "", "VK_OBJECT_TYPE_INSTANCE"},
		{"FIFO too large", []string{"--registry", fifo}, "", big, 2, fifo + ": larger than the registry size limit", ""},
		{"zero limit", []string{"--registry", good, "--registry-max-mb", "0"}, "", "", 2, "--registry-max-mb 0: must be between 1 and 1048576 (1 TiB)", ""},
		{"negative limit", []string{"--registry", good, "--registry-max-mb", "-5"}, "", "", 2, "--registry-max-mb -5: must be between 1", ""},
		// issue 28: the MiB-to-bytes conversion overflowed into a negative limit
		{"huge limit", []string{"--registry", good, "--registry-max-mb", "99999999999999"}, "", "", 2, "--registry-max-mb 99999999999999: must be between 1 and 1048576", ""},
	} {
		t.Setenv("VK_REGISTRY", c.env)
		if c.feed != "" {
			feed(c.feed)
		}
		args := append([]string{"tables", "--format", "text", "--registry", "", "--registry-max-mb", "32"}, c.args...)
		out, errOut, code := vkgen(t, args...)
		if code != c.code || !strings.Contains(errOut, c.want) || !strings.Contains(out, c.wantOut) {
			t.Errorf("%s: exit %d, stderr %q; want %d and %q", c.name, code, errOut, c.code, c.want)
		}
	}
}
