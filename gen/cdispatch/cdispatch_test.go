package cdispatch

import (
	"strings"
	"testing"

	"github.com/vkgen/vkgen/internal/testenv"
	"github.com/vkgen/vkgen/internal/testreg"
	"github.com/vkgen/vkgen/registry"
)

func TestBuild(t *testing.T) {
	tab, err := Build(testreg.Load(t, testenv.PinnedRegistry))
	if err != nil {
		t.Fatal(err)
	}
	for name, level := range map[string]registry.CommandLevel{
		"vkCreateInstance":                  registry.LevelGlobal,
		"vkCreateDevice":                    registry.LevelInstance,
		"vkGetPhysicalDeviceProperties2KHR": registry.LevelInstance, // alias gets its own slot
		"vkCreateBuffer":                    registry.LevelDevice,
		"vkSetDebugUtilsObjectNameEXT":      registry.LevelDevice,
		"vkCmdPushDescriptorSetKHR":         registry.LevelDevice,
	} {
		n, ok := tab.Lookup(name)
		if !ok || n.Level != level {
			t.Errorf("%s: %+v %v, want level %d", name, n, ok, level)
		}
	}
	if _, ok := tab.Lookup("vkNotACommand"); ok {
		t.Error("unknown name found")
	}
	for i := 1; i < len(tab.Names); i++ {
		if strings.Compare(tab.Names[i-1].Name, tab.Names[i].Name) >= 0 {
			t.Fatalf("names not strictly sorted at %d: %s, %s", i, tab.Names[i-1].Name, tab.Names[i].Name)
		}
	}
	for _, n := range tab.Names {
		list := map[registry.CommandLevel][]string{registry.LevelInstance: tab.Instance, registry.LevelDevice: tab.Device}[n.Level]
		if list != nil && list[n.Slot] != n.Name {
			t.Errorf("%s: slot %d holds %s", n.Name, n.Slot, list[n.Slot])
		}
	}
}

func TestNilRegistry(t *testing.T) {
	if _, err := Build(nil); err == nil {
		t.Error("Build(nil) succeeded")
	}
}
