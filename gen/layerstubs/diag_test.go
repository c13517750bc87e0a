package layerstubs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/internal/testenv"
	"github.com/vkgen/vkgen/internal/testreg"
)

// TestEveryMistakeAtOnce: one generation reports every hook mistake of a
// package, each at file:line:col, with the hook or command it nearly names;
// names far from any hook are left alone.
func TestEveryMistakeAtOnce(t *testing.T) {
	r := testreg.Load(t, testenv.PinnedRegistry)
	src := `
func PreCreateBuffer(vk.Device, *vk.BufferCreateInfo, *vk.AllocationCallbacks, *vk.Buffer) {}
func precreateBuffer(vk.Device, *vk.BufferCreateInfo, *vk.AllocationCallbacks, *vk.Buffer) {}
func preCreateBufer(vk.Device) {}
func prCreateBuffer() {}
func preCreateImage(uint32) {}
type hooks struct{}
func (hooks) postDestroyBuffer(vk.Device, vk.Buffer, *vk.AllocationCallbacks) {}
func prepare() {}
func countBuffers() { next.CreateBufer(0, nil, nil, nil) }
`
	_, err := gen(t, r, spec, src)
	if err == nil {
		t.Fatal("accepted")
	}
	want := []string{
		"x.go:13:6: PreCreateBuffer is not a hook, but close to one; did you mean preCreateBuffer?",
		"x.go:14:6: precreateBuffer is not a hook, but close to one; did you mean preCreateBuffer?",
		"x.go:15:6: preCreateBufer: no Vulkan command vkCreateBufer; did you mean vkCreateBuffer?",
		"x.go:16:6: prCreateBuffer is not a hook, but close to one; did you mean preCreateBuffer?",
		"x.go:17:6: preCreateImage has type func(uint32); want",
		"x.go:19:14: method postDestroyBuffer is named as a hook; hooks are package-level functions",
		"x.go:21:28: next.CreateBufer: no Vulkan command vkCreateBufer; did you mean vkCreateBuffer?",
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != len(want) {
		t.Errorf("%d mistakes, want %d:\n%s", len(lines), len(want), err)
	}
	for i, w := range want {
		if i >= len(lines) || !strings.HasSuffix(filepath.ToSlash(lines[i]), w) && !strings.Contains(lines[i], w) {
			t.Errorf("mistake %d: want %q in\n%s", i, w, err)
		}
	}
	if strings.Contains(err.Error(), "layerstubs") || strings.Contains(err.Error(), "prepare") {
		t.Errorf("names an internal package or a function far from any hook:\n%s", err)
	}
}

// TestSpecPositions: spec mistakes are at their line:col in the spec file,
// all of them, without naming an internal package.
func TestSpecPositions(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, SpecFile)
	write := func(text string) {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(`{
  "name": "layer",
  "symbol": "T-1",
  "description": "d",
  "instance_extension": []
}`)
	_, err := LoadSpec(p)
	for _, w := range []string{
		p + `:2:11: name "layer" is not a VK_LAYER_* identifier`,
		p + `:3:13: symbol "T-1" must be a lower-case C identifier`,
		p + `:5:3: unknown field "instance_extension"; did you mean instance_extensions?`,
	} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("want %q in\n%v", w, err)
		}
	}
	write("{\n  \"name\": \"VK_LAYER_T_t\",\n  \"symbol\": 7\n}")
	if _, err := LoadSpec(p); err == nil || !strings.Contains(err.Error(), p+":3:13: symbol: want a JSON string, not number") {
		t.Errorf("a number for a string: %v", err)
	}
	write("{\n  \"name\": \"VK_LAYER_T_t\",\n  \"symbol\" \"t\"\n}")
	if _, err := LoadSpec(p); err == nil || !strings.Contains(err.Error(), p+":3:12: invalid JSON") {
		t.Errorf("broken JSON: %v", err)
	}

	r := testreg.Load(t, testenv.PinnedRegistry)
	write(`{"name": "VK_LAYER_T_t", "symbol": "t", "description": "d",
  "instance_extensions": [{"name": "VK_KHR_maintenance5", "spec_version": 1}],
  "device_extensions": [{"name": "VK_EXT_debug_utils", "spec_version": 2}, {"name": "VK_KHR_maintenance55", "spec_version": 1}]}`)
	s, err := LoadSpec(p)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = Generate(r, "fw", []Layer{{Dir: "x", Spec: s, Impl: &Impl{}}}, Options{})
	for _, w := range []string{
		p + ":2:36: VK_KHR_maintenance5 is a device extension, listed in instance_extensions",
		p + ":3:34: VK_EXT_debug_utils is an instance extension, listed in device_extensions",
		p + ":3:85: unknown extension VK_KHR_maintenance55; did you mean VK_KHR_maintenance5?",
	} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("want %q in\n%v", w, err)
		}
	}
	if err != nil && strings.Contains(err.Error(), "layerstubs") {
		t.Errorf("names an internal package:\n%s", err)
	}
}

// TestOlderRegistryLeavesOut: a hook of a command the registry lacks is an
// error, unless the registry is older than the pinned one: then it is left
// out with a warning at its position.
func TestOlderRegistryLeavesOut(t *testing.T) {
	r := testreg.Load(t, "1.2.131")
	src := "func postCreateVideoSessionKHR(vk.Device, *vk.VideoSessionCreateInfoKHR, *vk.AllocationCallbacks, *vk.VideoSessionKHR, vk.Result) {}\n" +
		"func preCreateBuffer(vk.Device, *vk.BufferCreateInfo, *vk.AllocationCallbacks, *vk.Buffer) {}\n"
	if _, err := gen(t, r, spec, src); err == nil || !strings.Contains(err.Error(), "x.go:12:6: postCreateVideoSessionKHR: no Vulkan command vkCreateVideoSessionKHR") {
		t.Errorf("strict: %v", err)
	}
	s, impl, _ := layerDir(t, spec, src)
	files, warns, err := Generate(r, "fw", []Layer{{Dir: "x", Spec: s, Impl: impl}}, Options{Older: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "x.go:12:6: left out (the registry is older than the pinned one): postCreateVideoSessionKHR: no Vulkan command vkCreateVideoSessionKHR") {
		t.Errorf("warnings %q", warns)
	}
	for _, f := range files {
		if strings.Contains(string(f.Data), "VideoSession") {
			t.Errorf("%s mentions the left-out hook", f.Name)
		}
	}
}

// TestHooksEveryForm: vkgen layer hooks prints every form of a command's
// hooks: pre and its editing form, post with and without *layer.Call,
// the deferred before and after, and the next-layer call.
func TestHooksEveryForm(t *testing.T) {
	r := testreg.Load(t, testenv.PinnedRegistry)
	s, impl, dir := layerDir(t, spec, "")
	out, _, err := Hooks(r, dir, s, impl, []string{"vkCreateBuffer"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	params := "device vk.Device, pCreateInfo *vk.BufferCreateInfo, pAllocator *vk.AllocationCallbacks, pBuffer *vk.Buffer"
	contains(t, "layer hooks", string(out),
		"func preCreateBuffer("+params+")",
		"func preCreateBuffer(c *layer.Call, device *vk.Device, pCreateInfo **vk.BufferCreateInfo, pAllocator **vk.AllocationCallbacks, pBuffer **vk.Buffer) vk.Result",
		"func postCreateBuffer("+params+", result vk.Result)",
		"func postCreateBuffer(c *layer.Call, "+params+", result vk.Result)",
		"func beforeCreateBuffer("+params+")",
		"func afterCreateBuffer("+params+", result vk.Result)",
		"//vkgen:query",
		"next.CreateBuffer("+params+") vk.Result")
}

func TestSpecDescriptionASCII(t *testing.T) {
	_, err := ParseSpec([]byte("{\"name\": \"VK_LAYER_T_t\", \"symbol\": \"t\",\n \"description\": \"caf\u00e9\"}"))
	if err == nil || !strings.Contains(err.Error(), "vkgen-layer.json:2:17: description") || strings.Contains(err.Error(), "layerstubs") {
		t.Errorf("a non-ASCII description: %v", err)
	}
}
