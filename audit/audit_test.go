package audit

import (
	"fmt"
	"path/filepath"
	"slices"
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

func fixture(name string) string { return filepath.Join("testdata", name) }

// auditOne audits one fixture and fails on an input error.
func auditOne(t *testing.T, tb *objtypes.Tables, name string) *FileResult {
	t.Helper()
	res := AuditFiles(tb, []string{fixture(name)}, Options{}).Files[0]
	if res.Error != "" {
		t.Fatal(res.Error)
	}
	return res
}

// key is the name a finding is about: the table's key side.
func key(f Finding) string {
	if f.DebugReport != "" && (f.Kind != Missing || f.ObjectType == "") {
		return f.DebugReport
	}
	return f.ObjectType
}

// summary renders findings other than missing rows as "kind key [got]",
// and missing rows as "missing key", sorted, without positions.
func summary(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		s := string(f.Kind) + " " + key(f)
		if f.Kind != Missing && f.Got != "" {
			s += " " + f.Got
		}
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

func tableShapes(res *FileResult) []string {
	var out []string
	for _, t := range res.Tables {
		out = append(out, fmt.Sprintf("%s %s %d", t.Shape, t.Direction(), len(t.Rows)))
	}
	return out
}

const (
	dr = "VK_DEBUG_REPORT_OBJECT_TYPE_"
	ot = "VK_OBJECT_TYPE_"
)

// TestShapes audits one fixture per shape found in public code against
// 1.4.359: the tables read and every finding.
func TestShapes(t *testing.T) {
	tb := tables(t, "1.4.359")
	missing := func(names ...string) []string {
		var out []string
		for _, n := range names {
			out = append(out, "missing "+n)
		}
		return out
	}
	cases := []struct {
		file     string
		tables   []string
		findings []string
	}{
		{"reference39.c", []string{"switch debug-report -> object-type 39"},
			missing(dr+"CUDA_FUNCTION_NV_EXT", dr+"CUDA_MODULE_NV_EXT")},
		{"complete_map.cpp", []string{"pairs debug-report -> object-type 42"}, nil},
		{"designated.c", []string{"designated debug-report -> object-type 40"}, []string{
			"missing " + dr + "CU_FUNCTION_NVX_EXT",
			"missing " + dr + "CU_MODULE_NVX_EXT",
			"not-in-registry " + dr + "FENCE_EXT " + ot + "FENSE",
			"not-in-registry " + dr + "OBJECT_TABLE_NVX_EXT " + dr + "OBJECT_TABLE_NVX_EXT",
			"wrong " + dr + "SURFACE_KHR_EXT " + ot + "SWAPCHAIN_KHR",
		}},
		// Khronos's older helper_file_generator.py output, as vendored by
		// engines: if/else-if chains both ways; 2 stale NVX rows and 6
		// missing rows in each.
		{"helper_if_chain.h", []string{"if-chain debug-report -> object-type 40", "if-chain object-type -> debug-report 40"}, append(append(
			missing(dr+"ACCELERATION_STRUCTURE_KHR_EXT", dr+"BUFFER_COLLECTION_FUCHSIA_EXT", dr+"CUDA_FUNCTION_NV_EXT", dr+"CUDA_MODULE_NV_EXT", dr+"CU_FUNCTION_NVX_EXT", dr+"CU_MODULE_NVX_EXT",
				ot+"ACCELERATION_STRUCTURE_KHR", ot+"BUFFER_COLLECTION_FUCHSIA", ot+"CUDA_FUNCTION_NV", ot+"CUDA_MODULE_NV", ot+"CU_FUNCTION_NVX", ot+"CU_MODULE_NVX"),
			"not-in-registry "+dr+"INDIRECT_COMMANDS_LAYOUT_NVX_EXT "+dr+"INDIRECT_COMMANDS_LAYOUT_NVX_EXT",
			"not-in-registry "+dr+"OBJECT_TABLE_NVX_EXT "+dr+"OBJECT_TABLE_NVX_EXT"),
			"not-in-registry "+dr+"INDIRECT_COMMANDS_LAYOUT_NVX_EXT "+ot+"INDIRECT_COMMANDS_LAYOUT_NVX",
			"not-in-registry "+dr+"OBJECT_TABLE_NVX_EXT "+ot+"OBJECT_TABLE_NVX")},
		{"rust_match.rs", []string{"switch debug-report -> object-type 39", "switch object-type -> debug-report 40"}, []string{
			"missing " + dr + "VALIDATION_CACHE_EXT_EXT",
			"wrong " + dr + "SURFACE_KHR_EXT ObjectType::SWAPCHAIN_KHR",
		}},
		{"zig_switch.zig", []string{"switch debug-report -> object-type 38", "switch object-type -> debug-report 40"},
			missing(dr+"CUDA_FUNCTION_NV_EXT", dr+"CUDA_MODULE_NV_EXT")},
		{"go_reverse.go", []string{"switch object-type -> debug-report 41"}, []string{
			"wrong " + dr + "BUFFER_EXT DebugReportObjectTypeBuffer",
		}},
		{"if_assign.cpp", []string{"if-chain debug-report -> object-type 39"},
			missing(dr + "BUFFER_COLLECTION_FUCHSIA_EXT")},
		{"switch_assign.cpp", []string{"switch debug-report -> object-type 41"}, []string{
			"wrong " + dr + "IMAGE_VIEW_EXT " + ot + "SHADER_MODULE",
		}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			res := auditOne(t, tb, c.file)
			if got := tableShapes(res); !slices.Equal(got, c.tables) {
				t.Errorf("tables:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.tables, "\n"))
			}
			want := slices.Clone(c.findings)
			sort.Strings(want)
			if got := summary(res.Findings); !slices.Equal(got, want) {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// TestPositionalArray: an array sized by the other enum's range sentinel is
// read by position; values past its end are missing, extension values
// cannot be reached by position at all.
func TestPositionalArray(t *testing.T) {
	res := auditOne(t, tables(t, "1.1.70"), "range_array.c")
	if got := tableShapes(res); !slices.Equal(got, []string{"array debug-report -> object-type 26"}) {
		t.Fatalf("tables %v", got)
	}
	var wrong, atEnd, elsewhere int
	for _, f := range res.Findings {
		switch {
		case f.Kind == Wrong && f.Line == 16 && strings.Contains(f.Message, "element [7] ("+dr+"FENCE_EXT)"):
			wrong++
		case f.Kind == Missing && strings.Contains(f.Message, "as element ["):
			atEnd++
		case f.Kind == Missing && strings.Contains(f.Message, "cannot hold value"):
			elsewhere++
		default:
			t.Errorf("unexpected %s", f)
		}
	}
	if wrong != 1 || atEnd != 8 || elsewhere != 2 {
		t.Errorf("wrong %d, missing at the end %d, unreachable %d", wrong, atEnd, elsewhere)
	}
	// Arrays indexed by a third enum are not read (third_enum.cpp), nor
	// arrays whose elements are not all of one enum.
	if tabs, _ := Parse("f", "VkObjectType a["+dr+"RANGE_SIZE_EXT] = {"+ot+"BUFFER, 0};"); len(tabs) != 0 {
		t.Errorf("mixed array read: %+v", tabs[0])
	}
}

// TestCppShapes: four C++ shapes in one file, each its own table.
func TestCppShapes(t *testing.T) {
	res := auditOne(t, tables(t, "1.4.359"), "cpp_shapes.cpp")
	want := []string{
		"pairs object-type -> debug-report 38",   // unordered_map {O, D}
		"pairs debug-report -> object-type 40",   // m.insert(std::make_pair(D, O))
		"indexed debug-report -> object-type 25", // table[D] = O;
		"switch debug-report -> object-type 40",  // vulkan.hpp eNames
	}
	if got := tableShapes(res); !slices.Equal(got, want) {
		t.Fatalf("tables:\n%s", strings.Join(got, "\n"))
	}
	var other []string
	missingByTable := map[int]int{}
	for _, f := range res.Findings {
		if f.Kind == Missing {
			for i, tb := range res.Tables {
				if f.Line >= tb.Line && f.Line <= tb.EndLine {
					missingByTable[i]++
				}
			}
			continue
		}
		other = append(other, fmt.Sprintf("%d %s %s", f.Line, f.Kind, f.Got))
	}
	wantOther := []string{
		"60 wrong " + ot + "QUERY_POOL",
		"114 not-in-registry " + ot + "SAMPLR",
		"163 not-in-registry DebugReportObjectTypeEXT::eObjectTableNVX",
	}
	if !slices.Equal(other, wantOther) {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(other, "\n"), strings.Join(wantOther, "\n"))
	}
	if fmt.Sprint(missingByTable) != "map[0:2 2:15 3:1]" {
		t.Errorf("missing rows per table: %v, want the two CUDA rows, the 15 rows after COMMAND_POOL, ACCELERATION_STRUCTURE_KHR", missingByTable)
	}
}

// TestActionableFindings: a missing row names its value, what added it and
// where it goes; names not in the registry say what to do.
func TestActionableFindings(t *testing.T) {
	tb := tables(t, "1.4.359")
	res := auditOne(t, tb, "reference39.c")
	for _, f := range res.Findings {
		if f.Line != 82 || f.AddedBy != "VK_NV_cuda_kernel_launch" ||
			!strings.Contains(f.Message, "(1000307") || !strings.Contains(f.Message, "added by VK_NV_cuda_kernel_launch") ||
			!strings.Contains(f.Message, "add it after line 82 ("+dr+"ACCELERATION_STRUCTURE_NV_EXT, 1000165000)") {
			t.Errorf("missing row: %s (added by %q)", f, f.AddedBy)
		}
	}
	// Rows not in value order: a missing row goes at the table's end.
	res = auditOne(t, tb, "helper_if_chain.h")
	for _, f := range res.Findings {
		switch {
		case f.Kind == Missing && !strings.Contains(f.Message, "at the end of the table"):
			t.Errorf("unsorted table: %s", f)
		case f.Kind == NotInRegistry && !strings.Contains(f.Message, "#ifdef VK_NVX_device_generated_commands"):
			t.Errorf("retired value: %s", f)
		}
	}
	res = auditOne(t, tb, "designated.c")
	if !strings.Contains(res.Findings[0].Message, "did you mean "+ot+"FENCE?") {
		t.Errorf("typo: %s", res.Findings[0])
	}
	// Against an older registry, rows from newer headers get a version guard.
	// (CU_*_NVX, the acceleration structures, FUCHSIA are newer than 1.1.70.)
	res = auditOne(t, tables(t, "1.1.70"), "reference39.c")
	var guarded int
	for _, f := range res.Findings {
		if f.Kind == NotInRegistry && strings.Contains(f.Message, "#if VK_HEADER_VERSION > 70") {
			guarded++
		}
	}
	if guarded != 5 {
		t.Errorf("1.1.70: %d guarded, findings %v", guarded, res.Findings)
	}
}

// TestRenamed: a row spelled as another registry version spells the value
// is one finding naming both spellings, not an unknown row plus a missing one.
func TestRenamed(t *testing.T) {
	// 1.1.70 as it was before VALIDATION_CACHE_EXT became VALIDATION_CACHE_EXT_EXT.
	old := tables(t, "1.1.70")
	for i, d := range old.DebugReport {
		if d.Value == 33 {
			old.DebugReport[i].Name, old.DebugReport[i].Aliases = dr+"VALIDATION_CACHE_EXT", nil
		}
	}
	src := `switch (t) {
	case ` + dr + `VALIDATION_CACHE_EXT_EXT: return ` + ot + `VALIDATION_CACHE_EXT;
	case ` + dr + `BUFFER_EXT: return ` + ot + `BUFFER;
	}`
	renamed := func(tb *objtypes.Tables, src string) []Finding {
		tabs, _ := Parse("f.c", src)
		var out []Finding
		for _, f := range newNames(tb).check(tabs[0]) {
			if f.Kind != Missing {
				out = append(out, f)
			}
		}
		return out
	}
	fs := renamed(old, src)
	if len(fs) != 1 || fs[0].Kind != Renamed || fs[0].Got != dr+"VALIDATION_CACHE_EXT_EXT" || fs[0].DebugReport != dr+"VALIDATION_CACHE_EXT" || fs[0].Line != 2 {
		t.Fatalf("findings: %v", fs)
	}
	// Linked by the value the row maps to, in a reverse table too.
	rev := `switch (o) { case ` + ot + `DEBUG_REPORT_CALLBACK_EXT: return ` + dr + `DEBUG_REPORT_CALLBACK_EXT_EXT; case ` + ot + `VALIDATION_CACHE: return ` + dr + `VALIDATION_CACHE_EXT; }`
	fs = renamed(old, rev)
	if len(fs) != 1 || fs[0].Kind != Renamed || fs[0].ObjectType != ot+"VALIDATION_CACHE_EXT" {
		t.Errorf("reverse: %v", fs)
	}
	for _, f := range AuditFiles(old, []string{fixture("reference39.c")}, Options{}).Files[0].Findings {
		if f.Kind == Missing && key(f) == dr+"VALIDATION_CACHE_EXT" {
			t.Errorf("the renamed row is also reported missing: %s", f)
		}
	}
}

// TestNoFalseRows: a pair of enumerants is a row only inside a table shape.
func TestNoFalseRows(t *testing.T) {
	res := auditOne(t, tables(t, "1.4.359"), "call_args.cpp")
	if res.NoTable == "" || !strings.Contains(res.NoTable, strings.Join(ShapesRead, "; ")) || len(res.Findings) != 0 || res.Status() != 2 {
		t.Errorf("call arguments: %+v", res)
	}
	for _, name := range []string{"third_enum.cpp", "macro_hidden.c"} {
		res := auditOne(t, tables(t, "1.4.359"), name)
		if res.NoTable == "" || res.Rows != 0 {
			t.Errorf("%s: %+v", name, res)
		}
	}
	res = auditOne(t, tables(t, "1.4.359"), "macro_hidden.c")
	if !strings.Contains(res.NoTable, "macro OBJ_CASE (line 6)") || len(res.Notes) != 1 {
		t.Errorf("macro: %q %v", res.NoTable, res.Notes)
	}
	D, O := dr+"BUFFER_EXT", ot+"BUFFER"
	for _, src := range []string{
		"f(" + D + ", " + O + ");",
		"setName(h, " + D + ", " + O + ", \"b\");",
		"if (t == " + D + " && ready) return " + O + ";",
		"switch (t) { case " + D + ": log(" + O + "); break; }",
		"match t { vk::DebugReportObjectTypeEXT::BUFFER => vk::ObjectType::from_raw(9), _ => x }",
		"x = {" + D + ", " + D + "};",
		`s = "` + D + `, ` + O + `"; /* {` + D + `, ` + O + `} */ // {` + D + `, ` + O + `}`,
		"#define ROW {" + D + ", " + O + "}",
		// Zig: a switch over Zig types, not over either enum.
		"fn typeToObjectType(comptime in: type) vk.ObjectType { return switch (in) { vk.Buffer => .buffer, else => unreachable }; }",
		// A binding's own enum mapped to the C enum of the same kind.
		"match self { DebugReportObjectTypeExt::Buffer => vks::" + D + ", }",
		"/* {" + D + ", " + O + "}", `"abc`, "`x", "case", "case " + D, "a.", "::", "switch", "match x", "if (", "{{{{", ")))]]]}}}",
	} {
		if tabs, _ := Parse("f", src); len(tabs) != 0 {
			t.Errorf("%q: tables %+v", src, tabs[0])
		}
	}
	// A single pair is checked but not held to completeness.
	tb := tables(t, "1.4.359")
	for src, want := range map[string]int{
		"if (t == " + D + ") info.type = " + O + ";":                     0,
		"if (t == " + D + ") info.type = " + ot + "IMAGE;":               1,
		"if (t == " + D + " || t == " + dr + "IMAGE_EXT) x = " + O + ";": 1 + 38,
	} {
		tabs, _ := Parse("f", src)
		if got := len(newNames(tb).check(tabs[0])); got != want {
			t.Errorf("%q: %d findings, want %d", src, got, want)
		}
	}
	for _, src := range []string{
		"m.insert(std::make_pair(" + D + ", " + O + "));",
		"let v = [(" + D + ", " + O + ")];",
		"if (" + D + " == t || t == " + ot + "IMAGE) return " + O + ";",
		"switch t { case " + D + ": fallthrough\ncase " + dr + "IMAGE_EXT: return " + O + " }",
		"m[" + D + "] = " + O + ";",
		"switch (type) { case vk::ObjectType::eInstance : return vk::DebugReportObjectTypeEXT::eInstance; }",
		"match t { ash::vk::ObjectType::BUFFER => { ash::vk::DebugReportObjectTypeEXT::BUFFER } _ => x }",
	} {
		if tabs, _ := Parse("f", src); len(tabs) != 1 || len(tabs[0].Rows) == 0 {
			t.Errorf("%q: no table", src)
		}
	}
}

// TestSeveralFiles: each file gets its own result; a file without a table
// or unreadable hides nothing; the status is the worst.
func TestSeveralFiles(t *testing.T) {
	tb := tables(t, "1.4.359")
	rep := AuditFiles(tb, []string{fixture("call_args.cpp"), fixture("helper_if_chain.h"), fixture("nope.c"), fixture("complete_map.cpp"), fixture("reference39.c")}, Options{})
	var got []string
	for _, f := range rep.Files {
		got = append(got, fmt.Sprintf("%s %d %d", filepath.Base(f.File), f.Status(), len(f.Findings)))
	}
	want := []string{"call_args.cpp 2 0", "helper_if_chain.h 1 16", "nope.c 2 0", "complete_map.cpp 0 0", "reference39.c 1 2"}
	if !slices.Equal(got, want) || rep.Status != 2 || rep.Findings != 18 {
		t.Errorf("results %v, status %d, %d findings", got, rep.Status, rep.Findings)
	}
	if !strings.Contains(rep.Files[2].Error, "nope.c") {
		t.Errorf("error does not name the file: %q", rep.Files[2].Error)
	}
}

func FuzzParse(f *testing.F) {
	for _, name := range []string{"reference39.c", "helper_if_chain.h", "rust_match.rs", "zig_switch.zig", "cpp_shapes.cpp", "macro_hidden.c", "range_array.c"} {
		src, err := ReadSource(fixture(name), Options{})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(src[:min(len(src), 1500)]))
	}
	f.Add("case VK_DEBUG_REPORT_OBJECT_TYPE_BUFFER_EXT: return VK_OBJECT_TYPE_BUFFER;")
	f.Add("{DebugReportObjectTypeBuffer, pkg.ObjectTypeBuffer} /* x")
	f.Add("fn f(t: vk.ObjectType) { switch (t) { .buffer => .buffer, } }")
	f.Fuzz(func(t *testing.T, src string) {
		lines := strings.Count(src, "\n") + 1
		tabs, macros := Parse("f", src)
		for _, tb := range tabs {
			if len(tb.Rows) == 0 || tb.Line < 1 || tb.EndLine < tb.Line || tb.EndLine > lines {
				t.Fatalf("bad table %+v", tb)
			}
			for _, r := range tb.Rows {
				if r.Line < 1 || r.Line > lines || r.DebugReport == "" || r.ObjectType == "" {
					t.Fatalf("bad row %+v", r)
				}
			}
		}
		for _, m := range macros {
			if m.Line < 1 || m.Line > lines || m.Name == "" {
				t.Fatalf("bad macro %+v", m)
			}
		}
	})
}
