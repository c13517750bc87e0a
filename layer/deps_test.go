package layer

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/internal/testenv"
	"github.com/vkgen/vkgen/layer/settings"
)

// TestFrameworkKnowsNoProduct: the framework (hooks, dispatch, deferred
// records, settings, lifecycle: this package, its settings and the
// generator of its files) reaches neither the Perfetto writer nor the name
// store; layers that want traces or names import them (layer/tracing,
// layer/naming). Nor does it declare a product's settings: their owners
// do (a layer's spec, layer/tracing's settings.json) and register them, so
// this binary, which links only the framework, knows none, and package
// settings writes no settings.Def.
func TestFrameworkKnowsNoProduct(t *testing.T) {
	if k := settings.Known(); len(k) != 0 {
		t.Errorf("the framework alone registers %d settings, first %s", len(k), k[0].Key)
	}
	names, _ := filepath.Glob(filepath.Join(testenv.Root(), "layer", "settings", "*.go"))
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if key := constantKey(n); key != "" {
				t.Errorf("%s declares setting %s: its owner must", name, key)
			}
			return true
		})
	}
	const mod = "github.com/vkgen/vkgen/"
	for _, pkg := range []string{"layer", "layer/settings", "layer/vk", "gen/layerstubs"} {
		cmd := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", "./"+pkg)
		cmd.Dir = testenv.Root()
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, banned := range []string{"perfetto", "objectnames", "layer/tracing", "layer/naming"} {
				if dep == mod+banned || strings.HasPrefix(dep, mod+banned+"/") {
					t.Errorf("%s depends on %s", pkg, dep)
				}
			}
		}
	}
}

// constantKey is the key of a literal's Key field set to a constant, as
// declaring a setting writes it (Def{Key: "name", ...}), or "" when n is
// none.
func constantKey(n ast.Node) string {
	kv, ok := n.(*ast.KeyValueExpr)
	if !ok {
		return ""
	}
	field, isIdent := kv.Key.(*ast.Ident)
	lit, isLit := kv.Value.(*ast.BasicLit)
	if !isIdent || field.Name != "Key" || !isLit || lit.Kind != token.STRING {
		return ""
	}
	return lit.Value
}
