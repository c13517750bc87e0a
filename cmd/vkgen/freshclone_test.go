package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/gen/genfile"
	"github.com/vkgen/vkgen/internal/testenv"
	"github.com/vkgen/vkgen/internal/vktest"
)

// TestFreshCloneGoGenerate is the user story "go generate when the Vulkan
// headers update", as a new user runs it: the repository's files are copied
// to a directory with no ../shared beside it, and `go generate ./...` runs
// there with only VK_REGISTRY set. With another registry every generated
// file must come from it, and the layers must still build; with the pinned
// registry again the copy must equal the committed tree. On the way,
// `vkgen layer new hello` scaffolds a layer that builds into the library
// and loads through the real loader as it is.
func TestFreshCloneGoGenerate(t *testing.T) {
	if testing.Short() {
		t.Skip("builds vkgen and the layers in a copy of the repository")
	}
	other := testenv.Registry(t, "1.3.239")
	pinned := testenv.Registry(t, testenv.PinnedRegistry)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found")
	}
	root := testenv.Root()
	clone := filepath.Join(vktest.FixedDir(t, "freshclone"), "vkgen")
	vktest.CopyCheckout(t, clone)
	// The copy's Go builds share the build cache with the tree's (without
	// -trimpath the folder is part of every package's cache key);
	// scripts/build-layers.sh builds so too.
	t.Setenv("GOFLAGS", strings.TrimSpace(os.Getenv("GOFLAGS")+" -trimpath"))

	goGenerate(t, clone, other)
	n := 0
	for _, f := range readTree(t, clone) {
		head := f.Data[:min(len(f.Data), 256)]
		if !bytes.Contains(head, []byte(genfile.Header)) || strings.Contains(f.Name, "testdata/") {
			continue
		}
		n++
		if !bytes.Contains(head, []byte("Vulkan registry 1.3.239")) {
			t.Errorf("%s does not come from VK_REGISTRY (1.3.239):\n%s", f.Name, head)
		}
	}
	if n < 10 {
		t.Errorf("only %d generated files in the clone", n)
	}
	newLayerLoads(t, clone, other)

	if err := os.RemoveAll(filepath.Join(clone, "layer", "hello")); err != nil {
		t.Fatal(err)
	}
	goGenerate(t, clone, pinned)
	for _, f := range readTree(t, clone) {
		want, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f.Name)))
		switch {
		case err != nil:
			t.Errorf("%s: written by go generate but not in the tree", f.Name)
		case !bytes.Equal(want, f.Data):
			t.Errorf("%s: differs from the tree after go generate with the pinned registry", f.Name)
		}
	}
}

// newLayerLoads scaffolds layer hello in the tree at dir, builds the library
// (scripts/build-layers.sh) and creates an instance with the layer enabled
// through the real loader on lavapipe.
func newLayerLoads(t *testing.T, dir, registry string) {
	t.Helper()
	vktest.Require(t)
	vkgen := filepath.Join(t.TempDir(), "vkgen")
	lib := t.TempDir()
	steps := [][]string{
		{"go", "build", "-o", vkgen, "./cmd/vkgen"},
		{vkgen, "layer", "new", "hello", "--registry", registry},
		{"scripts/build-layers.sh", lib},
	}
	for _, s := range steps {
		cmd := exec.Command(s[0], s[1:]...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(s, " "), err, out)
		}
	}
	hooks := exec.Command(vkgen, "layer", "hooks", "layer/hello", "vkCreateBuffer", "--registry", registry)
	hooks.Dir = dir
	if out, err := hooks.CombinedOutput(); err != nil || !strings.Contains(string(out), "postCreateInstance: after vkCreateInstance") ||
		!strings.Contains(string(out), "func preCreateBuffer(device vk.Device, pCreateInfo *vk.BufferCreateInfo, pAllocator *vk.AllocationCallbacks, pBuffer *vk.Buffer)") {
		t.Errorf("vkgen layer hooks: %v\n%s", err, out)
	}
	// A hook with the wrong signature stops generation, naming the file,
	// the function and the signature it must have.
	hello := filepath.Join(dir, "layer", "hello", "hello.go")
	src, err := os.ReadFile(hello)
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(src), ", result vk.Result)", ")", 1)
	bad = strings.Replace(bad, "if result == vk.Success {", "if true {", 1)
	if err := os.WriteFile(hello, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	gen := exec.Command(vkgen, "generate", "--registry", registry)
	gen.Dir = dir
	out, err := gen.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "layer/hello/hello.go:") ||
		!strings.Contains(string(out), "postCreateInstance has type func(*vk.InstanceCreateInfo, *vk.AllocationCallbacks, *vk.Instance); want func(*vk.InstanceCreateInfo, *vk.AllocationCallbacks, *vk.Instance, vk.Result)") {
		t.Errorf("a hook with a wrong signature: %v\n%s", err, out)
	}
	if err := os.WriteFile(hello, src, 0o644); err != nil {
		t.Fatal(err)
	}

	run := exec.Command("vulkaninfo", "--summary")
	run.Env = append(vktest.EnvWith(t, lib, "VK_LAYER_VKGEN_hello"), "VK_LOADER_DEBUG=layer")
	out, err = run.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "VK_LAYER_VKGEN_hello") || !strings.Contains(string(out), "llvmpipe") {
		t.Fatalf("vulkaninfo with VK_LAYER_VKGEN_hello: %v\n%s", err, out)
	}
}

// goGenerate runs `go generate ./...` in dir with only VK_REGISTRY saying
// where the registry is.
func goGenerate(t *testing.T, dir, registry string) {
	t.Helper()
	cmd := exec.Command("go", "generate", "./...")
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "VK_REGISTRY", "VKGEN_REGISTRY_PATH", "VKGEN_SHARED", "VULKAN_SDK":
		default:
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "VK_REGISTRY="+registry)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("VK_REGISTRY=%s go generate ./...: %v\n%s", registry, err, out)
	}
}
