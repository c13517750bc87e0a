package registry

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
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
	if p, _, err := FindPinned("", pin); err != nil || p != system {
		t.Errorf("without a pinned copy: %q, %v; want the system registry %q", p, err, system)
	}
	for _, bad := range []string{"version 1\n", "sha256 abc\nversion 1\n", "colour blue\n"} {
		if _, err := ReadPin(write("bad.pin", bad)); err == nil {
			t.Errorf("ReadPin accepted %q", bad)
		}
	}
}
