package audit

import (
	"fmt"
	"io"
	"iter"
	"slices"
	"strings"

	"github.com/vkgen/vkgen/gen/objtypes"
)

// Kind classifies a finding.
type Kind string

const (
	Missing       Kind = "missing"         // a registry value the table does not map
	Wrong         Kind = "wrong"           // mapped to another value than the registry's
	NotInRegistry Kind = "not-in-registry" // a name the registry does not define
	Renamed       Kind = "renamed"         // a row whose name the registry spells differently
)

// Finding is one problem with a table.
type Finding struct {
	File        string `json:"file"`
	Line        int    `json:"line"`
	Kind        Kind   `json:"kind"`
	DebugReport string `json:"debug_report,omitempty"` // registry name when known, else as written
	ObjectType  string `json:"object_type,omitempty"`
	Got         string `json:"got,omitempty"`      // what the table says, as written
	Want        string `json:"want,omitempty"`     // what the registry says
	AddedBy     string `json:"added_by,omitempty"` // feature or extension that added a missing value
	Message     string `json:"message"`
}

func (f Finding) String() string {
	return fmt.Sprintf("%s:%d: %s: %s", f.File, f.Line, f.Kind, f.Message)
}

// FileResult is what one input file gave: its tables and findings, or why
// it has none.
type FileResult struct {
	File     string    `json:"file"`
	Error    string    `json:"error,omitempty"`    // unreadable, too large, binary
	NoTable  string    `json:"no_table,omitempty"` // why no table was found
	Tables   []*Table  `json:"tables"`
	Rows     int       `json:"rows"`
	Notes    []string  `json:"notes,omitempty"` // e.g. macros that may hide rows
	Findings []Finding `json:"findings"`        // AuditFiles' only: Each hands them over one by one
	Found    int       `json:"-"`               // how many findings the file gave
}

// Status is the exit status this file calls for: 0 clean, 1 findings,
// 2 an input error or no table.
func (r *FileResult) Status() int {
	switch {
	case r.Error != "" || r.NoTable != "":
		return 2
	case r.Found > 0:
		return 1
	}
	return 0
}

// Report is the result of auditing a set of files.
type Report struct {
	HeaderVersion int           `json:"registry_header_version"`
	Files         []*FileResult `json:"files"`
	Rows          int           `json:"rows"`
	Findings      int           `json:"findings"`
	Status        int           `json:"status"` // the worst file's Status
}

// Options bound the input.
type Options struct {
	MaxSize int64     // bytes per file; DefaultMaxSize when 0
	Stdin   io.Reader // read for the file name "-"; nil refuses "-"
}

// AuditFiles audits each file on its own: one bad file never hides the
// others' results. It holds every finding: for inputs of any size use
// Each, or WriteText and WriteJSON.
func AuditFiles(t *objtypes.Tables, paths []string, opt Options) *Report {
	return Each(t, paths, opt, func(res *FileResult, findings iter.Seq[Finding]) {
		for f := range findings {
			res.Findings = append(res.Findings, f)
		}
	})
}

// Each audits the files one at a time and hands fn each file's result with
// its findings as a sequence made as fn reads it, a table at a time (a
// table's findings in line order, the tables in the order they start):
// the findings can outnumber the input's bytes (every table of two rows
// misses most of the registry), so only one table's are ever held. fn may
// leave findings unread: they are counted all the same. The Report lists
// every file's result, its Findings left as fn left them.
func Each(t *objtypes.Tables, paths []string, opt Options, fn func(res *FileResult, findings iter.Seq[Finding])) *Report {
	rep := &Report{HeaderVersion: t.HeaderVersion, Files: []*FileResult{}}
	n := newNames(t)
	for _, p := range paths {
		res := readFile(p, opt)
		rep.Files = append(rep.Files, res)
		all := n.findings(res.Tables, &res.Found)
		fn(res, all)
		for range all { // count what fn left
		}
		rep.Rows += res.Rows
		rep.Findings += res.Found
		rep.Status = max(rep.Status, res.Status())
	}
	return rep
}

// readFile reads a file's tables, or why it has none.
func readFile(path string, opt Options) *FileResult {
	res := &FileResult{File: path, Tables: []*Table{}, Findings: []Finding{}}
	src, err := ReadSource(path, opt)
	if err != nil {
		res.Error = err.Error()
		return res
	}
	tables, macros := Parse(path, src)
	for _, m := range macros {
		res.Notes = append(res.Notes, fmt.Sprintf("%s:%d: note: macro %s builds enumerant names; rows it generates are not read", path, m.Line, m.Name))
	}
	if len(tables) == 0 {
		res.NoTable = "no debug-report <-> object-type table; shapes read are " + strings.Join(ShapesRead, "; ")
		if len(macros) > 0 {
			res.NoTable += fmt.Sprintf("; the table may be hidden behind macro %s (line %d)", macros[0].Name, macros[0].Line)
		}
		return res
	}
	res.Tables = tables
	for _, tb := range tables {
		res.Rows += len(tb.Rows)
	}
	return res
}

// findings checks the tables one at a time as the sequence is read; a
// read resumes where the last one stopped, and *found counts what it gave.
func (n *names) findings(tables []*Table, found *int) iter.Seq[Finding] {
	order := slices.Clone(tables)
	slices.SortStableFunc(order, func(a, b *Table) int { return a.Line - b.Line })
	var table []Finding // the current table's findings not yet given
	return func(yield func(Finding) bool) {
		for {
			for len(table) > 0 {
				f := table[0]
				table = table[1:]
				*found++
				if !yield(f) {
					return
				}
			}
			if len(order) == 0 {
				return
			}
			table = n.check(order[0])
			slices.SortStableFunc(table, func(a, b Finding) int { return a.Line - b.Line })
			order = order[1:]
		}
	}
}

// Summary is a one-line description of a file's tables.
func (r *FileResult) Summary() string {
	var parts []string
	for _, t := range r.Tables {
		parts = append(parts, fmt.Sprintf("%s %s at line %d (%d rows)", t.Shape, t.Direction(), t.Line, len(t.Rows)))
	}
	return strings.Join(parts, "; ")
}
