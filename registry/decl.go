package registry

import (
	"strconv"
	"strings"
)

// Decl is one typed C declaration: a command parameter, a struct or union
// member, or a funcpointer parameter. It is read from the XML elements
// (<type>, <name>, <enum>) and the text between them, so generators never
// parse C.
type Decl struct {
	Name string
	Type string // base type name: VkBuffer, uint32_t, void, char
	// Struct is set when the registry writes the elaborated form
	// ("struct VkBaseOutStructure* pNext").
	Struct   bool
	Pointers int // pointer depth: 2 for "const char* const*"
	// Const has Pointers+1 entries: Const[0] qualifies the base type,
	// Const[i] the i-th pointer ("const char* const* p": true, true, false).
	Const []bool
	// Array are the fixed array dimensions, outermost first
	// ("float matrix[3][4]": 3, 4).
	Array    []ArrayDim
	BitWidth int // bitfield width ("uint32_t mask:8"), 0 for none
	Len      string
	AltLen   string
	// Optional is the optional attribute per level ("true,false").
	Optional       []bool
	ExternSync     string // "true", or the members named
	NoAutoValidity bool
	// Values is the sType value a struct's sType member must hold.
	Values string
	// Selector names the member choosing a union member; Selection lists
	// the selector values choosing this union member.
	Selector  string
	Selection []string
}

// ArrayDim is one fixed array dimension: a number, or an API constant and
// its value.
type ArrayDim struct {
	Size  int
	Const string // VK_MAX_EXTENSION_NAME_SIZE, "" for a literal size
}

// IsConst reports whether a level of the declaration is const: 0 the base
// type, i the i-th pointer.
func (d *Decl) IsConst(level int) bool { return level < len(d.Const) && d.Const[level] }

// CType is the declaration's C type without its name, arrays included
// ("const char* const*", "char[256]").
func (d *Decl) CType() string {
	var sb strings.Builder
	d.writeType(&sb)
	d.writeArrays(&sb)
	return sb.String()
}

// C renders the declaration as the C headers write it:
// "const VkAllocationCallbacks* pAllocator", "char name[VK_MAX_EXTENSION_NAME_SIZE]".
func (d *Decl) C() string {
	var sb strings.Builder
	d.writeType(&sb)
	sb.WriteString(" " + d.Name)
	d.writeArrays(&sb)
	if d.BitWidth > 0 {
		sb.WriteString(":" + strconv.Itoa(d.BitWidth))
	}
	return sb.String()
}

func (d *Decl) writeType(sb *strings.Builder) {
	if d.IsConst(0) {
		sb.WriteString("const ")
	}
	if d.Struct {
		sb.WriteString("struct ")
	}
	sb.WriteString(d.Type)
	for i := 1; i <= d.Pointers; i++ {
		sb.WriteString("*")
		if d.IsConst(i) {
			sb.WriteString(" const")
		}
	}
}

func (d *Decl) writeArrays(sb *strings.Builder) {
	for _, a := range d.Array {
		if a.Const != "" {
			sb.WriteString("[" + a.Const + "]")
		} else {
			sb.WriteString("[" + strconv.Itoa(a.Size) + "]")
		}
	}
}

// parseDecl reads one declaration from toks: qualifiers, base type,
// pointers, name, array dimensions, bitfield width. The name is a <name>
// element, or plain text where plainName is set (the parameters of C-text
// funcpointers). It returns a message (not an error: the caller knows the
// position) when toks is no declaration.
func parseDecl(toks []token, plainName bool) (Decl, string) {
	d := Decl{Const: []bool{false}}
	i := 0
	for ; i < len(toks); i++ {
		if t := toks[i]; t.is(tokIdent, "const") {
			d.Const[0] = true
		} else if t.is(tokIdent, "struct") {
			d.Struct = true
		} else {
			break
		}
	}
	if t := tokenAt(toks, i); t.kind == tokType || t.kind == tokIdent {
		d.Type = t.text
		i++
	} else {
		return d, "no base type"
	}
	for ; i < len(toks); i++ {
		t := toks[i]
		if t.is(tokPunct, "*") {
			d.Pointers++
			d.Const = append(d.Const, false)
		} else if t.is(tokIdent, "const") {
			d.Const[d.Pointers] = true
		} else {
			break
		}
	}
	if t := tokenAt(toks, i); t.kind == tokName || (plainName && t.kind == tokIdent) {
		d.Name = t.text
		i++
	} else {
		return d, "no <name>"
	}
	for tokenAt(toks, i).is(tokPunct, "[") {
		size := tokenAt(toks, i+1)
		if !tokenAt(toks, i+2).is(tokPunct, "]") {
			return d, "array dimension is not closed by ]"
		}
		switch size.kind {
		case tokNum:
			n, err := strconv.Atoi(size.text)
			if err != nil || n <= 0 {
				return d, "array size " + size.text + " is not a positive number"
			}
			d.Array = append(d.Array, ArrayDim{Size: n})
		case tokEnum:
			d.Array = append(d.Array, ArrayDim{Const: size.text})
		default:
			return d, "array size " + strconv.Quote(size.text) + " is neither a number nor an <enum> constant"
		}
		i += 3
	}
	if tokenAt(toks, i).is(tokPunct, ":") {
		w := tokenAt(toks, i+1)
		n, err := strconv.Atoi(w.text)
		if w.kind != tokNum || err != nil || n <= 0 || n > 64 {
			return d, "bitfield width " + strconv.Quote(w.text) + " is not a number from 1 to 64"
		}
		d.BitWidth = n
		i += 2
	}
	if i < len(toks) {
		return d, "unexpected " + strconv.Quote(toks[i].text) + " after the declaration"
	}
	return d, ""
}

// tokenAt is toks[i], or the end token past the end.
func tokenAt(toks []token, i int) token {
	if i < len(toks) {
		return toks[i]
	}
	return token{}
}

// parseOptional reads "true,false" into one flag per level.
func parseOptional(s string) []bool {
	var out []bool
	for _, f := range splitList(s) {
		out = append(out, f == "true")
	}
	return out
}
