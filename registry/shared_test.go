package registry

import (
	"slices"
	"testing"

	"github.com/vkgen/vkgen/internal/testenv"
)

// loadAll loads every registry under shared/vkregistry, oldest first.
func loadAll(t *testing.T) map[string]*Registry {
	t.Helper()
	versions := testenv.RegistryVersions(t)
	slices.SortFunc(versions, compareVersions)
	out := map[string]*Registry{}
	for _, v := range versions {
		reg, err := Load(testenv.Registry(t, v))
		if err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		out[v] = reg
	}
	return out
}

func TestSharedRegistriesSummary(t *testing.T) {
	regs := loadAll(t)
	versions := testenv.RegistryVersions(t)
	slices.SortFunc(versions, compareVersions)
	for _, v := range versions {
		r := regs[v]
		t.Logf("%s: header %d api %s handles %d enums %d commands %d features %d extensions %d fp %d warnings %d",
			v, r.HeaderVersion, r.APIVersion, len(r.Handles), len(r.Enums), len(r.Commands), len(r.Features), len(r.Extensions), len(r.FuncPointers), len(r.Warnings))
		for i, w := range r.Warnings {
			if i < 8 {
				t.Logf("  %s", w)
			}
		}
	}
}
