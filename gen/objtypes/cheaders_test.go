package objtypes_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/gen/objtypes"
	"github.com/vkgen/vkgen/internal/testenv"
	"github.com/vkgen/vkgen/registry"
)

// TestAgainstCHeaders proves the derived tables of every shared registry
// against what gcc sees in that registry's own headers: a generated C
// program prints every VkObjectType and VkDebugReportObjectTypeEXT
// enumerant the model knows (so the compiler checks each name exists) and
// names each handle type; its output must equal the model, and every
// enumerant declared in the header must be in the model.
func TestAgainstCHeaders(t *testing.T) {
	cc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("gcc not installed")
	}
	for _, v := range testenv.RegistryVersions(t) {
		t.Run(v, func(t *testing.T) {
			path := testenv.Registry(t, v)
			r, err := registry.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			tb, err := objtypes.Derive(r)
			if err != nil {
				t.Fatal(err)
			}
			include := filepath.Join(filepath.Dir(path), "include")
			header := filepath.Join(include, "vulkan", "vulkan_core.h")
			if _, err := os.Stat(header); err != nil {
				header = filepath.Join(include, "vulkan", "vulkan.h")
			}
			src, err := os.ReadFile(header)
			if err != nil {
				t.Fatal(err)
			}

			want := map[string]int64{} // every enumerant the model knows, aliases included
			var handles []objtypes.ObjectType
			for _, o := range tb.ObjectTypes {
				for _, n := range append([]string{o.Name}, o.Aliases...) {
					want[n] = o.Value
				}
				if o.Handle != "" {
					handles = append(handles, o)
				}
			}
			for _, d := range tb.DebugReport {
				for _, n := range append([]string{d.Name}, d.Aliases...) {
					want[n] = d.Value
				}
			}
			for _, enum := range []struct{ name, count string }{
				{objtypes.ObjectTypeEnum, strconv.Itoa(len(tb.ObjectTypes))},
				{objtypes.DebugReportEnum, strconv.Itoa(len(tb.DebugReport))},
			} {
				declared := headerEnumerants(string(src), enum.name)
				if declared == nil && enum.count == "0" {
					t.Logf("%s: neither registry nor header defines %s", v, enum.name)
					continue
				}
				for _, n := range declared {
					if _, ok := want[n]; !ok {
						t.Errorf("%s declares %s but the model lacks it", filepath.Base(header), n)
					}
				}
			}
			if len(want) == 0 {
				return
			}
			got := runProgram(t, cc, include, want, handles)
			for n, val := range want {
				if g, ok := got[n]; !ok || g != val {
					t.Errorf("%s: model %d, gcc %d (printed %v)", n, val, g, ok)
				}
			}
			t.Logf("%s: %d object types, %d debug-report types, %d handles agree with gcc",
				v, len(tb.ObjectTypes), len(tb.DebugReport), len(handles))
		})
	}
}

// headerEnumerants lists the enumerants of "typedef enum NAME {...}" in a C
// header, without the synthetic range and MAX_ENUM values; nil when absent.
func headerEnumerants(src, name string) []string {
	start := strings.Index(src, "typedef enum "+name+" {")
	if start < 0 {
		return nil
	}
	end := strings.Index(src[start:], "} "+name+";")
	if end < 0 {
		return nil
	}
	var out []string
	for _, m := range regexp.MustCompile(`(?m)^\s*(VK_[A-Z0-9_]+)\s*=`).FindAllStringSubmatch(src[start:start+end], -1) {
		n := m[1]
		if regexp.MustCompile(`_(BEGIN_RANGE|END_RANGE|RANGE_SIZE|MAX_ENUM)(_[A-Z]+)?$`).MatchString(n) {
			continue
		}
		out = append(out, n)
	}
	return out
}

func runProgram(t *testing.T, cc, include string, want map[string]int64, handles []objtypes.ObjectType) map[string]int64 {
	t.Helper()
	names := make([]string, 0, len(want))
	for n := range want {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	// Provisional values live behind VK_ENABLE_BETA_EXTENSIONS; other
	// platform handles need system headers, so they are checked only when
	// their guard is defined.
	b.WriteString("#define VK_ENABLE_BETA_EXTENSIONS 1\n#include <stdio.h>\n#include <vulkan/vulkan.h>\nint main(void) {\n")
	for _, h := range handles {
		if h.Protect != "" {
			fmt.Fprintf(&b, "#ifdef %s\n\t(void)sizeof(%s);\n#endif\n", h.Protect, h.Handle)
		} else {
			fmt.Fprintf(&b, "\t(void)sizeof(%s);\n", h.Handle)
		}
	}
	for _, n := range names {
		fmt.Fprintf(&b, "\tprintf(\"%%s %%lld\\n\", \"%s\", (long long)%s);\n", n, n)
	}
	b.WriteString("\treturn 0;\n}\n")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "enums.c"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "enums")
	if out, err := exec.Command(cc, "-std=c99", "-I", include, "-o", bin, filepath.Join(dir, "enums.c")).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	out, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		n, val, _ := strings.Cut(line, " ")
		x, err := strconv.ParseInt(val, 10, 64)
		if err != nil {
			t.Fatalf("program printed %q", line)
		}
		got[n] = x
	}
	return got
}
