package elfsym_test

import (
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/internal/elfsym"
)

// build compiles testdata/prog.c with flags, skipping without gcc.
func build(t *testing.T, flags ...string) string {
	t.Helper()
	cc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("no gcc")
	}
	out := filepath.Join(t.TempDir(), "prog")
	args := append([]string{"-O1", "-Wl,--build-id", "-o", out, "testdata/prog.c"}, flags...)
	if b, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, b)
	}
	return out
}

// symbolAddr is the ELF address of a function, from debug/elf's own table.
func symbolAddr(t *testing.T, path, name string) uint64 {
	t.Helper()
	ef, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	syms, _ := ef.Symbols()
	for _, s := range syms {
		if s.Name == name {
			return s.Value
		}
	}
	t.Fatalf("%s: no symbol %s", path, name)
	return 0
}

// Functions (static ones too) and their lines come back for addresses
// inside them; a wrong build id is refused; stripped files still name the
// exported functions (.dynsym) but give no lines.
func TestFuncAndLine(t *testing.T) {
	prog := build(t, "-g")
	f, err := elfsym.Open(prog, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if len(f.BuildID) == 0 {
		t.Fatal("no build id read")
	}
	for _, c := range []struct {
		fn   string
		line int
	}{{"helper_static", 5}, {"exported_function", 9}} {
		a := symbolAddr(t, prog, c.fn)
		got, ok := f.Func(a + 1)
		if !ok || got != c.fn {
			t.Errorf("Func(%s+1) = %q, %v", c.fn, got, ok)
		}
		// An address inside the function is on one of its lines.
		file, line, ok := f.Line(a + 4)
		if !ok || !strings.HasSuffix(file, "prog.c") || line < c.line-1 || line > c.line+1 {
			t.Errorf("Line(%s) = %s:%d %v, want prog.c:%d±1", c.fn, file, line, ok, c.line)
		}
	}
	if _, ok := f.Func(1); ok {
		t.Error("Func(1) named something")
	}
	if _, err := elfsym.Open(prog, []byte{1, 2, 3}); !errors.Is(err, elfsym.ErrBuildID) {
		t.Errorf("Open with another build id: %v", err)
	}

	stripped := build(t, "-s", "-rdynamic")
	g, err := elfsym.Open(stripped, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if _, _, ok := g.Line(0x1000); ok {
		t.Error("a stripped file gave a line")
	}
}

// C++ names come back demangled, without their parameters.
func TestDemangled(t *testing.T) {
	cxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("no g++")
	}
	prog := filepath.Join(t.TempDir(), "loader")
	if b, err := exec.Command(cxx, "-O1", "-g", "-o", prog, "testdata/loader.cc").CombinedOutput(); err != nil {
		t.Fatalf("g++: %v\n%s", err, b)
	}
	f, err := elfsym.Open(prog, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got, ok := f.Func(symbolAddr(t, prog, "_ZN3app13TextureLoader4loadEi") + 1); !ok || got != "app::TextureLoader::load" {
		t.Errorf("Func = %q, %v; want app::TextureLoader::load", got, ok)
	}
}

// A stripped program's separate debug file, found by its build id under a
// debug root, gives its functions and lines.
func TestOpenDebug(t *testing.T) {
	prog := build(t, "-g")
	objcopy, err := exec.LookPath("objcopy")
	if err != nil {
		t.Skip("no objcopy")
	}
	f, err := elfsym.Open(prog, nil)
	if err != nil {
		t.Fatal(err)
	}
	id := f.BuildID
	f.Close()
	h := fmt.Sprintf("%x", id)
	root := t.TempDir()
	debug := filepath.Join(root, ".build-id", h[:2], h[2:]+".debug")
	if err := os.MkdirAll(filepath.Dir(debug), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"--only-keep-debug", prog, debug}, {"--strip-all", prog}} {
		if b, err := exec.Command(objcopy, args...).CombinedOutput(); err != nil {
			t.Fatalf("objcopy %v: %v\n%s", args, err, b)
		}
	}
	a := symbolAddr(t, debug, "helper_static")
	stripped, err := elfsym.OpenDebug(prog, id, t.TempDir()) // no debug file there
	if err != nil {
		t.Fatal(err)
	}
	if name, ok := stripped.Func(a + 1); ok {
		t.Errorf("the stripped program named %q", name)
	}
	stripped.Close()
	g, err := elfsym.OpenDebug(prog, id, root)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if name, ok := g.Func(a + 1); !ok || name != "helper_static" {
		t.Errorf("Func from the debug file = %q, %v", name, ok)
	}
	if file, _, ok := g.Line(a + 4); !ok || !strings.HasSuffix(file, "prog.c") {
		t.Errorf("Line from the debug file = %q, %v", file, ok)
	}
}
