package install

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/internal/testenv"
	"github.com/vkgen/vkgen/internal/vktest"
)

// TestDebianPackage builds the package with scripts/build-deb.sh, installs
// it with apt-get, uses it with no layer environment at all, and removes it:
// nothing it installed may be left. It changes the system, so it runs only
// as root with VKGEN_DEB_TEST=1, in a step of its own (scripts/test.sh),
// never beside other tests that load layers.
func TestDebianPackage(t *testing.T) {
	if os.Getenv("VKGEN_DEB_TEST") != "1" {
		t.Skip("installs into the system: set VKGEN_DEB_TEST=1 as root (scripts/test.sh runs it in its own step)")
	}
	if os.Geteuid() != 0 {
		t.Skip("VKGEN_DEB_TEST=1 needs root (apt-get install)")
	}
	demo := vktest.Program(t, "demo/demo.c")
	if out, err := exec.Command("dpkg-query", "-W", "vkgen").CombinedOutput(); err == nil {
		t.Fatalf("a vkgen package is already installed (%s): remove it first", strings.TrimSpace(string(out)))
	}
	build := exec.Command(filepath.Join(testenv.Root(), "scripts", "build-deb.sh"), t.TempDir())
	build.Env = vktest.GoEnv() // the package of the test binary's architecture (arm64: scripts/test-arm64.sh)
	out, err := build.Output()
	if err != nil {
		t.Fatalf("build-deb.sh: %v\n%s", err, out)
	}
	deb := strings.TrimSpace(string(out))
	t.Logf("built %s", filepath.Base(deb))
	install := exec.Command("apt-get", "install", "-y", "-q", "--no-install-recommends", deb)
	install.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	if b, err := install.CombinedOutput(); err != nil {
		t.Fatalf("apt-get install %s: %v\n%s", deb, err, b)
	}
	removed := false
	t.Cleanup(func() {
		if !removed {
			exec.Command("dpkg", "--purge", "vkgen").Run()
		}
	})
	list, err := exec.Command("dpkg-query", "-L", "vkgen").Output()
	if err != nil {
		t.Fatal(err)
	}
	files := strings.Fields(string(list))

	env := []string{"VK_ICD_FILENAMES=" + vktest.LavapipeICD, "XDG_RUNTIME_DIR=" + t.TempDir(), "NODEVICE_SELECT=1",
		"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
	// vulkaninfo is the machine's: it cannot load the driver of a foreign
	// architecture's package (arm64 on x86-64); the demo below still finds
	// the installed implicit layer.
	if native, _ := exec.Command("dpkg", "--print-architecture").Output(); strings.TrimSpace(string(native)) == runtime.GOARCH {
		summary, _ := runIn(t, env, "vulkaninfo", "--summary")
		for _, name := range []string{"VK_LAYER_VKGEN_DebugMarker", "VK_LAYER_VKGEN_DeviceMemoryReport"} {
			if !strings.Contains(summary, name) {
				t.Errorf("vulkaninfo with the package installed does not list %s:\n%s", name, summary)
			}
		}
	}
	trace := filepath.Join(t.TempDir(), "demo.pftrace")
	runIn(t, append(env, "VKGEN_MEMREPORT=1", "VK_VKGEN_TRACE_FILE="+trace), demo)
	if len(traceNames(t, trace)) == 0 {
		t.Error("the demo with VKGEN_MEMREPORT=1 recorded no object name through the installed layer")
	}
	version, _ := runIn(t, env, "/usr/bin/vkgen", "--version")
	if !strings.Contains(version, "0.0~") {
		t.Errorf("vkgen --version: %q", version)
	}
	for _, f := range []string{"/usr/share/bash-completion/completions/vkgen", "/usr/share/zsh/vendor-completions/_vkgen", "/usr/share/fish/vendor_completions.d/vkgen.fish"} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("completion: %v", err)
		}
	}

	remove := exec.Command("apt-get", "remove", "-y", "-q", "vkgen")
	remove.Env = install.Env
	if b, err := remove.CombinedOutput(); err != nil {
		t.Fatalf("apt-get remove: %v\n%s", err, b)
	}
	removed = true
	for _, f := range files {
		if st, err := os.Stat(f); err == nil && (!st.IsDir() || strings.Contains(f, "vkgen")) {
			t.Errorf("%s is left after apt-get remove", f)
		}
	}
}
