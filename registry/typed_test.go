package registry

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryDeclTyped checks every shared registry: each parameter, member
// and funcpointer parameter has a base type the registry defines, every
// array dimension has a size, every sType value and structextends target
// exists (sType values of the structs some feature or extension requires).
func TestEveryDeclTyped(t *testing.T) {
	for _, l := range loadAll(t) {
		t.Run(l.version, func(t *testing.T) {
			r := l.reg
			n := 0
			check := func(owner string, d Decl) {
				n++
				if ty := r.Type(d.Type); ty == nil || ty.Kind == KindUnknown {
					t.Errorf("%s.%s: base type %s untyped", owner, d.Name, d.Type)
				}
				if len(d.Const) != d.Pointers+1 {
					t.Errorf("%s.%s: %d const levels for %d pointers", owner, d.Name, len(d.Const), d.Pointers)
				}
				for _, a := range d.Array {
					if a.Size <= 0 {
						t.Errorf("%s.%s: array dimension %+v unresolved", owner, d.Name, a)
					}
				}
			}
			for _, c := range r.Commands {
				for _, p := range c.Params {
					check(c.Name, p)
				}
			}
			for _, fp := range r.FuncPointers {
				for _, p := range fp.Params {
					check(fp.Name, p)
				}
			}
			stypes := r.Enum("VkStructureType")
			for _, s := range r.Structs {
				if len(s.Members) == 0 {
					t.Errorf("%s has no members", s.Name)
				}
				for _, m := range s.Members {
					check(s.Name, m)
				}
				if s.SType != "" && len(s.RequiredBy) > 0 && stypes.ValueByName[s.SType] == nil {
					t.Errorf("%s: sType %s is not a VkStructureType value", s.Name, s.SType)
				}
				for _, x := range s.Extends {
					if r.Struct(x) == nil {
						t.Errorf("%s extends unknown %s", s.Name, x)
					}
				}
			}
			if n < 1000 {
				t.Errorf("only %d declarations checked", n)
			}
		})
	}
}

// goldenNames are the commands, structs, funcpointers and types whose
// model TestGolden records per registry.
var goldenNames = []string{
	"vkCreateInstance", "vkGetInstanceProcAddr", "vkAllocateCommandBuffers", "vkCmdSetBlendConstants",
	"vkCmdPipelineBarrier", "vkCreateGraphicsPipelines", "vkQueueSubmit", "vkMapMemory",
	"vkUpdateDescriptorSets", "vkCmdBuildAccelerationStructuresKHR",
	"VkApplicationInfo", "VkInstanceCreateInfo", "VkDeviceCreateInfo", "VkBufferCreateInfo",
	"VkAllocationCallbacks", "VkPhysicalDeviceProperties", "VkPhysicalDeviceMemoryProperties",
	"VkClearColorValue", "VkClearValue", "VkBaseOutStructure", "VkPhysicalDeviceFeatures2",
	"VkPhysicalDeviceVulkan13Features", "VkTransformMatrixKHR", "VkAccelerationStructureInstanceKHR",
	"VkAccelerationStructureGeometryDataKHR", "VkDebugUtilsMessengerCreateInfoEXT",
	"VkXlibSurfaceCreateInfoKHR", "VkClusterAccelerationStructureOpInputNV",
	"PFN_vkAllocationFunction", "PFN_vkDebugUtilsMessengerCallbackEXT",
	"VkBool32", "VkDeviceSize", "VkAccessFlags2", "VkRemoteAddressNV", "ANativeWindow", "Display", "VkBuffer", "VkFormat",
}

var goldenVersions = []string{"1.0.3", "1.1.106", "1.2.182", "1.3.239", "1.4.359"}

// TestGolden compares the model of goldenNames with
// testdata/registry/golden/<version>.txt (rewritten with -update).
func TestGolden(t *testing.T) {
	for _, v := range goldenVersions {
		t.Run(v, func(t *testing.T) {
			got := dumpNames(mustLoad(t, v), goldenNames)
			file := filepath.Join(fixtureDir, "golden", v+".txt")
			if *update {
				if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("model differs from %s (go test -run TestGolden -update rewrites it)\n--- got\n%s", file, got)
			}
		})
	}
}

func dumpNames(r *Registry, names []string) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	for _, name := range names {
		if c := r.Command(name); c != nil {
			p("command %s return=%q level=%d", c.Name, c.Return, c.Level)
			for _, prm := range c.Params {
				p("  param %s", dumpDecl(prm))
			}
			continue
		}
		if s := r.Struct(name); s != nil {
			p("struct %s union=%t stype=%s extends=%s returnedonly=%t aliases=%s protect=%s",
				s.Name, s.Union, s.SType, strings.Join(s.Extends, ","), s.ReturnedOnly, strings.Join(s.Aliases, ","), s.Protect)
			for _, m := range s.Members {
				p("  member %s", dumpDecl(m))
			}
			continue
		}
		var fp *FuncPointer
		for _, f := range r.FuncPointers {
			if f.Name == name {
				fp = f
			}
		}
		if fp != nil {
			p("funcpointer %s return=%q", fp.Name, fp.Return)
			for _, prm := range fp.Params {
				p("  param %s", dumpDecl(prm))
			}
			continue
		}
		if ty := r.Type(name); ty != nil {
			p("%s", dumpType(ty))
			continue
		}
		p("absent %s", name)
	}
	return b.String()
}
