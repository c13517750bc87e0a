// Package testreg loads the shared registries for the tests of packages that
// consume the registry model (package registry's own tests cannot import it:
// that would be an import cycle).
package testreg

import (
	"testing"

	"github.com/vkgen/vkgen/internal/testenv"
	"github.com/vkgen/vkgen/registry"
)

// Load parses shared/vkregistry/<version>/vk.xml, or skips t when the shared
// data is absent.
func Load(t testing.TB, version string) *registry.Registry {
	t.Helper()
	r, err := registry.Load(testenv.Registry(t, version))
	if err != nil {
		t.Fatal(err)
	}
	return r
}
