package audit

import "strings"

// twoCharOp reports whether c and d are one of the operators of two
// characters that matter to the shapes (:: == != => -> || && <= >= += -=
// |= &=); others are split.
func twoCharOp(c, d byte) bool {
	switch d {
	case '=':
		return c == '=' || c == '!' || c == '<' || c == '>' || c == '+' || c == '-' || c == '|' || c == '&'
	case '>':
		return c == '=' || c == '-'
	}
	return c == d && (c == ':' || c == '|' || c == '&')
}

// lexer steps through C, C++, Go, Rust or Zig source a token at a time,
// skipping blanks, comments, string and character literals and
// preprocessor lines. It never fails: unterminated comments and literals
// end at the end of the input.
type lexer struct {
	src       string
	i         int
	lineStart bool // only blanks since the last newline
}

// next returns the bounds of the next token, or ok false at the end.
// directive, when not nil, is given the bounds of each preprocessor line
// skipped.
func (l *lexer) next(directive func(from, to int)) (from, to int, ok bool) {
	src := l.src
	for l.i < len(src) {
		i, c := l.i, src[l.i]
		switch {
		case c == '\n':
			l.i++
			l.lineStart = true
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			l.i++
			continue
		case l.lineStart && c == '#' && i+1 < len(src) && (isIdentStart(src[i+1]) || src[i+1] == ' '):
			// A C preprocessor line (not Rust's #[attr]), continued by
			// backslash-newline.
			j := i
			for j < len(src) && src[j] != '\n' {
				if src[j] == '\\' && j+1 < len(src) && src[j+1] == '\n' {
					j++
				}
				j++
			}
			if directive != nil {
				directive(i, j)
			}
			l.i = j
			continue
		}
		l.lineStart = false
		switch {
		case isIdentByte(c):
			l.i = identEnd(src, i)
			return i, l.i, true
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			if end := strings.IndexByte(src[i:], '\n'); end < 0 {
				l.i = len(src)
			} else {
				l.i = i + end
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			if end := strings.Index(src[i+2:], "*/"); end < 0 {
				l.i = len(src)
			} else {
				l.i = i + 2 + end + 2
			}
		case c == '"' || c == '`' || c == '\'' && !lifetime(src, i):
			j := i + 1
			for j < len(src) && src[j] != c && (c == '`' || src[j] != '\n') {
				if src[j] == '\\' && c != '`' {
					j++
				}
				j++
			}
			l.i = min(j+1, len(src))
		default:
			l.i++
			if l.i < len(src) && twoCharOp(c, src[l.i]) {
				l.i++
			}
			return i, l.i, true
		}
	}
	return len(src), len(src), false
}

// lifetime reports whether the quote at src[i] starts a Rust lifetime or
// label ('a, 'static) rather than a character literal.
func lifetime(src string, i int) bool {
	j := identEnd(src, i+1)
	return j > i+2 && (j >= len(src) || src[j] != '\'')
}

// identEnd is the end of the identifier or number that starts at src[i].
func identEnd(src string, i int) int {
	for i < len(src) && isIdentByte(src[i]) {
		i++
	}
	return i
}

func isIdentStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isIdentByte(c byte) bool { return identBytes[c] }

// identBytes are the bytes of identifiers and numbers, looked up: the
// lexer and every token's text ask for each byte of them.
var identBytes = func() (t [256]bool) {
	for c := range t {
		t[c] = isIdentStart(byte(c)) || c >= '0' && c <= '9'
	}
	return t
}()
