// Package testenv locates test inputs that live outside the repository
// (the read-only ../shared folder beside a checkout) and skips tests cleanly
// when they are absent, as on a user's fresh clone.
package testenv

import (
	"os"
	"path/filepath"
	"runtime"
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
