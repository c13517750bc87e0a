package audit

import (
	"regexp"
	"strings"

	"github.com/vkgen/vkgen/gen/objtypes"
)

// token is one identifier, number or punctuator of C, C++, Go, Rust or Zig
// source. Comments, string and character literals and preprocessor lines
// are gone. An enum reference (kind 'D' or 'O') keeps its spelling in text:
// a C name (VK_OBJECT_TYPE_BUFFER), a Go constant (ObjectTypeBuffer) or an
// enum-qualified member ("ObjectType::BUFFER", "ObjectType.buffer").
type token struct {
	text     string
	line     int32
	kind     byte // 'D' VkDebugReportObjectTypeEXT, 'O' VkObjectType, 0 otherwise
	sentinel bool // a header range or MAX_ENUM value: never a row
}

// ref reports whether t names a value that can be a table row.
func (t token) ref() bool { return t.kind != 0 && !t.sentinel }

// Macro is a preprocessor definition that pastes or spells enumerant names:
// rows it generates are invisible to a reader of source text.
type Macro struct {
	Line int
	Name string
}

// Operators of two characters that matter to the shapes; others are split.
var twoCharOps = []string{"::", "==", "!=", "=>", "->", "||", "&&", "<=", ">=", "+=", "-=", "|=", "&="}

// tokenize splits src into tokens. It is linear in len(src) and never fails:
// unterminated comments and literals end at the end of the input.
func tokenize(src string) ([]token, []Macro) {
	// Sized for code's density (a token per 6 bytes or so), grown beyond:
	// a slice of the worst case's bound, a token per byte, cost 24 bytes
	// per input byte whatever the input held.
	toks := make([]token, 0, len(src)/6+16)
	var macros []Macro
	line := int32(1)
	lineStart := true // only blanks since the last newline
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n':
			line++
			i++
			lineStart = true
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			i++
			continue
		case lineStart && c == '#' && i+1 < len(src) && (isIdentStart(src[i+1]) || src[i+1] == ' '):
			// A C preprocessor line (not Rust's #[attr]), continued by
			// backslash-newline.
			j := i
			for j < len(src) && src[j] != '\n' {
				if src[j] == '\\' && j+1 < len(src) && src[j+1] == '\n' {
					j++
				}
				j++
			}
			if m, ok := pastingMacro(src[i:j], int(line)); ok {
				macros = append(macros, m)
			}
			line += int32(strings.Count(src[i:j], "\n"))
			i = j
			continue
		}
		lineStart = false
		switch {
		case strings.HasPrefix(src[i:], "//"):
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				end = len(src) - i - 2
			} else {
				end += 2
			}
			line += int32(strings.Count(src[i:i+2+end], "\n"))
			i += 2 + end
		case c == '"' || c == '`' || c == '\'' && !lifetime(src, i):
			j := i + 1
			for j < len(src) && src[j] != c && (c == '`' || src[j] != '\n') {
				if src[j] == '\\' && c != '`' {
					j++
				}
				j++
			}
			j = min(j+1, len(src))
			line += int32(strings.Count(src[i:j], "\n"))
			i = j
		case isIdentStart(c) || c >= '0' && c <= '9':
			j := i
			for j < len(src) && (isIdentStart(src[j]) || src[j] >= '0' && src[j] <= '9') {
				j++
			}
			toks = appendIdent(toks, token{text: src[i:j], line: line})
			i = j
		default:
			n := 1
			for _, op := range twoCharOps {
				if strings.HasPrefix(src[i:], op) {
					n = 2
					break
				}
			}
			toks = append(toks, token{text: src[i : i+n], line: line})
			i += n
		}
	}
	return toks, macros
}

// lifetime reports whether the quote at src[i] starts a Rust lifetime or
// label ('a, 'static) rather than a character literal.
func lifetime(src string, i int) bool {
	j := i + 1
	for j < len(src) && (isIdentStart(src[j]) || src[j] >= '0' && src[j] <= '9') {
		j++
	}
	return j > i+2 && (j >= len(src) || src[j] != '\'')
}

// appendIdent appends an identifier, folding qualifiers: "pkg.", "ns::" and
// "vk::" disappear, and a member of one of the two enums ("ObjectType::eBuffer",
// "DebugReportObjectTypeEXT.buffer_ext") becomes one reference token.
func appendIdent(toks []token, t token) []token {
	if n := len(toks); n >= 2 && (toks[n-1].text == "." || toks[n-1].text == "::") && isIdentStart(toks[n-2].text[0]) && toks[n-2].kind == 0 {
		if kind := enumType(toks[n-2].text); kind != 0 {
			t.text = toks[n-2].text + toks[n-1].text + t.text
			t.kind = kind
			return append(toks[:n-2], t)
		}
		toks = toks[:n-2]
	}
	t.kind, t.sentinel = kindOf(t.text)
	return append(toks, t)
}

var (
	// Header sentinels (MAX_ENUM, the old RANGE values) are not table rows.
	sentinel = regexp.MustCompile(`_(BEGIN_RANGE|END_RANGE|RANGE_SIZE|MAX_ENUM)(_EXT)?$`)
	goDebug  = regexp.MustCompile(`^DebugReportObjectType[A-Z]`)
	goObject = regexp.MustCompile(`^ObjectType[A-Z]`)
)

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

// kindOf classifies an identifier by its spelling alone.
func kindOf(id string) (kind byte, isSentinel bool) {
	switch {
	case strings.HasPrefix(id, objtypes.DebugReportPrefix):
		return 'D', sentinel.MatchString(id)
	case strings.HasPrefix(id, objtypes.ObjectTypePrefix):
		return 'O', sentinel.MatchString(id)
	case enumType(id) != 0: // the type itself (vk::ObjectType::...), not a value
		return 0, false
	case goDebug.MatchString(id):
		return 'D', false
	case goObject.MatchString(id):
		return 'O', false
	}
	return 0, false
}

func isIdentStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

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
