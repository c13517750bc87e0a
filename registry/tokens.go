package registry

import (
	"github.com/beevik/etree"
)

type tokKind int

const (
	tokEnd   tokKind = iota
	tokType          // <type>T</type>
	tokName          // <name>n</name>
	tokEnum          // <enum>CONST</enum>
	tokIdent         // identifier in text: const, struct, a plain parameter name
	tokNum           // decimal number in text
	tokPunct         // one of * [ ] : ( ) , ;
	tokOther         // anything else (#, <, @ in preprocessor text)
)

type token struct {
	kind tokKind
	text string
}

func (t token) is(k tokKind, s string) bool { return t.kind == k && t.text == s }

// tokens flattens el's children into declaration tokens: <type>, <name> and
// <enum> children are single tokens, the text between them is lexed, and
// <comment>s are skipped.
func tokens(el *etree.Element) []token {
	var out []token
	for _, c := range el.Child {
		switch t := c.(type) {
		case *etree.CharData:
			out = lex(out, t.Data)
		case *etree.Element:
			switch t.Tag {
			case "type":
				out = append(out, token{tokType, t.Text()})
			case "name":
				out = append(out, token{tokName, t.Text()})
			case "enum":
				out = append(out, token{tokEnum, t.Text()})
			}
		}
	}
	return out
}

func lex(out []token, s string) []token {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case isIdentStart(c):
			j := i + 1
			for j < len(s) && (isIdentStart(s[j]) || isDigit(s[j])) {
				j++
			}
			out = append(out, token{tokIdent, s[i:j]})
			i = j
		case isDigit(c):
			j := i + 1
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			out = append(out, token{tokNum, s[i:j]})
			i = j
		case c == '*' || c == '[' || c == ']' || c == ':' || c == '(' || c == ')' || c == ',' || c == ';':
			out = append(out, token{tokPunct, s[i : i+1]})
			i++
		default:
			out = append(out, token{tokOther, s[i : i+1]})
			i++
		}
	}
	return out
}

func isIdentStart(c byte) bool { return c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z') }
func isDigit(c byte) bool      { return c >= '0' && c <= '9' }
