package pipeline

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/vkgen/vkgen/gen/genfile"
)

// TestStale: changed, missing and orphaned generated files are reported;
// hand-written files and testdata are not.
func TestStale(t *testing.T) {
	root := t.TempDir()
	gen := "// " + genfile.Header + "\n"
	for name, text := range map[string]string{
		"generated/same.go":              gen + "a",
		"generated/changed.go":           gen + "old",
		"generated/orphan.go":            gen,
		"generated/testdata/golden.go":   gen,
		"layer/hand.c":                   "/* written by hand */",
		"layer/x/VkLayer_vkgen_old.json": `{"comment": "` + genfile.Header + `"}`,
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Stale(root, []genfile.File{
		{Name: "generated/same.go", Data: []byte(gen + "a")},
		{Name: "generated/changed.go", Data: []byte(gen + "new")},
		{Name: "layer/new.c", Data: []byte("x")},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"generated/changed.go: differs",
		"generated/orphan.go: generated, but vkgen no longer produces it",
		"layer/new.c: missing",
		"layer/x/VkLayer_vkgen_old.json: generated, but vkgen no longer produces it",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Stale:\n got %q\nwant %q", got, want)
	}
}
