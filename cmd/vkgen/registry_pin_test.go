package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/internal/testenv"
	"github.com/vkgen/vkgen/registry"
)

// TestPinnedRegistryOnly (flags are given every time: cobra keeps them
// between calls): in a tree with vkregistry.pin and no --registry
// or $VK_REGISTRY, vkgen uses a copy of the pinned registry or stops, saying
// how to get it, never another registry it finds (the system's 1.3.239);
// generate --repin makes another registry the pinned one.
func TestPinnedRegistryOnly(t *testing.T) {
	shared := filepath.Dir(filepath.Dir(testenv.Registry(t, testenv.PinnedRegistry)))
	other := testenv.Registry(t, "1.3.239")
	pin, err := os.ReadFile(filepath.Join(testenv.Root(), registry.PinFile))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, text := range map[string]string{registry.PinFile: string(pin), "go.mod": "module example.com/tree\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	t.Setenv("VK_REGISTRY", "")
	t.Setenv("VULKAN_SDK", "")
	t.Setenv("VKGEN_REGISTRY_PATH", t.TempDir())
	t.Cleanup(func() {
		if c, _, err := rootCmd.Find([]string{"generate"}); err == nil {
			_ = c.Flags().Set("repin", "false")
		}
	})

	_, errOut, code := vkgen(t, "generate", "--registry=", "--quiet", "--check=false", "--out", dir)
	for _, want := range []string{"no copy of the pinned registry " + testenv.PinnedRegistry, "Vulkan-Headers, tag v" + testenv.PinnedRegistry,
		"$VKGEN_REGISTRY_PATH", "--registry PATH or $VK_REGISTRY", "vkgen generate --registry PATH --repin"} {
		if code != 2 || !strings.Contains(errOut, want) {
			t.Errorf("without the pinned registry: exit %d, want 2 and a message with %q:\n%s", code, want, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "generated")); err == nil {
		t.Error("generate wrote files without the pinned registry")
	}
	// The case: a new layer in a clone without the pinned registry.
	if _, errOut, code := vkgen(t, "layer", "new", "bufcount", "--registry="); code != 2 || !strings.Contains(errOut, "no copy of the pinned registry") {
		t.Errorf("layer new without the pinned registry: exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "layer")); err == nil {
		t.Error("layer new wrote files without the pinned registry")
	}

	t.Setenv("VKGEN_REGISTRY_PATH", shared)
	if _, errOut, code := vkgen(t, "tables", "--registry="); code != 0 {
		t.Errorf("with the pinned copy in $VKGEN_REGISTRY_PATH: exit %d: %s", code, errOut)
	}

	if _, errOut, code := vkgen(t, "generate", "--registry=", "--quiet", "--check=false", "--out", dir, "--repin"); code != 2 || !strings.Contains(errOut, "--repin needs") {
		t.Errorf("--repin without a registry: exit %d: %s", code, errOut)
	}
	if _, errOut, code := vkgen(t, "generate", "--quiet", "--check=false", "--out", dir, "--registry", other, "--repin"); code != 0 {
		t.Fatalf("--repin: exit %d: %s", code, errOut)
	}
	got, err := registry.ReadPin(registry.PinFile)
	if err != nil || got.Version != "1.3.239" || !got.Matches(other) {
		t.Fatalf("after --repin: %+v, %v", got, err)
	}
	if out, errOut, code := vkgen(t, "generate", "--registry=", "--quiet", "--check", "--out", dir, "--repin=false"); code != 0 {
		t.Errorf("the re-pinned tree is not fresh with the new pin's copy from $VKGEN_REGISTRY_PATH: exit %d: %s%s", code, out, errOut)
	}
}

// TestEveryRegistryFrom11Generates: every shared registry from Vulkan 1.1 on
// generates the tree into a temporary directory; with one older than the
// pinned registry the hooks of what it lacks are left out, each named in a
// warning at its position (the video-session hooks of memreport before the
// video extensions), and the layers' files do not mention them.
func TestEveryRegistryFrom11Generates(t *testing.T) {
	if testing.Short() {
		t.Skip("generates the tree from every shared registry")
	}
	t.Chdir(testenv.Root())
	for _, v := range testenv.RegistryVersions(t) {
		if strings.HasPrefix(v, "1.0.") {
			continue
		}
		t.Run(v, func(t *testing.T) {
			out := t.TempDir()
			_, errOut, code := vkgen(t, "generate", "--registry", testenv.Registry(t, v), "--out", out, "--quiet", "--check=false")
			if code != 0 {
				t.Fatalf("exit %d:\n%s", code, errOut)
			}
			var leftOut []string
			for _, line := range strings.Split(errOut, "\n") {
				if strings.Contains(line, "left out") {
					leftOut = append(leftOut, line)
					if !strings.HasPrefix(line, "warning: layer/") || !strings.Contains(line, ".go:") && !strings.Contains(line, ".json:") {
						t.Errorf("a left-out warning without its position: %s", line)
					}
				}
			}
			video := strings.Contains(errOut, "afterCreateVideoSessionKHR: no Vulkan command vkCreateVideoSessionKHR")
			if wantVideo := v < "1.2.182"; video != wantVideo {
				t.Errorf("warning of the left-out afterCreateVideoSessionKHR: %v, want %v:\n%s", video, wantVideo, strings.Join(leftOut, "\n"))
			}
			if v == testenv.PinnedRegistry && len(leftOut) > 0 {
				t.Errorf("hooks left out with the pinned registry:\n%s", strings.Join(leftOut, "\n"))
			}
			if !video {
				return
			}
			for _, f := range readTree(t, filepath.Join(out, "layer", "memreport")) {
				if strings.Contains(string(f.Data), "CreateVideoSessionKHR") {
					t.Errorf("layer/memreport/%s mentions the left-out hook of vkCreateVideoSessionKHR", f.Name)
				}
			}
		})
	}
}
