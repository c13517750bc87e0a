package audit

import (
	"fmt"
	"sort"

	"github.com/vkgen/vkgen/gen/objtypes"
)

// expected is one row the registry says a table needs: key -> value,
// where the key is the debug-report value of a forward table and the
// object type of a reverse one.
type expected struct {
	key, value           string
	keyValue, valueValue int64
	addedBy              string
}

// placed is a row whose key resolved, for placing missing rows.
type placed struct {
	line  int
	name  string
	value int64
}

// minTable is the fewest rows held to completeness: a construct with a
// single pair (if (t == VK_OBJECT_TYPE_BUFFER) info.objectType = ...) is a
// special case, not a table, so only its row is checked.
const minTable = 2

// check compares one table with the registry. A value that maps to
// VK_OBJECT_TYPE_UNKNOWN may be left to the default branch and is never
// reported missing.
func (n *names) check(tb *Table) []Finding {
	var out []Finding
	var rows []placed
	var unknown []Row
	covered := map[string]bool{}
	for _, r := range tb.Rows {
		d, dok := n.debugReport(r.DebugReport)
		o, ook := n.objectType(r.ObjectType)
		key, keyOK := d.Name, dok
		if tb.Reverse {
			key, keyOK = o.Name, ook
		}
		if !keyOK {
			unknown = append(unknown, r)
			continue
		}
		covered[key] = true
		if tb.Reverse {
			rows = append(rows, placed{r.Line, o.Name, o.Value})
		} else {
			rows = append(rows, placed{r.Line, d.Name, d.Value})
		}
		switch {
		case !tb.Reverse && !ook:
			out = append(out, n.notInRegistry(r, 'O', fmt.Sprintf("%s maps to %s, which", r.DebugReport, r.ObjectType)))
		case tb.Reverse && !dok:
			out = append(out, n.notInRegistry(r, 'D', fmt.Sprintf("%s maps to %s, which", r.ObjectType, r.DebugReport)))
		case !tb.Reverse && d.ObjectType != "" && o.Name != d.ObjectType:
			out = append(out, Finding{File: r.File, Line: r.Line, Kind: Wrong, DebugReport: d.Name, ObjectType: o.Name, Got: r.ObjectType, Want: d.ObjectType,
				Message: fmt.Sprintf("%s maps to %s (%d); the registry maps it to %s (%d)", spell(r.DebugReport, d.Name), o.Name, o.Value, d.ObjectType, d.ObjectTypeValue)})
		case tb.Reverse:
			if f, bad := n.wrongReverse(r, o, d); bad {
				out = append(out, f)
			}
		}
	}
	var missing []expected
	if len(tb.Rows) >= minTable {
		missing = n.expectations(tb.Reverse, covered)
	}
	for _, u := range unknown {
		written := u.DebugReport
		if tb.Reverse {
			written = u.ObjectType
		}
		if i := n.renamed(tb.Reverse, u, missing); i >= 0 {
			m := missing[i]
			missing = append(missing[:i], missing[i+1:]...)
			f := Finding{File: u.File, Line: u.Line, Kind: Renamed, Got: written,
				Message: fmt.Sprintf("%s is %s (%d) in this registry (VK_HEADER_VERSION %d): the value was renamed between registry versions; spell it as the registry does, or keep both spellings behind a VK_HEADER_VERSION guard",
					written, m.key, m.keyValue, n.t.HeaderVersion)}
			f.setKey(tb.Reverse, m.key)
			out = append(out, f)
			continue
		}
		kind := byte('D')
		if tb.Reverse {
			kind = 'O'
		}
		out = append(out, n.notInRegistry(u, kind, written+", which"))
	}
	for _, m := range missing {
		line, where := insertPoint(tb, rows, m.keyValue)
		f := Finding{File: tb.File, Line: line, Kind: Missing, Want: m.value, AddedBy: m.addedBy,
			Message: fmt.Sprintf("no row for %s (%d, added by %s) -> %s (%d); add it %s", m.key, m.keyValue, m.addedBy, m.value, m.valueValue, where)}
		f.setKey(tb.Reverse, m.key)
		out = append(out, f)
	}
	return out
}

// setKey files the key name under the enum it belongs to.
func (f *Finding) setKey(reverse bool, key string) {
	if reverse {
		f.ObjectType = key
	} else {
		f.DebugReport = key
	}
}

// wrongReverse checks an object type -> debug-report row: the registry's
// debug-report value, or UNKNOWN_EXT for object types that have none.
func (n *names) wrongReverse(r Row, o objtypes.ObjectType, d objtypes.DebugReportType) (Finding, bool) {
	f := Finding{File: r.File, Line: r.Line, Kind: Wrong, DebugReport: d.Name, ObjectType: o.Name, Got: r.DebugReport}
	want, has := n.revD[o.Name]
	switch {
	case has && d.Value != want.Value:
		f.Want = want.Name
		f.Message = fmt.Sprintf("%s maps to %s (%d); the registry maps it to %s (%d)", spell(r.ObjectType, o.Name), d.Name, d.Value, want.Name, want.Value)
	case !has && d.Value != 0:
		f.Message = fmt.Sprintf("%s maps to %s (%d); the registry has no %s value for it: map it to %sUNKNOWN_EXT", spell(r.ObjectType, o.Name), d.Name, d.Value, objtypes.DebugReportEnum, objtypes.DebugReportPrefix)
	default:
		return Finding{}, false
	}
	return f, true
}

// expectations lists the rows a table of this direction needs and lacks,
// ascending by key value.
func (n *names) expectations(reverse bool, covered map[string]bool) []expected {
	var out []expected
	for _, d := range n.t.DebugReport {
		if d.ObjectType == "" || d.ObjectTypeValue == 0 {
			continue
		}
		e := expected{key: d.Name, value: d.ObjectType, keyValue: d.Value, valueValue: d.ObjectTypeValue, addedBy: d.AddedBy}
		if reverse {
			if n.revD[d.ObjectType].Name != d.Name {
				continue // another debug-report value already maps to it
			}
			o, _ := n.t.ObjectTypeByName(d.ObjectType)
			e = expected{key: o.Name, value: d.Name, keyValue: o.Value, valueValue: d.Value, addedBy: o.AddedBy}
		}
		if !covered[e.key] {
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].keyValue < out[j].keyValue })
	return out
}

// renamed finds the missing row an unknown key stands for: the one whose
// value the row maps to, or whose name has the same stem.
func (n *names) renamed(reverse bool, u Row, missing []expected) int {
	written, val := u.DebugReport, ""
	if o, ok := n.objectType(u.ObjectType); ok {
		val = o.Name
	}
	if reverse {
		written, val = u.ObjectType, ""
		if d, ok := n.debugReport(u.DebugReport); ok {
			val = d.Name
		}
	}
	for i, m := range missing {
		if (val != "" && m.value == val) || stem(written) == stem(m.key) {
			return i
		}
	}
	return -1
}

// notInRegistry reports a name the registry lacks and says what to do.
// subject reads "X maps to Y, which" or "X, which".
func (n *names) notInRegistry(r Row, kind byte, subject string) Finding {
	enum, written := objtypes.DebugReportEnum, r.DebugReport
	if kind == 'O' {
		enum, written = objtypes.ObjectTypeEnum, r.ObjectType
	}
	var action string
	if ext, ok := retired[stem(written)]; ok {
		action = fmt.Sprintf("it was defined by %s, which the registry no longer has: remove the row, or guard it with #ifdef %s while the code still builds against headers that define it", ext, ext)
	} else if near := n.nearest(kind, written); near != "" {
		action = fmt.Sprintf("did you mean %s? fix the spelling", near)
	} else {
		action = fmt.Sprintf("remove the row if it is stale; if the name comes from newer headers, guard the row with #if VK_HEADER_VERSION > %d (or #ifdef the extension that adds it)", n.t.HeaderVersion)
	}
	f := Finding{File: r.File, Line: r.Line, Kind: NotInRegistry, DebugReport: r.DebugReport, ObjectType: r.ObjectType, Got: written,
		Message: fmt.Sprintf("%s is not a %s value of this registry (VK_HEADER_VERSION %d): %s", subject, enum, n.t.HeaderVersion, action)}
	return f
}

// spell is how a finding names a row's key: as written, with the
// registry's name for a positional array's element.
func spell(written, name string) string {
	if _, ok := position(written); ok {
		return fmt.Sprintf("element %s (%s)", written, name)
	}
	return written
}

// insertPoint says where a missing row with key value v belongs: after the
// row with the nearest lower value when the table is in value order
// (before the first row when v is the smallest), else at the table's end.
func insertPoint(tb *Table, rows []placed, v int64) (int, string) {
	if tb.Shape == ShapeArray {
		if v >= 1<<16 {
			return tb.EndLine, fmt.Sprintf("to another table shape: an array read by position cannot hold value %d", v)
		}
		return tb.EndLine, fmt.Sprintf("as element [%d] (the array ends at line %d)", v, tb.EndLine)
	}
	sorted := len(rows) > 0
	for i := 1; i < len(rows); i++ {
		if rows[i].value < rows[i-1].value {
			sorted = false
		}
	}
	if !sorted {
		return tb.EndLine, fmt.Sprintf("at the end of the table (line %d)", tb.EndLine)
	}
	prev := -1
	for i, r := range rows {
		if r.value < v {
			prev = i
		}
	}
	if prev < 0 {
		return rows[0].line, fmt.Sprintf("before line %d (%s, %d)", rows[0].line, rows[0].name, rows[0].value)
	}
	r := rows[prev]
	return r.line, fmt.Sprintf("after line %d (%s, %d)", r.line, r.name, r.value)
}
