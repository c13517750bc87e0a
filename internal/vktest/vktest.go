// Package vktest is the harness of the integration tests that run Vulkan
// programs through the real loader on lavapipe: it builds the one layer
// library (scripts/build-layers.sh) and the project's C and Go programs once
// per content of their sources, shared by every test process through a cache
// folder (cache.go), gives the environment of a run, and skips with a message
// when lavapipe, gcc or the Vulkan headers are missing (scripts/setup.sh
// installs them). It knows no layer's behaviour; the tests own that.
//
// Everything is built for the architecture of the test binary itself, so an
// arm64 test binary run under qemu-user (scripts/test-arm64.sh) builds and
// runs arm64 programs with Debian's cross compiler and arm64 lavapipe.
package vktest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/vkgen/vkgen/internal/testenv"
)

// machine is the test binary's architecture as gcc's target triplets and
// Mesa's driver manifests name it ("" for one this harness does not know).
var machine = map[string]string{"amd64": "x86_64", "arm64": "aarch64"}[runtime.GOARCH]

// LavapipeICD is the driver manifest every run uses.
var LavapipeICD = "/usr/share/vulkan/icd.d/lvp_icd." + machine + ".json"

// CC is the C compiler for the test binary's architecture: Debian's
// triplet-named gcc (x86_64-linux-gnu-gcc is gcc itself on amd64,
// aarch64-linux-gnu-gcc the cross compiler of gcc-aarch64-linux-gnu).
var CC = machine + "-linux-gnu-gcc"

// GoEnv is the environment of a go command building cgo programs and the
// layer library for the test binary's architecture.
func GoEnv() []string {
	return append(os.Environ(), "GOOS=linux", "GOARCH="+runtime.GOARCH, "CGO_ENABLED=1", "CC="+CC)
}

var (
	mu       sync.Mutex
	programs = map[string]*program{}
)

// program is one build of this test binary: the folder of the cache it
// lives in, once the first caller has found or built it.
type program struct {
	once      sync.Once
	dir, fail string
}

// Require skips t unless lavapipe, the C compiler and the Vulkan headers are
// present.
func Require(t testing.TB) {
	t.Helper()
	if machine == "" {
		t.Skipf("no lavapipe or C compiler known for GOARCH=%s", runtime.GOARCH)
	}
	if _, err := os.Stat(LavapipeICD); err != nil {
		t.Skipf("lavapipe (mesa-vulkan-drivers) not installed: %v (scripts/setup.sh installs it)", err)
	}
	if _, err := exec.LookPath(CC); err != nil {
		t.Skipf("%s not found (scripts/setup.sh installs it)", CC)
	}
	if _, err := os.Stat("/usr/include/vulkan/vulkan.h"); err != nil {
		t.Skip("Vulkan headers (libvulkan-dev) not installed (scripts/setup.sh installs them)")
	}
}

// Layers builds libVkLayer_vkgen.so and every manifest with
// scripts/build-layers.sh, once per content of its sources (see cached),
// and returns their directory, which tests must not write into. It calls
// Require first; a failed build fails every caller.
func Layers(t testing.TB) string {
	t.Helper()
	return build(t, "layers", func(in inputs) error {
		if err := in.file("scripts/build-layers.sh"); err != nil {
			return err
		}
		if err := in.file("scripts/cross.sh"); err != nil {
			return err
		}
		return in.goDeps("./layer/vklayers")
	}, func(dir string) *exec.Cmd {
		cmd := exec.Command(filepath.Join(testenv.Root(), "scripts", "build-layers.sh"), dir)
		cmd.Env = GoEnv()
		return cmd
	})
}

// Program compiles the C program src (relative to the repository root) with
// the shared testdata/vkcommon code and linked with -lvulkan -ldl and libs
// (such as "-lxcb"), once per content of its folder and vkcommon, and
// returns the executable's path. It calls Require first.
func Program(t testing.TB, src string, libs ...string) string {
	t.Helper()
	const common = "testdata/vkcommon"
	exe := strings.TrimSuffix(filepath.Base(src), ".c")
	dir := build(t, src+" "+strings.Join(libs, " "), func(in inputs) error {
		if err := in.dir(filepath.Dir(src)); err != nil {
			return err
		}
		return in.dir(common)
	}, func(dir string) *exec.Cmd {
		root := testenv.Root()
		args := []string{"-O2", "-Wall", "-Werror", "-I", filepath.Join(root, common), "-o", filepath.Join(dir, exe),
			filepath.Join(root, src), filepath.Join(root, common, "vkcommon.c"), "-lvulkan", "-ldl"}
		return exec.Command(CC, append(args, libs...)...)
	})
	return filepath.Join(dir, exe)
}

// build returns the cache folder of what cmd builds from the inputs that
// hash adds, finding or building it once per test binary (name tells the
// builds of one binary apart and is part of the key).
func build(t testing.TB, name string, hash func(inputs) error, cmd func(dir string) *exec.Cmd) string {
	t.Helper()
	Require(t)
	mu.Lock()
	p := programs[name]
	if p == nil {
		p = &program{}
		programs[name] = p
	}
	mu.Unlock()
	p.once.Do(func() {
		in, key, err := newInputs(name)
		if err == nil {
			err = hash(in)
		}
		if err != nil {
			p.fail = "build " + name + ": " + err.Error()
			return
		}
		p.dir, err = cached(key(), func(dir string) error {
			if b, err := cmd(dir).CombinedOutput(); err != nil {
				return fmt.Errorf("%v\n%s", err, b)
			}
			return nil
		})
		if err != nil {
			p.fail = "build " + name + ": " + err.Error()
		}
	})
	if p.fail != "" {
		t.Fatal(p.fail)
	}
	return p.dir
}

// GoProgram builds the Go main package pkg (a path relative to the
// repository root, such as "./testdata/vkgoapp"), once per content of the
// packages it builds from, and returns the executable's path. It calls
// Require first.
func GoProgram(t testing.TB, pkg string) string {
	t.Helper()
	exe := filepath.Base(pkg)
	dir := build(t, pkg, func(in inputs) error { return in.goDeps(pkg) }, func(dir string) *exec.Cmd {
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, exe), pkg)
		cmd.Dir = testenv.Root()
		cmd.Env = GoEnv()
		return cmd
	})
	return filepath.Join(dir, exe)
}

// MemDriverLayer is the layer of testdata/memdriver: a driver-side
// VK_EXT_device_memory_report (and opt-in emulations) over lavapipe.
const MemDriverLayer = "VK_LAYER_VKGEN_TEST_memdriver"

// MemDriver builds testdata/memdriver (libVkLayer_memdriver.so and its
// manifest), once per content of its folder, and returns their directory.
// It calls Require first.
func MemDriver(t testing.TB) string {
	t.Helper()
	const src = "testdata/memdriver"
	return build(t, src, func(in inputs) error { return in.dir(src) }, func(dir string) *exec.Cmd {
		root := filepath.Join(testenv.Root(), src)
		files, _ := filepath.Glob(filepath.Join(root, "*.c"))
		script := `set -e; cp "$2" "$1/"; out="$1/libVkLayer_memdriver.so"; shift 2; ` +
			`"$CC" -O2 -Wall -Werror -shared -fPIC -fvisibility=hidden -o "$out" "$@" -lpthread`
		args := append([]string{"-c", script, "sh", dir, filepath.Join(root, "VkLayer_memdriver.json")}, files...)
		cmd := exec.Command("sh", args...)
		cmd.Env = append(os.Environ(), "CC="+CC)
		return cmd
	})
}

// DriverEnv is Env with the memdriver layer of MemDriver found too and
// enabled after the given layers, below them, nearest lavapipe; options is
// its VKGEN_MEMDRIVER value (testdata/memdriver/README.md). The loader
// (1.3.239) stacks the layers of VK_INSTANCE_LAYERS in the order it found
// their manifests, not in the variable's order: the driver's directory is
// last in VK_ADD_LAYER_PATH, which puts it at the bottom.
func DriverEnv(t testing.TB, options string, enabled ...string) []string {
	t.Helper()
	dirs := Layers(t) + string(os.PathListSeparator) + MemDriver(t)
	env := EnvWith(t, dirs, append(slices.Clone(enabled), MemDriverLayer)...)
	return append(env, "VKGEN_MEMDRIVER="+options)
}

// Env is the environment of a run on lavapipe with the library of Layers
// found and the given layers enabled (none: found but not enabled). Only
// PATH, HOME, LANG and DISPLAY are inherited, so the caller's Vulkan
// settings cannot leak in.
func Env(t testing.TB, enabled ...string) []string {
	t.Helper()
	return EnvWith(t, Layers(t), enabled...)
}

// EnvWith is Env with the layer library and manifests of layerDir.
func EnvWith(t testing.TB, layerDir string, enabled ...string) []string {
	t.Helper()
	env := []string{
		"VK_ICD_FILENAMES=" + LavapipeICD,
		"XDG_RUNTIME_DIR=" + t.TempDir(),
		"NODEVICE_SELECT=1", // keeps Mesa's device-select layer out
		"VK_ADD_LAYER_PATH=" + layerDir,
	}
	if len(enabled) > 0 {
		env = append(env, "VK_INSTANCE_LAYERS="+strings.Join(enabled, ":"))
	}
	for _, kv := range os.Environ() {
		switch k, _, _ := strings.Cut(kv, "="); k {
		case "PATH", "HOME", "LANG", "DISPLAY":
			env = append(env, kv)
		}
	}
	return env
}

// CountLayerManifest is the "layer" object of a manifest naming
// testdata/countlayer, built as lib, name: a plain C layer that counts
// allocated bytes, wraps nothing and hands out the next layer's commands it
// does not intercept.
func CountLayerManifest(name, lib string) map[string]any {
	return map[string]any{
		"name": name, "type": "GLOBAL", "library_path": lib, "api_version": "1.3.239",
		"implementation_version": "1", "description": "vkgen tests: counts vkAllocateMemory bytes",
		"functions": map[string]string{
			"vkGetInstanceProcAddr":                  "count_GetInstanceProcAddr",
			"vkGetDeviceProcAddr":                    "count_GetDeviceProcAddr",
			"vkNegotiateLoaderLayerInterfaceVersion": "count_NegotiateLoaderLayerInterfaceVersion",
		},
	}
}

// CopyCheckout copies the repository's tracked and untracked, not ignored
// files (what a clone with the working tree's changes holds) to dir; it
// skips t when the repository is not a git checkout.
func CopyCheckout(t testing.TB, dir string) {
	t.Helper()
	root := testenv.Root()
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
