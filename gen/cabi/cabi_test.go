package cabi

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/internal/testenv"
	"github.com/vkgen/vkgen/internal/testreg"
	"github.com/vkgen/vkgen/registry"
)

// platformHeaders are the platform guards whose headers may be installed,
// with the header that must exist for the test to enable the guard.
var platformHeaders = map[string]string{
	"VK_USE_PLATFORM_XLIB_KHR": "/usr/include/X11/Xlib.h",
	"VK_USE_PLATFORM_XCB_KHR":  "/usr/include/xcb/xcb.h",
}

// TestAgainstGCC compiles a C program printing sizeof, _Alignof and
// offsetof (and the bits each bitfield occupies) of every struct and union
// the headers declare, and compares every number with the computed
// layouts: the system headers with the system registry (1.3.239) and the
// pinned registry with its own headers.
func TestAgainstGCC(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not installed")
	}
	t.Run("system", func(t *testing.T) {
		if _, err := os.Stat("/usr/include/vulkan/vulkan_core.h"); err != nil {
			t.Skip("no system Vulkan headers (libvulkan-dev)")
		}
		compare(t, testreg.Load(t, "1.3.239"), "")
	})
	t.Run(testenv.PinnedRegistry, func(t *testing.T) {
		r := testreg.Load(t, testenv.PinnedRegistry)
		compare(t, r, filepath.Join(filepath.Dir(r.Path), "include"))
	})
}

func compare(t *testing.T, r *registry.Registry, include string) {
	guards := map[string]bool{"": true, "VK_ENABLE_BETA_EXTENSIONS": true}
	for g, h := range platformHeaders {
		if _, err := os.Stat(h); err == nil {
			guards[g] = true
		}
	}
	abi := New(r)
	var prog, want bytes.Buffer
	prog.WriteString("#include <stdio.h>\n#include <stddef.h>\n#include <string.h>\n")
	for g := range guards {
		if g != "" {
			fmt.Fprintf(&prog, "#define %s\n", g)
		}
	}
	prog.WriteString(`#include <vulkan/vulkan.h>
#define S(T) printf(#T " %zu %zu\n", sizeof(T), _Alignof(T));
#define O(T, m) printf(#T "." #m " %zu\n", offsetof(T, m));
#define B(T, m) { T v; memset(&v, 0, sizeof v); v.m = ~0ull; bits(#T "." #m, (const unsigned char *)&v, sizeof v); }
static void bits(const char *name, const unsigned char *p, size_t n) {
	long first = -1, count = 0;
	for (size_t i = 0; i < n * 8; i++)
		if (p[i / 8] >> (i % 8) & 1) { if (first < 0) first = i; count++; }
	printf("%s bits %ld %ld\n", name, first, count);
}
int main(void) {
`)
	compared := 0
	for _, s := range r.Structs {
		if len(s.RequiredBy) == 0 || !guards[s.Protect] {
			continue
		}
		l, err := abi.Struct(s.Name)
		if err != nil {
			t.Errorf("%s: %v", s.Name, err)
			continue
		}
		compared++
		fmt.Fprintf(&prog, "S(%s)\n", s.Name)
		fmt.Fprintf(&want, "%s %d %d\n", s.Name, l.Size, l.Align)
		for _, m := range l.Members {
			if m.BitWidth > 0 {
				fmt.Fprintf(&prog, "B(%s, %s)\n", s.Name, m.Name)
				fmt.Fprintf(&want, "%s.%s bits %d %d\n", s.Name, m.Name, m.Offset*8+m.Bit, m.BitWidth)
			} else {
				fmt.Fprintf(&prog, "O(%s, %s)\n", s.Name, m.Name)
				fmt.Fprintf(&want, "%s.%s %d\n", s.Name, m.Name, m.Offset)
			}
		}
	}
	prog.WriteString("return 0;\n}\n")
	got := runC(t, prog.Bytes(), include)
	gotLines := strings.Split(strings.TrimSpace(string(got)), "\n")
	wantLines := strings.Split(strings.TrimSpace(want.String()), "\n")
	if len(gotLines) != len(wantLines) {
		t.Fatalf("program printed %d lines, want %d", len(gotLines), len(wantLines))
	}
	bad := 0
	for i := range gotLines {
		if gotLines[i] != wantLines[i] {
			if bad++; bad <= 20 {
				t.Errorf("gcc: %s\ncabi: %s", gotLines[i], wantLines[i])
			}
		}
	}
	if compared < 400 {
		t.Errorf("only %d structs compared", compared)
	}
	t.Logf("%d structs and unions, %d numbers compared with gcc (guards %v)", compared, len(wantLines), keys(guards))
}

func runC(t *testing.T, src []byte, include string) []byte {
	dir := t.TempDir()
	c, exe := filepath.Join(dir, "layout.c"), filepath.Join(dir, "layout")
	if err := os.WriteFile(c, src, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-std=c11", "-w", "-o", exe, c}
	if include != "" {
		args = append(args, "-I", include)
	}
	if out, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
		sc := bufio.NewScanner(bytes.NewReader(out))
		for n := 0; sc.Scan() && n < 20; n++ {
			t.Log(sc.Text())
		}
		t.Fatalf("gcc: %v", err)
	}
	out, err := exec.Command(exe).Output()
	if err != nil {
		t.Fatalf("%s: %v", exe, err)
	}
	return out
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		if k != "" {
			out = append(out, k)
		}
	}
	return out
}
