package generated_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/gen/gotables"
	"github.com/vkgen/vkgen/internal/testenv"
	"github.com/vkgen/vkgen/internal/testreg"
)

// TestUpToDate regenerates from the pinned registry and fails when the
// committed files differ, or when a generated file is no longer produced.
func TestUpToDate(t *testing.T) {
	r := testreg.Load(t, testenv.PinnedRegistry)
	files, _, err := gotables.Generate(r)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, f := range files {
		want[f.Name] = true
		got, err := os.ReadFile(f.Name)
		if err != nil {
			t.Errorf("%v: run go generate ./generated (see docs/generating.md)", err)
			continue
		}
		if !bytes.Equal(got, f.Data) {
			t.Errorf("%s is stale against registry %s: run VK_REGISTRY=../shared/vkregistry/%s/vk.xml go generate ./generated", f.Name, testenv.PinnedRegistry, testenv.PinnedRegistry)
		}
	}
	ents, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range ents {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(string(data), "// "+gotables.Header) && !want[name] {
			t.Errorf("%s looks generated but vkgen no longer produces it; delete it", name)
		}
	}
}
