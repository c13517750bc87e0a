package audit

import (
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

// parser finds tables in one file's tokens. match links each bracket to
// its partner (-1 when unmatched); parent is the innermost open bracket
// around each token (-1 at top level).
type parser struct {
	file   string
	toks   []token
	match  []int32
	parent []int32
	tables map[tableKey]*Table
	// decl is the enum of each name declared so far as "name: Type"
	// (Zig and Rust parameters), for switches over inferred literals.
	decl map[string]byte
}

type tableKey struct {
	at      int32 // the token that opens the construct
	reverse bool
}

// Parse finds every mapping table of one file, in source order, and the
// macros that may generate rows it cannot see.
func Parse(file, src string) ([]*Table, []Macro) {
	toks, macros := tokenize(src)
	p := &parser{file: file, toks: toks, tables: map[tableKey]*Table{}, decl: map[string]byte{}}
	p.link()
	for i := range toks {
		if i+2 < len(toks) && toks[i+1].text == ":" && isIdentStart(toks[i].text[0]) {
			if k := enumType(toks[i+2].text); k != 0 {
				p.decl[toks[i].text] = k
			}
		}
		switch toks[i].text {
		case "switch", "match":
			p.switchAt(i)
		case "if":
			p.ifAt(i)
		case "{":
			p.braceAt(i)
		case "(":
			p.tupleAt(i)
		case "[":
			p.bracketAt(i)
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

// link matches brackets with a stack; an unmatched closer is ignored and an
// unclosed opener extends to the end.
func (p *parser) link() {
	n := len(p.toks)
	p.match = make([]int32, n)
	p.parent = make([]int32, n)
	var stack []int32
	for i := range p.toks {
		p.match[i] = -1
		p.parent[i] = -1
		if len(stack) > 0 {
			p.parent[i] = stack[len(stack)-1]
		}
		switch t := p.toks[i].text; t {
		case "(", "[", "{":
			stack = append(stack, int32(i))
		case ")", "]", "}":
			if len(stack) > 0 && p.toks[stack[len(stack)-1]].text == opener(t) {
				o := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				p.match[o], p.match[i] = int32(i), o
				p.parent[i] = p.parent[o]
			}
		}
	}
}

func opener(closer string) string {
	return map[string]string{")": "(", "]": "[", "}": "{"}[closer]
}

// end returns the index of the closer of the bracket at o, or len(toks).
func (p *parser) end(o int) int {
	if m := p.match[o]; m > int32(o) {
		return int(m)
	}
	return len(p.toks)
}

// add records the row key -> value in the table opened at token at.
func (p *parser) add(at int, shape Shape, key, value token) {
	if !key.ref() || !value.ref() || key.kind == value.kind {
		return
	}
	reverse := key.kind == 'O'
	k := tableKey{int32(at), reverse}
	t := p.tables[k]
	if t == nil {
		t = &Table{File: p.file, Line: int(p.toks[at].line), Shape: shape, Reverse: reverse}
		t.EndLine = t.Line
		// A table that is its own bracket ends at the closer; rows of an if
		// chain or of assignments end at the last row, not at the function's end.
		if e := p.end(at); e < len(p.toks) && shape != ShapeIfChain && shape != ShapeIndexed {
			t.EndLine = int(p.toks[e].line)
		}
		p.tables[k] = t
	}
	r := Row{File: p.file, Line: int(key.line), DebugReport: key.text, ObjectType: value.text}
	if reverse {
		r.DebugReport, r.ObjectType = value.text, key.text
	}
	t.Rows = append(t.Rows, r)
	t.EndLine = max(t.EndLine, int(value.line))
}

// next is the index of the token after toks[i] at the same depth: past
// the whole group when toks[i] opens one (len(toks) when it is unclosed).
func (p *parser) next(i int) int {
	if i >= len(p.toks) {
		return len(p.toks)
	}
	if m := p.match[i]; m > int32(i) {
		return int(m) + 1
	}
	if t := p.toks[i].text; t == "(" || t == "[" || t == "{" {
		return len(p.toks)
	}
	return i + 1
}

// elements splits the bracket group at o into its comma-separated
// elements as [from, to) token ranges, stopping after limit elements.
// It visits only the group's direct children, so every group of a file
// together costs one pass.
func (p *parser) elements(o, limit int) [][2]int {
	var out [][2]int
	from, e := o+1, p.end(o)
	for i := from; i < e && len(out) < limit; i = p.next(i) {
		if p.toks[i].text == "," {
			out = append(out, [2]int{from, i})
			from = i + 1
		}
	}
	if from < e && len(out) < limit {
		out = append(out, [2]int{from, e})
	}
	return out
}

// single returns the one reference of an element: "R", ".field = R" or
// "field: R" (a struct field). ok is false for anything else.
func (p *parser) single(el [2]int) (token, bool) {
	t := p.toks[el[0]:el[1]]
	switch {
	case len(t) == 1:
		return t[0], t[0].ref()
	case len(t) == 3 && t[1].text == ":" && t[0].kind == 0:
		return t[2], t[2].ref()
	case len(t) == 4 && t[0].text == "." && t[2].text == "=":
		return t[3], t[3].ref()
	}
	return token{}, false
}

// braceAt reads a brace group: a two-element pair {X, Y} (a row of the
// enclosing list), or a list of "X: Y" / "[X] = Y" entries.
func (p *parser) braceAt(o int) {
	els := p.elements(o, 1<<30)
	if len(els) == 2 {
		a, okA := p.single(els[0])
		b, okB := p.single(els[1])
		if okA && okB {
			p.add(p.container(o), ShapePairs, a, b)
			return
		}
	}
	if p.positional(o, els) {
		return
	}
	for _, el := range els {
		t := p.toks[el[0]:el[1]]
		switch {
		case len(t) == 3 && t[1].text == ":":
			p.add(o, ShapeMap, t[0], t[2])
		case len(t) == 5 && t[0].text == "[" && t[2].text == "]" && t[3].text == "=":
			p.add(o, ShapeDesignated, t[1], t[4])
		}
	}
}

// positional reads "T a[SIZE] = {V0, V1, ...}" where SIZE names a value of
// the other enum (VK_DEBUG_REPORT_OBJECT_TYPE_RANGE_SIZE_EXT,
// VK_OBJECT_TYPE_MAX_ENUM): element i is the row of value i. Every element
// must be a reference of the same enum; otherwise it is no table.
func (p *parser) positional(o int, els [][2]int) bool {
	if o < 3 || p.toks[o-1].text != "=" || p.toks[o-2].text != "]" || p.match[o-2] < 0 {
		return false
	}
	var keyKind byte
	for i := int(p.match[o-2]) + 1; i < o-2; i++ {
		if k := p.toks[i].kind; k != 0 {
			keyKind = k
			break
		}
	}
	if keyKind == 0 {
		return false
	}
	vals := make([]token, 0, len(els))
	for _, el := range els {
		v, ok := p.single(el)
		if !ok || v.kind == keyKind {
			return false
		}
		vals = append(vals, v)
	}
	for i, v := range vals {
		p.add(o, ShapeArray, token{text: "[" + strconv.Itoa(i) + "]", line: v.line, kind: keyKind}, v)
	}
	return len(vals) > 0
}

// pairFuncs construct a pair from two arguments.
var pairFuncs = map[string]bool{"make_pair": true, "pair": true, "make_tuple": true, "tuple": true, ">": true}

// tupleAt reads (X, Y) as a row when it is a tuple or a pair constructor,
// never a call's arguments: setName(h, X, Y, name) is no row.
func (p *parser) tupleAt(o int) {
	if o > 0 {
		prev := p.toks[o-1]
		if (isIdentStart(prev.text[0]) || prev.text == ")" || prev.text == "]" || prev.text == ">") && !pairFuncs[prev.text] {
			return
		}
	}
	els := p.elements(o, 3)
	if len(els) != 2 {
		return
	}
	a, okA := p.single(els[0])
	b, okB := p.single(els[1])
	if !okA || !okB {
		return
	}
	p.add(p.container(o), ShapePairs, a, b)
}

// container is the list or block a pair or statement belongs to: the
// nearest enclosing brace or square bracket, so that pairs passed to
// insert(...) calls in one function make one table; o itself at top level.
func (p *parser) container(o int) int {
	for par := p.parent[o]; par >= 0; par = p.parent[par] {
		if p.toks[par].text != "(" {
			return int(par)
		}
	}
	return o
}

// bracketAt reads the statement m[X] = Y; (a map or array filled by
// assignments) as a row of the enclosing block.
func (p *parser) bracketAt(o int) {
	e := p.end(o)
	if o == 0 || e+2 >= len(p.toks) || e-o != 2 || p.toks[e+1].text != "=" {
		return
	}
	if prev := p.toks[o-1].text; !isIdentStart(prev[0]) && prev != "]" && prev != ")" {
		return
	}
	p.add(p.container(o), ShapeIndexed, p.toks[o+1], p.toks[e+2])
}
