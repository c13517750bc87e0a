package goviews

import (
	"bytes"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/internal/testenv"
	"github.com/vkgen/vkgen/internal/testreg"
	"github.com/vkgen/vkgen/registry"
)

// TestEveryRegistry renders the views of every shared registry: no name
// clashes, and the only structs without a view are those holding Win32
// types by value.
func TestEveryRegistry(t *testing.T) {
	for _, v := range testenv.RegistryVersions(t) {
		t.Run(v, func(t *testing.T) {
			g, err := build(testreg.Load(t, v))
			if err != nil {
				t.Fatal(err)
			}
			for name, why := range g.Skipped {
				if !strings.Contains(name, "Win32") {
					t.Errorf("%s has no view: %s", name, why)
				}
			}
			if len(g.structs) < 100 {
				t.Errorf("only %d structs", len(g.structs))
			}
		})
	}
}

func TestPinned(t *testing.T) {
	r := testreg.Load(t, testenv.PinnedRegistry)
	g, err := build(r)
	if err != nil {
		t.Fatal(err)
	}
	var skipped []string
	for name := range g.Skipped {
		skipped = append(skipped, name)
	}
	sort.Strings(skipped)
	want := []string{
		"VkExportFenceWin32HandleInfoKHR", "VkExportMemoryWin32HandleInfoKHR", "VkExportMemoryWin32HandleInfoNV",
		"VkExportSemaphoreWin32HandleInfoKHR", "VkImportFenceWin32HandleInfoKHR", "VkImportMemoryWin32HandleInfoKHR",
		"VkImportMemoryWin32HandleInfoNV", "VkImportSemaphoreWin32HandleInfoKHR", "VkSurfaceFullScreenExclusiveWin32InfoEXT",
		"VkWin32SurfaceCreateInfoKHR",
	}
	if !slices.Equal(skipped, want) {
		t.Errorf("skipped %v\nwant %v", skipped, want)
	}
	for c, goName := range map[string]string{
		"VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO":        "StructureTypeBufferCreateInfo",
		"VK_SUCCESS":                                  "Success",
		"VK_OBJECT_TYPE_SURFACE_KHR":                  "ObjectTypeSurfaceKHR",
		"VK_WHOLE_SIZE":                               "WholeSize",
		"VK_PIPELINE_CACHE_HEADER_VERSION_ONE":        "PipelineCacheHeaderVersionOneValue",
		"VK_STRUCTURE_TYPE_SURFACE_CAPABILITIES2_EXT": "StructureTypeSurfaceCapabilities2EXT",
		"VK_ACCESS_2_NONE":                            "Access2None",
	} {
		if got := g.consts[c]; got != goName {
			t.Errorf("%s -> %s, want %s", c, got, goName)
		}
	}
	for c, goName := range map[string]string{
		"VkBufferCreateInfo": "BufferCreateInfo", "VkBufferCreateInfoKHR": "", "PFN_vkAllocationFunction": "PFNAllocationFunction",
		"VkSurfaceCapabilitiesKHR": "SurfaceCapabilitiesKHR", "MTLDevice_id": "MTLDevice_id", "ANativeWindow": "",
		"VkAccessFlags2KHR": "AccessFlags2KHR", "VkWin32SurfaceCreateInfoKHR": "",
	} {
		if got := g.goName[c]; got != goName {
			t.Errorf("type %s -> %q, want %q", c, got, goName)
		}
	}
	a, err := g.render()
	if err != nil {
		t.Fatal(err)
	}
	b, err := Generate(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != len(b) {
		t.Fatalf("%d files, then %d", len(a), len(b))
	}
	for i := range a {
		if a[i].Name != b[i].Name || !bytes.Equal(a[i].Data, b[i].Data) {
			t.Errorf("%s: not deterministic", a[i].Name)
		}
		if len(a[i].Data) >= 1<<20 {
			t.Errorf("%s: %d bytes, over 1 MiB", a[i].Name, len(a[i].Data))
		}
	}
}

func TestClash(t *testing.T) {
	src := `<registry><types>
<type name="VkE" category="enum"/>
</types>
<enums name="VkE" type="enum">
  <enum value="1" name="VK_E_1_2"/>
  <enum value="2" name="VK_E_12"/>
</enums></registry>`
	r, err := registry.Parse(strings.NewReader(src), "clash.xml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Generate(r)
	if want := "goviews: VK_E_1_2 and VK_E_12 both become Go name E12"; err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}

// TestAccessors: counted pointers get slice accessors (a member count, a
// count with null-terminated strings, altlen expressions, void pointers as
// bytes); C strings (len null-terminated alone) get none; every enum and
// flags type gets a String method reading a names table.
func TestAccessors(t *testing.T) {
	files, err := Generate(testreg.Load(t, testenv.PinnedRegistry))
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	for _, f := range files {
		all.Write(f.Data)
	}
	text := all.String()
	for _, want := range []string{
		"func (s *DeviceCreateInfo) QueueCreateInfos() []DeviceQueueCreateInfo",
		"return view(s.PQueueCreateInfos, s.QueueCreateInfoCount)",
		"func (s *InstanceCreateInfo) EnabledExtensionNames() []*byte",
		"return view(s.PCode, s.CodeSize/4)",
		"return view(s.PSampleMask, (s.RasterizationSamples+31)/32)",
		"func (s *PipelineCacheCreateInfo) InitialData() []byte",
		"return view((*byte)(s.PInitialData), s.InitialDataSize)",
		`func (v Result) String() string { return resultNames.enum("VkResult", int64(v)) }`,
		`var resultNames = &names{text: "0 VK_SUCCESS 1 VK_NOT_READY `,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the views lack %q", want)
		}
	}
	if !regexp.MustCompile(`func \(v BufferUsageFlags\) String\(\) string\s+\{ return bufferUsageFlagBitsNames.flags\(uint64\(v\)\) \}`).MatchString(text) {
		t.Error("BufferUsageFlags has no String reading the table of VkBufferUsageFlagBits")
	}
	for _, absent := range []string{"ApplicationName()", "MessageIdName()"} {
		if strings.Contains(text, absent) {
			t.Errorf("the views have %q", absent)
		}
	}
	// Alias enumerants are not in the tables: a value prints its first name.
	for _, m := range regexp.MustCompile(`text: "([^"]*)"`).FindAllStringSubmatch(text, -1) {
		if strings.Contains(m[1], "VK_PIPELINE_CREATE_DISPATCH_BASE_KHR") {
			t.Error("a names table holds the alias VK_PIPELINE_CREATE_DISPATCH_BASE_KHR")
		}
	}
}
