package vk

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/internal/testreg"
)

// layout is one entry of the generated table in layouts.gen_test.go.
type layout struct {
	c           string // the C name
	typ         reflect.Type
	size, align int
	fields      []field // a union's is its raw storage
}

// field is a Go field: the member it views ("" for a bitfield storage
// unit or a union's storage), its C offset and size.
type field struct {
	goName, member string
	offset, size   int
}

// TestLayouts checks every view against its C layout from gen/cabi: size,
// alignment, and the offset and size of every field (the views have no
// other).
func TestLayouts(t *testing.T) {
	if len(layouts) < 1000 {
		t.Fatalf("only %d layouts", len(layouts))
	}
	for _, l := range layouts {
		if got := int(l.typ.Size()); got != l.size {
			t.Errorf("%s: size %d, C %d", l.c, got, l.size)
		}
		if got := l.typ.Align(); got != l.align {
			t.Errorf("%s: alignment %d, C %d", l.c, got, l.align)
		}
		if l.typ.Kind() != reflect.Struct || l.typ.NumField() != len(l.fields) {
			t.Errorf("%s: %d Go fields, want %d", l.c, l.typ.NumField(), len(l.fields))
			continue
		}
		for i, f := range l.fields {
			if sf := l.typ.Field(i); sf.Name != f.goName || int(sf.Offset) != f.offset || int(sf.Type.Size()) != f.size {
				t.Errorf("%s: field %d is %s at %d (%d bytes), want %s at %d (%d bytes)",
					l.c, i, sf.Name, sf.Offset, sf.Type.Size(), f.goName, f.offset, f.size)
			}
		}
	}
}

// TestSystemHeaders compiles a program printing sizeof, _Alignof and the
// offsetof of every member of every struct the system headers declare
// (with the system registry, 1.3.239, saying which) and compares them with
// the Go views' unsafe sizes and offsets.
func TestSystemHeaders(t *testing.T) {
	if _, err := os.Stat("/usr/include/vulkan/vulkan_core.h"); err != nil {
		t.Skip("no system Vulkan headers (libvulkan-dev)")
	}
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not installed")
	}
	sys := testreg.Load(t, "1.3.239")
	var prog, want bytes.Buffer
	prog.WriteString("#include <stdio.h>\n#include <stddef.h>\n#include <vulkan/vulkan.h>\nint main(void) {\n")
	compared, changed := 0, 0
	for _, l := range layouts {
		s := sys.Struct(l.c)
		if s == nil || len(s.RequiredBy) == 0 || s.Protect != "" {
			continue
		}
		var members []string
		for _, m := range s.Members {
			members = append(members, m.Name)
		}
		var viewed []field
		for _, f := range l.fields {
			if f.member != "" {
				viewed = append(viewed, f)
			}
		}
		if !slices.IsSortedFunc(viewed, func(a, b field) int { return a.offset - b.offset }) ||
			!sameMembers(viewed, members) {
			changed++
			continue
		}
		compared++
		fmt.Fprintf(&prog, "printf(\"%s %%zu %%zu\\n\", sizeof(%s), _Alignof(%s));\n", l.c, l.c, l.c)
		fmt.Fprintf(&want, "%s %d %d\n", l.c, l.typ.Size(), l.typ.Align())
		for _, f := range viewed {
			sf, _ := l.typ.FieldByName(f.goName)
			fmt.Fprintf(&prog, "printf(\"%s.%s %%zu\\n\", offsetof(%s, %s));\n", l.c, f.member, l.c, f.member)
			fmt.Fprintf(&want, "%s.%s %d\n", l.c, f.member, sf.Offset)
		}
	}
	prog.WriteString("return 0;\n}\n")
	dir := t.TempDir()
	src, exe := filepath.Join(dir, "views.c"), filepath.Join(dir, "views")
	if err := os.WriteFile(src, prog.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("gcc", "-std=c11", "-w", "-o", exe, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%.2000s", err, out)
	}
	got, err := exec.Command(exe).Output()
	if err != nil {
		t.Fatal(err)
	}
	gl, wl := strings.Split(string(got), "\n"), strings.Split(want.String(), "\n")
	if len(gl) != len(wl) {
		t.Fatalf("%d lines printed, want %d", len(gl), len(wl))
	}
	bad := 0
	for i := range gl {
		if gl[i] != wl[i] {
			if bad++; bad <= 20 {
				t.Errorf("C: %s\nGo: %s", gl[i], wl[i])
			}
		}
	}
	if compared < 700 {
		t.Errorf("only %d structs compared", compared)
	}
	t.Logf("%d structs compared with the system headers (%d numbers); %d changed members since 1.3.239", compared, len(wl)-1, changed)
}

// sameMembers reports whether the viewed fields are exactly the members
// (bitfields aside) of the system registry's struct.
func sameMembers(viewed []field, members []string) bool {
	i := 0
	for _, m := range members {
		if i < len(viewed) && viewed[i].member == m {
			i++
		}
	}
	return i == len(viewed)
}
