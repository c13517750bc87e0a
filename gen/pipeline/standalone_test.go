package pipeline

import (
	"bytes"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/gen/genfile"
	"github.com/vkgen/vkgen/internal/testenv"
	"github.com/vkgen/vkgen/internal/testreg"
	"github.com/vkgen/vkgen/registry"
)

// TestLayerOutputStandsAlone: adding, changing or removing a layer's hooks,
// or adding a layer, changes only that layer's generated files and the
// library's list of layers (what `git diff --stat` would show after
// `vkgen generate`). The tree's layers are copied (specs and hand-written Go)
// into a temporary root and generated before and after each edit.
func TestLayerOutputStandsAlone(t *testing.T) {
	r := testreg.Load(t, testenv.PinnedRegistry)
	root := copyLayers(t, testenv.Root())
	before := generate(t, r, root)

	// A deferred hook and a Go hook on commands no other layer intercepts,
	// whose records copy structures no other hook copies.
	example := filepath.Join(root, FrameworkDir, "example", "example.go")
	write(t, example, read(t, example)+`
func afterCreateSampler(vk.Device, *vk.SamplerCreateInfo, *vk.AllocationCallbacks, *vk.Sampler, vk.Result) {}

func preCmdDraw(vk.CommandBuffer, uint32, uint32, uint32, uint32) {}

func afterCreateBuffer(vk.Device, *vk.BufferCreateInfo, *vk.AllocationCallbacks, *vk.Buffer, vk.Result) {}
`)
	added := generate(t, r, root)
	onlyUnder(t, "adding hooks to the example", before, added, FrameworkDir+"/example/")

	// Removing them again gives the tree back.
	write(t, example, read(t, example)[:strings.Index(read(t, example), "\nfunc afterCreateSampler")+1])
	if removed := generate(t, r, root); !sameFiles(before, removed) {
		onlyUnder(t, "removing the hooks", added, removed, FrameworkDir+"/example/")
		t.Error("removing the added hooks does not give the first output back")
	}

	// A new layer with its own deferred hook.
	dir := filepath.Join(root, FrameworkDir, "zz")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "vkgen-layer.json"), `{"name": "VK_LAYER_T_zz", "symbol": "zz", "description": "d"}`)
	write(t, filepath.Join(dir, "zz.go"), `package zz

import "github.com/vkgen/vkgen/layer/vk"

func afterCreateQueryPool(vk.Device, *vk.QueryPoolCreateInfo, *vk.AllocationCallbacks, *vk.QueryPool, vk.Result) {}
`)
	onlyUnder(t, "adding a layer", before, generate(t, r, root), FrameworkDir+"/zz/")
}

// onlyUnder fails unless every file that differs between a and b is under
// dir or is the library's list of layers.
func onlyUnder(t *testing.T, what string, a, b map[string][]byte, dir string) {
	t.Helper()
	var changed []string
	for name := range a {
		if !bytes.Equal(a[name], b[name]) {
			changed = append(changed, name)
		}
	}
	for name := range b {
		if _, ok := a[name]; !ok {
			changed = append(changed, name)
		}
	}
	slices.Sort(changed)
	if len(changed) == 0 {
		t.Errorf("%s changed no generated file", what)
	}
	for _, name := range changed {
		if !strings.HasPrefix(name, dir) && name != LibraryFile {
			t.Errorf("%s changed %s", what, name)
		}
	}
}

func sameFiles(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for name, data := range a {
		if !bytes.Equal(data, b[name]) {
			return false
		}
	}
	return true
}

func generate(t *testing.T, r *registry.Registry, root string) map[string][]byte {
	t.Helper()
	files, _, err := Generate(r, root)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		out[f.Name] = f.Data
	}
	return out
}

// copyLayers copies go.mod and, of every layer under FrameworkDir, its spec
// and hand-written Go files into a new root (all that Generate reads).
func copyLayers(t *testing.T, from string) string {
	t.Helper()
	root := t.TempDir()
	write(t, filepath.Join(root, "go.mod"), read(t, filepath.Join(from, "go.mod")))
	specs, err := filepath.Glob(filepath.Join(from, FrameworkDir, "*", "vkgen-layer.json"))
	if err != nil || len(specs) == 0 {
		t.Fatalf("no layers under %s: %v", from, err)
	}
	for _, spec := range specs {
		src := filepath.Dir(spec)
		dst := filepath.Join(root, FrameworkDir, filepath.Base(src))
		if err := os.MkdirAll(dst, 0o755); err != nil {
			t.Fatal(err)
		}
		entries, err := os.ReadDir(src)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			n := e.Name()
			if n == "vkgen-layer.json" || path.Ext(n) == ".go" && !genfile.IsName(n) && !strings.HasSuffix(n, "_test.go") {
				write(t, filepath.Join(dst, n), read(t, filepath.Join(src, n)))
			}
		}
	}
	return root
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
