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
		"generated/same.gen.go":              gen + "a",
		"generated/changed.gen.go":           gen + "old",
		"generated/orphan.gen.go":            gen,
		"generated/unmarked.go":              gen,
		"generated/testdata/golden.gen.go":   gen,
		"layer/hand.c":                       "/* written by hand */",
		"layer/x/VkLayer_vkgen_old.gen.json": `{"comment": "` + genfile.Header + `"}`,
		"layer/x/headless.gen.c":             "/* header lost */",
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
		{Name: "generated/same.gen.go", Data: []byte(gen + "a")},
		{Name: "generated/changed.gen.go", Data: []byte(gen + "new")},
		{Name: "layer/new.gen.c", Data: []byte("x")},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"generated/changed.gen.go: differs",
		"generated/orphan.gen.go: generated, but vkgen no longer produces it",
		"generated/unmarked.go: generated, but vkgen no longer produces it",
		"layer/new.gen.c: missing",
		"layer/x/VkLayer_vkgen_old.gen.json: generated, but vkgen no longer produces it",
		"layer/x/headless.gen.c: generated, but vkgen no longer produces it",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Stale:\n got %q\nwant %q", got, want)
	}
}

// TestNameRule: genfile.Name and IsName agree on every kind of output.
func TestNameRule(t *testing.T) {
	for in, want := range map[string]string{
		"vkgen_dispatch.c":           "vkgen_dispatch.gen.c",
		"objecttypes.go":             "objecttypes.gen.go",
		"layouts_test.go":            "layouts.gen_test.go",
		"VkLayer_vkgen_example.json": "VkLayer_vkgen_example.gen.json",
	} {
		if got := genfile.Name(in); got != want || !genfile.IsName("d/"+got) || genfile.IsName(in) {
			t.Errorf("Name(%q) = %q (IsName %v), want %q", in, got, genfile.IsName(got), want)
		}
	}
}
