package audit

import (
	"math"
	"strings"

	"github.com/vkgen/vkgen/gen/objtypes"
)

// token is one identifier, number or punctuator of the source, in eight
// bytes whatever its length (a file of one-character tokens has one per
// byte): where its text starts, and a word whose meaning depends on the
// first byte there. For a bracket it is the index of its partner (none
// when unmatched), for another punctuator its length, for an identifier
// or number its kind and flags (the end is where the identifier ends).
//
// An enum reference (kind 'D' or 'O') is a C name (VK_OBJECT_TYPE_BUFFER),
// a Go constant (ObjectTypeBuffer) or an enum-qualified member
// ("ObjectType::BUFFER", "ObjectType.buffer"): a qualified token starts
// at the enum's name and its text is the three tokens' texts joined.
type token struct {
	off uint32
	aux uint32
}

const (
	none      = math.MaxUint32 // no partner: an unmatched bracket
	sentinel  = 1 << 8         // a header range or MAX_ENUM value: never a row
	qualified = 1 << 9         // Type::member or Type.member
)

// maxSource is the most source a token's 32-bit offsets can address.
const maxSource = math.MaxUint32

// source is a file's text and its tokens, found by index.
type source struct {
	src   string
	toks  []token
	lines lineIndex
	depth int // the most brackets open at once
}

// Macro is a preprocessor definition that pastes or spells enumerant names:
// rows it generates are invisible to a reader of source text.
type Macro struct {
	Line int
	Name string
}

// tokenize splits src into tokens, links brackets and reports the macros
// that may hide rows. It is linear in len(src). The tokens are counted
// first so that they are allocated once: growing the slice would hold
// the old and the new one at once.
func tokenize(src string) (*source, []Macro) {
	s := &source{src: src, lines: newLineIndex(src)}
	n := 0
	for l := (lexer{src: src, lineStart: true}); ; n++ {
		if _, _, ok := l.next(nil); !ok {
			break
		}
	}
	s.toks = make([]token, 0, n)
	var macros []Macro
	directive := func(from, to int) {
		if m, ok := pastingMacro(src[from:to], s.lines.line(from)); ok {
			macros = append(macros, m)
		}
	}
	for l := (lexer{src: src, lineStart: true}); ; {
		from, to, ok := l.next(directive)
		if !ok {
			break
		}
		if isIdentByte(src[from]) {
			s.appendIdent(from, to)
		} else {
			s.toks = append(s.toks, token{off: uint32(from), aux: uint32(to - from)})
		}
	}
	s.link()
	return s, macros
}

// appendIdent appends an identifier, folding qualifiers: "pkg.", "ns::" and
// "vk::" disappear, and a member of one of the two enums ("ObjectType::eBuffer",
// "DebugReportObjectTypeEXT.buffer_ext") becomes one reference token.
func (s *source) appendIdent(from, to int) {
	if n := len(s.toks); n >= 2 && (s.is(n-1, ".") || s.is(n-1, "::")) && isIdentStart(s.first(n-2)) && s.kind(n-2) == 0 {
		if kind := enumType(s.text(n - 2)); kind != 0 {
			s.toks = append(s.toks[:n-2], token{off: s.toks[n-2].off, aux: uint32(kind) | qualified})
			return
		}
		s.toks = s.toks[:n-2]
	}
	kind, isSentinel := kindOf(s.src[from:to])
	t := token{off: uint32(from), aux: uint32(kind)}
	if isSentinel {
		t.aux |= sentinel
	}
	s.toks = append(s.toks, t)
}

// link matches brackets; an unmatched closer is ignored and an unclosed
// opener extends to the end. The stack of open brackets is threaded
// through the openers' partner words, so linking allocates nothing.
func (s *source) link() {
	top, depth := uint32(none), 0
	for i := range s.toks {
		t := &s.toks[i]
		switch c := s.src[t.off]; c {
		case '(', '[', '{':
			t.aux, top = top, uint32(i)
			depth++
			s.depth = max(s.depth, depth)
		case ')', ']', '}':
			t.aux = none
			if top != none && s.src[s.toks[top].off] == opener(c) {
				o := &s.toks[top]
				top, o.aux, t.aux = o.aux, uint32(i), top
				depth--
			}
		}
	}
	for top != none {
		o := &s.toks[top]
		top, o.aux = o.aux, none
	}
}

func opener(closer byte) byte {
	switch closer {
	case ')':
		return '('
	case ']':
		return '['
	}
	return '{'
}

func isBracket(c byte) bool {
	return c == '(' || c == '[' || c == '{' || c == ')' || c == ']' || c == '}'
}

// first is the first byte of token i's text.
func (s *source) first(i int) byte { return s.src[s.toks[i].off] }

// is reports whether token i's text is text, a keyword or punctuator (a
// qualified reference is never one).
func (s *source) is(i int, text string) bool {
	t, src := s.toks[i], s.src
	off := int(t.off)
	switch c := src[off]; {
	case isIdentByte(c):
		end := off + len(text)
		return t.aux&qualified == 0 && end <= len(src) && src[off:end] == text && (end == len(src) || !isIdentByte(src[end]))
	case isBracket(c):
		return len(text) == 1 && text[0] == c
	}
	return int(t.aux) == len(text) && src[off:off+len(text)] == text
}

// text is token i's text: a substring of the source, unless a qualified
// reference has blanks or comments between its parts.
func (s *source) text(i int) string {
	off, src := int(s.toks[i].off), s.src
	switch c := src[off]; {
	case s.isQualified(i):
		name, sep, member := s.parts(off)
		if name[1] == sep[0] && sep[1] == member[0] {
			return src[name[0]:member[1]]
		}
		return src[name[0]:name[1]] + src[sep[0]:sep[1]] + src[member[0]:member[1]]
	case isIdentByte(c):
		return src[off:identEnd(src, off)]
	case isBracket(c):
		return src[off : off+1]
	}
	return src[off : off+int(s.toks[i].aux)]
}

// isQualified reports whether token i is a qualified reference (flags
// are an identifier's only: a bracket's word is its partner).
func (s *source) isQualified(i int) bool {
	return isIdentByte(s.first(i)) && s.toks[i].aux&qualified != 0
}

// parts are the bounds of the three tokens of a qualified reference that
// starts at off: the enum's name, the separator and the member.
func (s *source) parts(off int) (name, sep, member [2]int) {
	l := lexer{src: s.src, i: off}
	name[0], name[1], _ = l.next(nil)
	sep[0], sep[1], _ = l.next(nil)
	member[0], member[1], _ = l.next(nil)
	return name, sep, member
}

// line is token i's line: a qualified reference's is its member's.
func (s *source) line(i int) int {
	off := int(s.toks[i].off)
	if s.isQualified(i) {
		_, _, m := s.parts(off)
		off = m[0]
	}
	return s.lines.line(off)
}

// kind is 'D' (VkDebugReportObjectTypeEXT) or 'O' (VkObjectType) for a
// token that names one of their values, sentinels included; 0 otherwise.
func (s *source) kind(i int) byte {
	if !isIdentByte(s.first(i)) {
		return 0
	}
	return byte(s.toks[i].aux)
}

// isRef reports whether token i names a value that can be a table row.
func (s *source) isRef(i int) bool {
	return s.kind(i) != 0 && s.toks[i].aux&sentinel == 0
}

// partner is the index of the bracket matching token i, -1 when it has
// none or is no bracket.
func (s *source) partner(i int) int {
	if t := s.toks[i]; isBracket(s.src[t.off]) && t.aux != none {
		return int(t.aux)
	}
	return -1
}

// isOpener reports whether token i opens a bracket group.
func (s *source) isOpener(i int) bool {
	c := s.first(i)
	return c == '(' || c == '[' || c == '{'
}

// isSentinelName reports whether a C enumerant is a header range or
// MAX_ENUM value: a name ending in _BEGIN_RANGE, _END_RANGE, _RANGE_SIZE
// or _MAX_ENUM, with or without _EXT.
func isSentinelName(id string) bool {
	id = strings.TrimSuffix(id, "_EXT")
	for _, s := range []string{"_BEGIN_RANGE", "_END_RANGE", "_RANGE_SIZE", "_MAX_ENUM"} {
		if strings.HasSuffix(id, s) {
			return true
		}
	}
	return false
}

// enumType classifies a type name whose members are qualified by it.
func enumType(id string) byte {
	switch strings.TrimPrefix(id, "Vk") {
	case "DebugReportObjectTypeEXT", "DebugReportObjectType":
		return 'D'
	case "ObjectType":
		return 'O'
	}
	return 0
}

// kindOf classifies an identifier by its spelling alone: a C enumerant by
// its prefix (header sentinels are no rows), a Go constant by its type's
// name followed by a capital.
func kindOf(id string) (kind byte, isSentinel bool) {
	switch {
	case strings.HasPrefix(id, objtypes.DebugReportPrefix):
		return 'D', isSentinelName(id)
	case strings.HasPrefix(id, objtypes.ObjectTypePrefix):
		return 'O', isSentinelName(id)
	case enumType(id) != 0: // the type itself (vk::ObjectType::...), not a value
		return 0, false
	case goConstant(id, "DebugReportObjectType"):
		return 'D', false
	case goConstant(id, "ObjectType"):
		return 'O', false
	}
	return 0, false
}

// goConstant reports whether id is prefix followed by a capital letter.
func goConstant(id, prefix string) bool {
	return len(id) > len(prefix) && strings.HasPrefix(id, prefix) && id[len(prefix)] >= 'A' && id[len(prefix)] <= 'Z'
}

// pastingMacro recognises a #define whose body pastes enumerant names
// (VK_OBJECT_TYPE_##x) or spells both enums (a row in a macro): the rows
// it generates are not in the source text.
func pastingMacro(directive string, line int) (Macro, bool) {
	rest, ok := strings.CutPrefix(strings.TrimLeft(directive[1:], " \t"), "define")
	if !ok {
		return Macro{}, false
	}
	pastes := strings.Contains(rest, "OBJECT_TYPE_##") || strings.Contains(rest, "OBJECT_TYPE_ ##")
	both := strings.Contains(rest, objtypes.DebugReportPrefix) && strings.Contains(strings.ReplaceAll(rest, objtypes.DebugReportPrefix, ""), objtypes.ObjectTypePrefix)
	if !pastes && !both {
		return Macro{}, false
	}
	rest = strings.TrimLeft(rest, " \t")
	end := strings.IndexFunc(rest, func(r rune) bool { return r != '_' && !isIdentStart(byte(r)) && (r < '0' || r > '9') })
	if end < 0 {
		end = len(rest)
	}
	return Macro{Line: line, Name: rest[:end]}, end > 0
}
