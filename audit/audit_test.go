package audit

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/gen/objtypes"
	"github.com/vkgen/vkgen/internal/testreg"
)

func tables(t *testing.T, version string) *objtypes.Tables {
	t.Helper()
	tb, err := objtypes.Derive(testreg.Load(t, version))
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// summary renders findings as "kind name [got]" lines, sorted, without positions.
func summary(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		s := string(f.Kind) + " " + f.DebugReport
		if f.Got != "" {
			s += " " + f.Got
		}
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

func audit(t *testing.T, tb *objtypes.Tables, file string) *Report {
	t.Helper()
	rep, err := AuditFiles(tb, []string{filepath.Join("testdata", file)})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestReference39 is the acceptance case: the reference's 39 rows on
// 1.4.359 lack exactly the two CUDA rows.
func TestReference39(t *testing.T) {
	rep := audit(t, tables(t, "1.4.359"), "reference39.c")
	if rep.Rows != 39 {
		t.Errorf("read %d rows, want 39", rep.Rows)
	}
	got := strings.Join(summary(rep.Findings), "\n")
	want := "missing VK_DEBUG_REPORT_OBJECT_TYPE_CUDA_FUNCTION_NV_EXT\nmissing VK_DEBUG_REPORT_OBJECT_TYPE_CUDA_MODULE_NV_EXT"
	if got != want {
		t.Errorf("findings:\n%s\nwant:\n%s", got, want)
	}
	for _, f := range rep.Findings {
		if f.File != filepath.Join("testdata", "reference39.c") || f.Line != 8 {
			t.Errorf("missing row reported at %s:%d, want the table's first row (line 8)", f.File, f.Line)
		}
	}
	// The same table is complete for 1.3.239, which has no CUDA values.
	if rep := audit(t, tables(t, "1.3.239"), "reference39.c"); len(rep.Findings) != 0 {
		t.Errorf("1.3.239: %v", rep.Findings)
	}
}

func TestCompleteMap(t *testing.T) {
	rep := audit(t, tables(t, "1.4.359"), "complete_map.cpp")
	if rep.Rows != 42 || len(rep.Findings) != 0 {
		t.Errorf("rows %d, findings %v", rep.Rows, rep.Findings)
	}
}

func TestDesignated(t *testing.T) {
	rep := audit(t, tables(t, "1.4.359"), "designated.c")
	got := summary(rep.Findings)
	want := []string{
		"missing VK_DEBUG_REPORT_OBJECT_TYPE_CU_FUNCTION_NVX_EXT",
		"missing VK_DEBUG_REPORT_OBJECT_TYPE_CU_MODULE_NVX_EXT",
		"not-in-registry VK_DEBUG_REPORT_OBJECT_TYPE_FENCE_EXT VK_OBJECT_TYPE_FENSE",
		"not-in-registry VK_DEBUG_REPORT_OBJECT_TYPE_OBJECT_TABLE_NVX_EXT VK_OBJECT_TYPE_UNKNOWN",
		"wrong VK_DEBUG_REPORT_OBJECT_TYPE_SURFACE_KHR_EXT VK_OBJECT_TYPE_SWAPCHAIN_KHR",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, f := range rep.Findings {
		if f.Kind == Wrong && f.Line != 31 {
			t.Errorf("wrong row at line %d, want 31: %s", f.Line, f)
		}
	}
}

func TestGoTable(t *testing.T) {
	tb := tables(t, "1.4.359")
	src := filepath.Join("testdata", "legacy.go")
	rep := audit(t, tb, "legacy.go")
	var bad []string
	for _, f := range rep.Findings {
		if f.Kind != Missing {
			bad = append(bad, fmt.Sprintf("%s:%d %s %s %s", filepath.Base(f.File), f.Line, f.Kind, f.DebugReport, f.Got))
		}
	}
	sort.Strings(bad)
	want := []string{
		"legacy.go:14 wrong VK_DEBUG_REPORT_OBJECT_TYPE_INSTANCE_EXT VK_OBJECT_TYPE_DEVICE",
		"legacy.go:18 wrong VK_DEBUG_REPORT_OBJECT_TYPE_SURFACE_KHR_EXT VK_OBJECT_TYPE_SWAPCHAIN_KHR",
		"legacy.go:22 not-in-registry DebugReportObjectTypeObjectTableNVX ObjectTypeUnknown",
	}
	if fmt.Sprint(bad) != fmt.Sprint(want) {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(bad, "\n"), strings.Join(want, "\n"))
	}
	// 8 rows: 2 map, Instance, Device, Surface, Swapchain, CudaModule, ObjectTable;
	// all but ObjectTable and UNKNOWN (left to default) leave 41-7-1 missing.
	if rep.Rows != 8 {
		t.Errorf("rows = %d, want 8", rep.Rows)
	}
	if got, want := len(rep.Findings)-len(bad), len(tb.DebugReport)-1-7; got != want {
		t.Errorf("%d missing rows, want %d (%s)", got, want, src)
	}
}

func TestParseShapes(t *testing.T) {
	src := `
	x = {VK_DEBUG_REPORT_OBJECT_TYPE_BUFFER_EXT, VK_OBJECT_TYPE_BUFFER};
	case VK_DEBUG_REPORT_OBJECT_TYPE_IMAGE_EXT: [[fallthrough]];
	case VK_DEBUG_REPORT_OBJECT_TYPE_EVENT_EXT: out = vk::VK_OBJECT_TYPE_EVENT; break;
	case VK_DEBUG_REPORT_OBJECT_TYPE_FENCE_EXT: log("x"); break;
	char *s = "VK_DEBUG_REPORT_OBJECT_TYPE_QUEUE_EXT, VK_OBJECT_TYPE_QUEUE";
	case VK_DEBUG_REPORT_OBJECT_TYPE_MAX_ENUM_EXT: return VK_OBJECT_TYPE_UNKNOWN;
	`
	var got []string
	for _, r := range ParseRows("f", src) {
		got = append(got, fmt.Sprintf("%d %s %s", r.Line, r.DebugReport, r.ObjectType))
	}
	want := []string{
		"2 VK_DEBUG_REPORT_OBJECT_TYPE_BUFFER_EXT VK_OBJECT_TYPE_BUFFER",
		"3 VK_DEBUG_REPORT_OBJECT_TYPE_IMAGE_EXT VK_OBJECT_TYPE_EVENT",
		"4 VK_DEBUG_REPORT_OBJECT_TYPE_EVENT_EXT VK_OBJECT_TYPE_EVENT",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Unterminated comments and strings are a safe no-op, not a panic.
	for _, s := range []string{"/* VK_DEBUG_REPORT_OBJECT_TYPE_BUFFER_EXT", `"abc`, "`x", "case", "case VK_DEBUG_REPORT_OBJECT_TYPE_BUFFER_EXT", "a.", "::"} {
		if rows := ParseRows("f", s); len(rows) != 0 {
			t.Errorf("%q: rows %v", s, rows)
		}
	}
}

func TestAuditFilesErrors(t *testing.T) {
	tb := &objtypes.Tables{}
	if _, err := AuditFiles(tb, []string{filepath.Join("testdata", "nope.c")}); err == nil {
		t.Error("missing file accepted")
	}
	if _, err := AuditFiles(tb, []string{"audit.go"}); err == nil || !strings.Contains(err.Error(), "no debug-report") {
		t.Errorf("file without rows: %v", err)
	}
}

func FuzzParseRows(f *testing.F) {
	f.Add("case VK_DEBUG_REPORT_OBJECT_TYPE_BUFFER_EXT: return VK_OBJECT_TYPE_BUFFER;")
	f.Add("{DebugReportObjectTypeBuffer, pkg.ObjectTypeBuffer} /* x")
	f.Fuzz(func(t *testing.T, src string) {
		for _, r := range ParseRows("f", src) {
			if r.Line < 1 || r.DebugReport == "" || r.ObjectType == "" {
				t.Fatalf("bad row %+v", r)
			}
		}
	})
}
