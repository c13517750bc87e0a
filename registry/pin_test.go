package registry

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFindPinned: after $VK_REGISTRY, the pinned copy is the first file with
// the pinned checksum in $VKGEN_REGISTRY_PATH or the system locations; a
// system registry with another checksum is used only after that.
func TestFindPinned(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, text string) string {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sum := sha256.Sum256([]byte("pinned"))
	pinFile := write(PinFile, "# comment\nversion 9.9.9\nsha256 "+hex.EncodeToString(sum[:])+"\n")
	pin, err := ReadPin(pinFile)
	if err != nil {
		t.Fatal(err)
	}
	other := write("other/9.9.9/vk.xml", "not the pinned one")
	pinned := write("copies/9.9.9/vk.xml", "pinned")
	system := write("usr/vk.xml", "system")
	old := systemRegistries
	systemRegistries = []string{system}
	t.Cleanup(func() { systemRegistries = old })
	t.Setenv("VK_REGISTRY", "")
	t.Setenv("VULKAN_SDK", "")

	t.Setenv("VKGEN_REGISTRY_PATH", filepath.Join(dir, "other")+string(os.PathListSeparator)+filepath.Join(dir, "copies"))
	if p, _, err := FindPinned("", pin); err != nil || p != pinned {
		t.Errorf("FindPinned = %q, %v; want the copy with the pinned checksum %q", p, err, pinned)
	}
	if p, _, _ := FindPinned(other, pin); p != other {
		t.Errorf("an explicit path must win: got %q", p)
	}
	t.Setenv("VK_REGISTRY", other)
	if p, _, _ := FindPinned("", pin); p != other {
		t.Errorf("$VK_REGISTRY must win over the pinned copy: got %q", p)
	}
	t.Setenv("VK_REGISTRY", "")
	t.Setenv("VKGEN_REGISTRY_PATH", filepath.Join(dir, "other"))
	_, _, err = FindPinned("", pin)
	var missing *PinnedMissingError
	if !errors.As(err, &missing) || !strings.Contains(err.Error(), system+" (another registry)") ||
		!strings.Contains(err.Error(), "--repin") || !strings.Contains(err.Error(), "v9.9.9/registry/vk.xml") {
		t.Errorf("without a pinned copy: %v; want a PinnedMissingError naming %s and how to go on", err, system)
	}
	if p, _, err := FindPinned("", nil); err != nil || p != system {
		t.Errorf("without a pin: %q, %v; want the system registry %q", p, err, system)
	}
	for _, bad := range []string{"version 1\n", "sha256 abc\nversion 1\n", "colour blue\n"} {
		if _, err := ReadPin(write("bad.pin", bad)); err == nil {
			t.Errorf("ReadPin accepted %q", bad)
		}
	}
}

// TestPinOlder: a registry is older than the pin by major.minor, then
// VK_HEADER_VERSION; WritePin records what ReadPin reads back.
func TestPinOlder(t *testing.T) {
	pin := &Pin{Version: "1.4.359", SHA256: strings.Repeat("ab", 32)}
	for _, c := range []struct {
		api    string
		header int
		older  bool
	}{{"1.4", 359, false}, {"1.4", 360, false}, {"1.4", 328, true}, {"1.3", 400, true}, {"1.5", 1, false}, {"", 0, true}} {
		if got := pin.Older(&Registry{APIVersion: c.api, HeaderVersion: c.header}); got != c.older {
			t.Errorf("%s.%d older than 1.4.359: %v, want %v", c.api, c.header, got, c.older)
		}
	}
	p := filepath.Join(t.TempDir(), PinFile)
	if err := WritePin(p, &Registry{APIVersion: "1.2", HeaderVersion: 131, SHA256: pin.SHA256}); err != nil {
		t.Fatal(err)
	}
	got, err := ReadPin(p)
	if err != nil || *got != (Pin{Version: "1.2.131", SHA256: pin.SHA256}) {
		t.Errorf("ReadPin after WritePin: %+v, %v", got, err)
	}
	if err := WritePin(p, &Registry{APIVersion: "1.0"}); err == nil {
		t.Error("WritePin pinned a registry without a version")
	}
}
