package audit

import "strings"

type token struct {
	text string
	line int
	kind byte // 'D', 'O' for table names, 0 otherwise
}

// tokenize splits C, C++ or Go source into identifiers and punctuation,
// dropping comments, string and character literals and package or
// namespace qualifiers (generated.ObjectTypeBuffer, ns::X).
func tokenize(src string) []token {
	var toks []token
	line := 1
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n':
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			i++
		case strings.HasPrefix(src[i:], "//"):
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				end = len(src) - i - 2
			}
			line += strings.Count(src[i:i+2+end], "\n")
			i += end + 4
		case c == '"' || c == '\'' || c == '`':
			j := i + 1
			for j < len(src) && src[j] != c && (c == '`' || src[j] != '\n') {
				if src[j] == '\\' && c != '`' {
					j++
				}
				j++
			}
			if j > len(src) {
				j = len(src)
			}
			line += strings.Count(src[i:j], "\n")
			i = j + 1
		case isIdentStart(c):
			j := i
			for j < len(src) && (isIdentStart(src[j]) || src[j] >= '0' && src[j] <= '9') {
				j++
			}
			id := src[i:j]
			// A qualifier keeps only the last name: drop "pkg." / "ns::".
			if n := len(toks); n >= 2 && (toks[n-1].text == "." || toks[n-1].text == "::") && toks[n-2].kind == 0 && isIdentStart(toks[n-2].text[0]) {
				toks = toks[:n-2]
			}
			toks = append(toks, token{text: id, line: line, kind: kindOf(id)})
			i = j
		case strings.HasPrefix(src[i:], "::"):
			toks = append(toks, token{text: "::", line: line})
			i += 2
		default:
			toks = append(toks, token{text: string(c), line: line})
			i++
		}
	}
	return toks
}

func isIdentStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// ParseRows finds the mapping rows of one file (see the package comment).
func ParseRows(file, src string) []Row {
	toks := tokenize(src)
	var rows []Row
	for i := 0; i < len(toks); i++ {
		if toks[i].text == "case" {
			var n int
			rows, n = caseRows(file, toks[i:], rows)
			i += n - 1
			continue
		}
		if toks[i].kind != 'D' {
			continue
		}
		// Pair shapes: D , O   D : O   D ] = O
		j := i + 1
		for j < len(toks) && j <= i+3 && strings.Contains(",:]=", toks[j].text) && len(toks[j].text) == 1 {
			j++
		}
		if j > i+1 && j < len(toks) && toks[j].kind == 'O' {
			rows = append(rows, Row{File: file, Line: toks[i].line, DebugReport: toks[i].text, ObjectType: toks[j].text})
			i = j
		}
	}
	return rows
}

// caseRows reads a group of case labels starting at toks[0] == "case" and
// the object type its body yields. Labels whose body yields none (another
// kind of switch) produce no rows. It returns the tokens consumed.
func caseRows(file string, toks []token, rows []Row) ([]Row, int) {
	var labels []token
	statement := false // a statement since the last label: a following case starts a new group
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.text == "case":
			if statement {
				return rows, i
			}
			for i+1 < len(toks) && toks[i+1].text != ":" {
				i++
				if toks[i].kind == 'D' {
					labels = append(labels, toks[i])
				}
			}
			i++ // the colon
		case t.kind == 'O':
			for _, l := range labels {
				rows = append(rows, Row{File: file, Line: l.line, DebugReport: l.text, ObjectType: t.text})
			}
			return rows, i + 1
		case t.text == "default" || t.text == "}" || t.text == "break":
			return rows, i
		case t.text == "fallthrough" || t.text == ";" || t.text == "[" || t.text == "]":
		default:
			statement = true
		}
		if len(labels) == 0 && i > 0 {
			return rows, i + 1 // a switch over something else
		}
	}
	return rows, len(toks)
}
