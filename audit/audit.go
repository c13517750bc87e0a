// Package audit reads hand-written VkDebugReportObjectTypeEXT ->
// VkObjectType mapping tables in C, C++ or Go source and compares them with
// the mapping gen/objtypes derives from the registry, reporting every row
// that is missing, wrong or not in the registry, with file:line. It reads
// source text only (no compiler) and never writes files.
//
// Recognised row shapes, with C names (VK_DEBUG_REPORT_OBJECT_TYPE_X_EXT,
// VK_OBJECT_TYPE_Y) or the Go constants of generated/ (optionally
// package-qualified):
//
//	case D: return O;              switch rows, C/C++/Go
//	case D1: case D2: return O;    fallthrough groups (also Go "case D1, D2:" and "fallthrough")
//	{D, O}                         array, std::map and struct initialisers
//	[D] = O                        designated initialisers
//	D: O                           Go map literals
package audit

import (
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/vkgen/vkgen/gen/objtypes"
)

// Row is one mapping row read from a file.
type Row struct {
	File        string
	Line        int
	DebugReport string // as written, without package qualifier
	ObjectType  string // as written
}

// Kind classifies a finding.
type Kind string

const (
	Missing       Kind = "missing"         // a registry value the table does not map
	Wrong         Kind = "wrong"           // mapped to another VkObjectType than the registry's
	NotInRegistry Kind = "not-in-registry" // a name the registry does not define
)

// Finding is one problem with a table.
type Finding struct {
	File        string `json:"file"`
	Line        int    `json:"line"`
	Kind        Kind   `json:"kind"`
	DebugReport string `json:"debug_report"`   // registry name when known, else as written
	Got         string `json:"got,omitempty"`  // what the table maps it to
	Want        string `json:"want,omitempty"` // what the registry maps it to
	Message     string `json:"message"`
}

func (f Finding) String() string {
	return fmt.Sprintf("%s:%d: %s: %s", f.File, f.Line, f.Kind, f.Message)
}

// Report is the result of auditing a set of files.
type Report struct {
	HeaderVersion int       `json:"registry_header_version"`
	Files         []string  `json:"files"`
	Rows          int       `json:"rows"`
	Findings      []Finding `json:"findings"`
}

// AuditFiles reads each file as one table and checks it against t. An
// unreadable file, or one in which no mapping row is found, is an input
// error.
func AuditFiles(t *objtypes.Tables, paths []string) (*Report, error) {
	rep := &Report{HeaderVersion: t.HeaderVersion, Files: paths, Findings: []Finding{}}
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		rows := ParseRows(p, string(src))
		if len(rows) == 0 {
			return nil, fmt.Errorf("%s: no debug-report -> object-type mapping rows found", p)
		}
		rep.Rows += len(rows)
		rep.Findings = append(rep.Findings, Check(t, rows)...)
	}
	return rep, nil
}

// Check compares the rows of one table with t. Missing rows are reported
// at the table's first row. A value that maps to VK_OBJECT_TYPE_UNKNOWN may
// be left to the table's default branch and is never reported missing.
func Check(t *objtypes.Tables, rows []Row) []Finding {
	if len(rows) == 0 {
		return nil
	}
	n := newNames(t)
	var out []Finding
	covered := map[string]bool{}
	for _, r := range rows {
		d, ok := n.debugReport(r.DebugReport)
		if !ok {
			out = append(out, Finding{File: r.File, Line: r.Line, Kind: NotInRegistry, DebugReport: r.DebugReport, Got: r.ObjectType,
				Message: fmt.Sprintf("%s is not a %s value of the registry", r.DebugReport, objtypes.DebugReportEnum)})
			continue
		}
		covered[d.Name] = true
		o, ok := n.objectType(r.ObjectType)
		if !ok {
			out = append(out, Finding{File: r.File, Line: r.Line, Kind: NotInRegistry, DebugReport: d.Name, Got: r.ObjectType, Want: d.ObjectType,
				Message: fmt.Sprintf("%s maps to %s, which is not a %s value of the registry", r.DebugReport, r.ObjectType, objtypes.ObjectTypeEnum)})
			continue
		}
		if d.ObjectType != "" && o.Name != d.ObjectType {
			out = append(out, Finding{File: r.File, Line: r.Line, Kind: Wrong, DebugReport: d.Name, Got: o.Name, Want: d.ObjectType,
				Message: fmt.Sprintf("%s maps to %s (%d); the registry maps it to %s (%d)", r.DebugReport, o.Name, o.Value, d.ObjectType, d.ObjectTypeValue)})
		}
	}
	first := rows[0]
	for _, r := range rows[1:] {
		if r.Line < first.Line {
			first = r
		}
	}
	for _, d := range t.DebugReport {
		if covered[d.Name] || d.ObjectType == "" || d.ObjectTypeValue == 0 {
			continue
		}
		out = append(out, Finding{File: first.File, Line: first.Line, Kind: Missing, DebugReport: d.Name, Want: d.ObjectType,
			Message: fmt.Sprintf("no row for %s (%d) -> %s (%d)", d.Name, d.Value, d.ObjectType, d.ObjectTypeValue)})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].File != out[j].File {
			return out[i].File < out[j].File
		}
		return out[i].Line < out[j].Line
	})
	return out
}

// names resolves C names and generated/ Go constants to registry values.
type names struct {
	t   *objtypes.Tables
	goD map[string]string // Go constant -> enumerant
	goO map[string]string
}

func newNames(t *objtypes.Tables) *names {
	n := &names{t: t, goD: map[string]string{}, goO: map[string]string{}}
	for _, d := range t.DebugReport {
		for _, e := range append([]string{d.Name}, d.Aliases...) {
			n.goD[t.GoConst(e)] = e
		}
	}
	for _, o := range t.ObjectTypes {
		for _, e := range append([]string{o.Name}, o.Aliases...) {
			n.goO[t.GoConst(e)] = e
		}
	}
	return n
}

func (n *names) debugReport(s string) (objtypes.DebugReportType, bool) {
	if e, ok := n.goD[s]; ok {
		s = e
	}
	return n.t.DebugReportByName(s)
}

func (n *names) objectType(s string) (objtypes.ObjectType, bool) {
	if e, ok := n.goO[s]; ok {
		s = e
	}
	return n.t.ObjectTypeByName(s)
}

var (
	// Header sentinels (MAX_ENUM, the old RANGE values) are not table rows.
	sentinel = regexp.MustCompile(`_(BEGIN_RANGE|END_RANGE|RANGE_SIZE|MAX_ENUM)_EXT$`)
	goDebug  = regexp.MustCompile(`^DebugReportObjectType[A-Z]`)
	goObject = regexp.MustCompile(`^ObjectType[A-Z]`)
)

// kindOf classifies an identifier: 'D' debug-report value, 'O' object type.
func kindOf(id string) byte {
	switch {
	case strings.HasPrefix(id, objtypes.DebugReportPrefix):
		if sentinel.MatchString(id) {
			return 0
		}
		return 'D'
	case strings.HasPrefix(id, objtypes.ObjectTypePrefix):
		if strings.HasSuffix(id, "_MAX_ENUM") {
			return 0
		}
		return 'O'
	case goDebug.MatchString(id):
		return 'D'
	case goObject.MatchString(id):
		return 'O'
	}
	return 0
}
