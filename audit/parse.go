package audit

import (
	"iter"
	"sort"
	"strconv"
)

// Shape names the construct a table was read from.
type Shape string

const (
	ShapeSwitch     Shape = "switch"      // switch/case (C, C++, Go), match (Rust), switch arms (Zig)
	ShapeIfChain    Shape = "if-chain"    // if / else if on either operand order
	ShapePairs      Shape = "pairs"       // {D, O} / (D, O) / make_pair(D, O) in an initialiser list
	ShapeMap        Shape = "map-literal" // Go map literal D: O
	ShapeDesignated Shape = "designated"  // [D] = O in an initialiser
	ShapeIndexed    Shape = "indexed"     // m[D] = O; statements
	ShapeArray      Shape = "array"       // VkObjectType a[VK_DEBUG_REPORT_..._RANGE_SIZE_EXT] = {O0, O1, ...}
)

// ShapesRead lists the constructs read, for "vkgen audit --help" and the
// no-table message.
var ShapesRead = []string{
	"switch/case and match arms (returns or assignments, fallthrough, default)",
	"if/else-if chains (t == X or X == t)",
	"{X, Y} and (X, Y) pairs in initialiser lists (arrays, std::map/unordered_map, make_pair, Rust tuples)",
	"[X] = Y designated initialisers and m[X] = Y; assignments",
	"arrays sized by the other enum (T a[VK_..._RANGE_SIZE_EXT] = {Y0, Y1, ...}, read by position)",
	"Go map literals X: Y",
}

// Row is one mapping row read from a table.
type Row struct {
	File        string `json:"-"`
	Line        int    `json:"line"`
	DebugReport string `json:"debug_report"` // as written
	ObjectType  string `json:"object_type"`  // as written
}

// Table is the rows of one construct, in one direction.
type Table struct {
	File    string `json:"-"`
	Line    int    `json:"line"`     // where the construct starts
	EndLine int    `json:"end_line"` // where it ends
	Shape   Shape  `json:"shape"`
	// Reverse is true for VkObjectType -> VkDebugReportObjectTypeEXT tables.
	Reverse bool  `json:"reverse"`
	Rows    []Row `json:"rows"`
}

// Direction is "debug-report -> object-type" or its reverse.
func (t *Table) Direction() string {
	if t.Reverse {
		return "object-type -> debug-report"
	}
	return "debug-report -> object-type"
}

// parser finds tables in one file's tokens. open is the stack of brackets
// open at the token the main loop is at (innermost last): what encloses
// the constructs read there.
type parser struct {
	*source
	file   string
	open   []int32
	tables map[tableKey]*Table
	// decl is the enum of each name declared so far as "name: Type"
	// (Zig and Rust parameters), for switches over inferred literals.
	decl map[string]byte
}

type tableKey struct {
	at      int32 // the token that opens the construct
	reverse bool
}

// ref is a reference as a row holds it; kind 0 when it is none.
type ref struct {
	text string
	line int
	kind byte
}

// refAt is token i as a row's reference, kind 0 when it cannot be one.
func (p *parser) refAt(i int) ref {
	if !p.isRef(i) {
		return ref{}
	}
	return ref{text: p.text(i), line: p.line(i), kind: p.kind(i)}
}

// Parse finds every mapping table of one file, in source order, and the
// macros that may generate rows it cannot see. It reads at most the first
// 4 GiB of src (ReadSource never gives more).
func Parse(file, src string) ([]*Table, []Macro) {
	s, macros := tokenize(src[:min(int64(len(src)), maxSource)])
	p := &parser{source: s, file: file, open: make([]int32, 0, s.depth), tables: map[tableKey]*Table{}, decl: map[string]byte{}}
	for i := range s.toks {
		if i+2 < len(s.toks) && p.is(i+1, ":") && isIdentStart(p.first(i)) {
			if k := enumType(p.text(i + 2)); k != 0 {
				p.decl[p.text(i)] = k
			}
		}
		switch p.first(i) {
		case 's', 'm':
			if p.is(i, "switch") || p.is(i, "match") {
				p.switchAt(i)
			}
		case 'i':
			if p.is(i, "if") {
				p.ifAt(i)
			}
		case '{':
			p.braceAt(i)
			p.open = append(p.open, int32(i))
		case '(':
			p.tupleAt(i)
			p.open = append(p.open, int32(i))
		case '[':
			p.bracketAt(i)
			p.open = append(p.open, int32(i))
		case ')', ']', '}':
			if p.partner(i) >= 0 {
				p.open = p.open[:len(p.open)-1]
			}
		}
	}
	out := make([]*Table, 0, len(p.tables))
	for _, t := range p.tables {
		sort.SliceStable(t.Rows, func(i, j int) bool { return t.Rows[i].Line < t.Rows[j].Line })
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Line != out[j].Line {
			return out[i].Line < out[j].Line
		}
		return !out[i].Reverse
	})
	return out, macros
}

// parent is the innermost bracket open at the main loop's token, -1 at
// top level.
func (p *parser) parent() int {
	if len(p.open) == 0 {
		return -1
	}
	return int(p.open[len(p.open)-1])
}

// end returns the index of the closer of the bracket at o, or len(toks).
func (p *parser) end(o int) int {
	if m := p.partner(o); m > o {
		return m
	}
	return len(p.toks)
}

// add records the row key -> value in the table opened at token at.
func (p *parser) add(at int, shape Shape, key, value ref) {
	if key.kind == 0 || value.kind == 0 || key.kind == value.kind {
		return
	}
	reverse := key.kind == 'O'
	k := tableKey{int32(at), reverse}
	t := p.tables[k]
	if t == nil {
		t = &Table{File: p.file, Line: p.line(at), Shape: shape, Reverse: reverse}
		t.EndLine = t.Line
		// A table that is its own bracket ends at the closer; rows of an if
		// chain or of assignments end at the last row, not at the function's end.
		if e := p.end(at); e < len(p.toks) && shape != ShapeIfChain && shape != ShapeIndexed {
			t.EndLine = p.line(e)
		}
		p.tables[k] = t
	}
	r := Row{File: p.file, Line: key.line, DebugReport: key.text, ObjectType: value.text}
	if reverse {
		r.DebugReport, r.ObjectType = value.text, key.text
	}
	t.Rows = append(t.Rows, r)
	t.EndLine = max(t.EndLine, value.line)
}

// next is the index of the token after toks[i] at the same depth: past
// the whole group when toks[i] opens one (len(toks) when it is unclosed).
func (p *parser) next(i int) int {
	if i >= len(p.toks) {
		return len(p.toks)
	}
	if m := p.partner(i); m > i {
		return m + 1
	}
	if p.isOpener(i) {
		return len(p.toks)
	}
	return i + 1
}

// elements yields the comma-separated elements of the bracket group at o
// as [from, to) token ranges. It visits only the group's direct children,
// so every group of a file together costs one pass, and holds none: a
// list can have an element every two bytes.
func (p *parser) elements(o int) iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		e := p.end(o)
		for from := o + 1; from < e; {
			to := from
			for to < e && !p.is(to, ",") {
				to = p.next(to)
			}
			to = min(to, e)
			if !yield(from, to) || to == e {
				return
			}
			from = to + 1
		}
	}
}

// single returns the one reference of an element: "R", ".field = R" or
// "field: R" (a struct field). ok is false for anything else.
func (p *parser) single(from, to int) (int, bool) {
	switch {
	case to-from == 1:
		return from, p.isRef(from)
	case to-from == 3 && p.is(from+1, ":") && p.kind(from) == 0:
		return from + 2, p.isRef(from + 2)
	case to-from == 4 && p.is(from, ".") && p.is(from+2, "="):
		return from + 3, p.isRef(from + 3)
	}
	return 0, false
}

// braceAt reads a brace group: a two-element pair {X, Y} (a row of the
// enclosing list), or a list of "X: Y" / "[X] = Y" entries.
func (p *parser) braceAt(o int) {
	var pair [2][2]int
	n := 0
	for from, to := range p.elements(o) {
		if n == 2 {
			n++
			break
		}
		pair[n] = [2]int{from, to}
		n++
	}
	if n == 2 {
		a, okA := p.single(pair[0][0], pair[0][1])
		b, okB := p.single(pair[1][0], pair[1][1])
		if okA && okB {
			p.add(p.container(o), ShapePairs, p.refAt(a), p.refAt(b))
			return
		}
	}
	if p.positional(o) {
		return
	}
	for from, to := range p.elements(o) {
		switch {
		case to-from == 3 && p.is(from+1, ":"):
			p.add(o, ShapeMap, p.refAt(from), p.refAt(from+2))
		case to-from == 5 && p.is(from, "[") && p.is(from+2, "]") && p.is(from+3, "="):
			p.add(o, ShapeDesignated, p.refAt(from+1), p.refAt(from+4))
		}
	}
}

// positional reads "T a[SIZE] = {V0, V1, ...}" where SIZE names a value of
// the other enum (VK_DEBUG_REPORT_OBJECT_TYPE_RANGE_SIZE_EXT,
// VK_OBJECT_TYPE_MAX_ENUM): element i is the row of value i. Every element
// must be a reference of the same enum; otherwise it is no table.
func (p *parser) positional(o int) bool {
	if o < 3 || !p.is(o-1, "=") || !p.is(o-2, "]") || p.partner(o-2) < 0 {
		return false
	}
	var keyKind byte
	for i := p.partner(o-2) + 1; i < o-2; i++ {
		if k := p.kind(i); k != 0 {
			keyKind = k
			break
		}
	}
	if keyKind == 0 {
		return false
	}
	n := 0
	for from, to := range p.elements(o) {
		if v, ok := p.single(from, to); !ok || p.kind(v) == keyKind {
			return false
		}
		n++
	}
	i := 0
	for from, to := range p.elements(o) {
		v, _ := p.single(from, to)
		p.add(o, ShapeArray, ref{text: "[" + strconv.Itoa(i) + "]", line: p.line(v), kind: keyKind}, p.refAt(v))
		i++
	}
	return n > 0
}

// pairFunc reports whether token i constructs a pair from two arguments.
func (p *parser) pairFunc(i int) bool {
	for _, f := range []string{"make_pair", "pair", "make_tuple", "tuple", ">"} {
		if p.is(i, f) {
			return true
		}
	}
	return false
}

// tupleAt reads (X, Y) as a row when it is a tuple or a pair constructor,
// never a call's arguments: setName(h, X, Y, name) is no row.
func (p *parser) tupleAt(o int) {
	if prev := o - 1; o > 0 && (isIdentStart(p.first(prev)) || p.is(prev, ")") || p.is(prev, "]") || p.is(prev, ">")) && !p.pairFunc(prev) {
		return
	}
	var pair [2][2]int
	n := 0
	for from, to := range p.elements(o) {
		if n == 2 {
			return
		}
		pair[n] = [2]int{from, to}
		n++
	}
	if n != 2 {
		return
	}
	a, okA := p.single(pair[0][0], pair[0][1])
	b, okB := p.single(pair[1][0], pair[1][1])
	if !okA || !okB {
		return
	}
	p.add(p.container(o), ShapePairs, p.refAt(a), p.refAt(b))
}

// container is the list or block a pair or statement belongs to: the
// nearest enclosing brace or square bracket, so that pairs passed to
// insert(...) calls in one function make one table; o itself at top level.
func (p *parser) container(o int) int {
	for k := len(p.open) - 1; k >= 0; k-- {
		if par := int(p.open[k]); !p.is(par, "(") {
			return par
		}
	}
	return o
}

// bracketAt reads the statement m[X] = Y; (a map or array filled by
// assignments) as a row of the enclosing block.
func (p *parser) bracketAt(o int) {
	e := p.end(o)
	if o == 0 || e+2 >= len(p.toks) || e-o != 2 || !p.is(e+1, "=") {
		return
	}
	if prev := o - 1; !isIdentStart(p.first(prev)) && !p.is(prev, "]") && !p.is(prev, ")") {
		return
	}
	p.add(p.container(o), ShapeIndexed, p.refAt(o+1), p.refAt(e+2))
}
