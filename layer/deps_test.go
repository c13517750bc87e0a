package layer

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/internal/testenv"
)

// TestFrameworkKnowsNoProduct: the framework (hooks, dispatch, deferred
// records, settings, lifecycle: this package, its settings and the
// generator of its files) reaches neither the Perfetto writer nor the name
// store; layers that want traces or names import them (layer/tracing,
// layer/naming).
func TestFrameworkKnowsNoProduct(t *testing.T) {
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
