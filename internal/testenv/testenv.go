// Package testenv locates test inputs that live outside the repository
// (the read-only ../shared folder beside a checkout) and skips tests cleanly
// when they are absent, as on a user's fresh clone.
package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Root returns the repository root (the directory holding go.mod).
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// SharedDir returns the shared test-data folder: $VKGEN_SHARED, else ../shared
// beside the repository. ok is false when it does not exist.
func SharedDir() (dir string, ok bool) {
	dir = os.Getenv("VKGEN_SHARED")
	if dir == "" {
		dir = filepath.Join(Root(), "..", "shared")
	}
	st, err := os.Stat(dir)
	return dir, err == nil && st.IsDir()
}

// Shared returns the path of rel inside the shared folder, or skips t.
func Shared(t testing.TB, rel string) string {
	t.Helper()
	dir, ok := SharedDir()
	if !ok {
		t.Skipf("shared test data not found at %s (set VKGEN_SHARED); skipping", dir)
	}
	p := filepath.Join(dir, rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("shared test data %s missing: %v", p, err)
	}
	return p
}

// Registry returns the vk.xml of one version under shared/vkregistry, or skips t.
func Registry(t testing.TB, version string) string {
	t.Helper()
	return Shared(t, filepath.Join("vkregistry", version, "vk.xml"))
}

// RegistryVersions lists the versions under shared/vkregistry, or skips t.
func RegistryVersions(t testing.TB) []string {
	t.Helper()
	dir := Shared(t, "vkregistry")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var vs []string
	for _, e := range ents {
		if e.IsDir() {
			if _, err := os.Stat(filepath.Join(dir, e.Name(), "vk.xml")); err == nil {
				vs = append(vs, e.Name())
			}
		}
	}
	return vs
}

// PinnedRegistry is the registry version the committed generated code comes
// from (docs/generating.md).
const PinnedRegistry = "1.4.359"

// CopyCheckout copies the repository's tracked and untracked, not ignored
// files (what a clone with the working tree's changes holds) to dir; it
// skips t when the repository is not a git checkout.
func CopyCheckout(t testing.TB, dir string) {
	t.Helper()
	root := Root()
	ls := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	ls.Dir = root
	out, err := ls.Output()
	if err != nil {
		t.Skipf("git ls-files: %v (needs a git checkout)", err)
	}
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		src := filepath.Join(root, name)
		st, err := os.Stat(src)
		if os.IsNotExist(err) {
			continue // deleted in the working tree
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, st.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
}
