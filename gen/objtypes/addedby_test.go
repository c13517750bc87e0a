package objtypes_test

import (
	"strings"
	"testing"

	"github.com/vkgen/vkgen/gen/objtypes"
	"github.com/vkgen/vkgen/internal/testreg"
)

// TestAddedBy: each value names the feature or extension that added it;
// values of an enum's base block are credited to whoever requires the type.
func TestAddedBy(t *testing.T) {
	tb, err := objtypes.Derive(testreg.Load(t, "1.4.359"))
	if err != nil {
		t.Fatal(err)
	}
	addedBy := func(name string) string {
		if strings.HasPrefix(name, objtypes.DebugReportPrefix) {
			d, _ := tb.DebugReportByName(name)
			return d.AddedBy
		}
		o, _ := tb.ObjectTypeByName(name)
		return o.AddedBy
	}
	for name, want := range map[string]string{
		"VK_DEBUG_REPORT_OBJECT_TYPE_BUFFER_EXT":         "VK_EXT_debug_report",
		"VK_DEBUG_REPORT_OBJECT_TYPE_CUDA_MODULE_NV_EXT": "VK_NV_cuda_kernel_launch",
		"VK_DEBUG_REPORT_OBJECT_TYPE_CU_MODULE_NVX_EXT":  "VK_NVX_binary_import",
		"VK_OBJECT_TYPE_BUFFER":                          "VK_VERSION_1_0",
		"VK_OBJECT_TYPE_SURFACE_KHR":                     "VK_KHR_surface",
		"VK_OBJECT_TYPE_PRIVATE_DATA_SLOT":               "VK_VERSION_1_3",
	} {
		if got := addedBy(name); got != want {
			t.Errorf("%s added by %q, want %q", name, got, want)
		}
	}
}
