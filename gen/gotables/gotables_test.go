package gotables

import (
	"bytes"
	"flag"
	"github.com/vkgen/vkgen/gen/genfile"
	"go/format"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/gen/objtypes"
	"github.com/vkgen/vkgen/internal/testreg"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the shared registries")

// TestGolden renders two registries twice each and compares with the golden
// files: the output must be byte-identical across runs and match review.
func TestGolden(t *testing.T) {
	for _, v := range []string{"1.3.239", "1.4.359"} {
		t.Run(v, func(t *testing.T) {
			r := testreg.Load(t, v)
			first, _, err := Generate(r)
			if err != nil {
				t.Fatal(err)
			}
			second, _, err := Generate(r)
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join("testdata", "golden", v)
			for i, f := range first {
				if !bytes.Equal(f.Data, second[i].Data) {
					t.Errorf("%s differs between two runs", f.Name)
				}
				checkSource(t, f)
				golden := filepath.Join(dir, f.Name+".golden")
				if *update {
					if err := os.MkdirAll(dir, 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(golden, f.Data, 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (run go test -update to create it)", err)
				}
				if !bytes.Equal(f.Data, want) {
					t.Errorf("%s differs from %s (review, then go test -update)", f.Name, golden)
				}
			}
		})
	}
}

func checkSource(t *testing.T, f genfile.File) {
	t.Helper()
	if !bytes.HasPrefix(f.Data, []byte("// "+genfile.Header+"\n")) {
		t.Errorf("%s: missing generated-code header", f.Name)
	}
	formatted, err := format.Source(f.Data)
	if err != nil {
		t.Errorf("%s: %v", f.Name, err)
	} else if !bytes.Equal(formatted, f.Data) {
		t.Errorf("%s: not gofmt'd", f.Name)
	}
}

func TestRenderErrors(t *testing.T) {
	if _, err := Render(&objtypes.Tables{}, "test"); err == nil || !strings.Contains(err.Error(), "VkObjectType") {
		t.Errorf("no VkObjectType: err = %v", err)
	}
	clash := &objtypes.Tables{ObjectTypes: []objtypes.ObjectType{
		{Name: "VK_OBJECT_TYPE_A_B", Value: 1},
		{Name: "VK_OBJECT_TYPE_A__B", Value: 2},
	}}
	if _, err := Render(clash, "test"); err == nil || !strings.Contains(err.Error(), "ObjectTypeAB") {
		t.Errorf("name clash: err = %v", err)
	}
	if _, _, err := Generate(nil); err == nil {
		t.Error("nil registry accepted")
	}
}

// TestRenderMinimal renders a two-value table: valid Go with the guard and
// no debug-report constants when the registry has no VK_EXT_debug_report.
func TestRenderMinimal(t *testing.T) {
	files, err := Render(&objtypes.Tables{HeaderVersion: 1, ObjectTypes: []objtypes.ObjectType{
		{Name: "VK_OBJECT_TYPE_UNKNOWN", Value: 0},
		{Name: "VK_OBJECT_TYPE_INSTANCE", Value: 1, Handle: "VkInstance", Dispatchable: true},
	}}, "test")
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	for _, f := range files {
		checkSource(t, f)
		all.Write(f.Data)
	}
	for _, want := range []string{"ObjectTypeInstance ObjectType = 1", "_ = x[ObjectTypeInstance-1]", `{"VK_OBJECT_TYPE_INSTANCE", "VkInstance", true, ObjectTypeUnknown}`} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
}
