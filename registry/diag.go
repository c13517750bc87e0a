package registry

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"

	"github.com/beevik/etree"
)

// String formats "file:line:col: msg"; the position is left out when unknown.
func (d Diagnostic) String() string {
	file := d.File
	if file == "" {
		file = "<input>"
	}
	if d.Line <= 0 {
		return file + ": " + d.Msg
	}
	return fmt.Sprintf("%s:%d:%d: %s", file, d.Line, d.Column, d.Msg)
}

// Error is returned for malformed registries; it carries the position.
type Error struct{ Diagnostic }

func (e *Error) Error() string { return e.Diagnostic.String() }

type pos struct{ line, col int }

// positions maps etree elements to their source position. etree keeps no
// positions, so they are computed only when a diagnostic needs one: a second,
// raw encoding/xml pass records where every start tag begins, and the n-th
// start tag is the n-th element of etree's pre-order walk.
type positions struct {
	src   []byte
	index map[*etree.Element]int
	at    []pos
}

func (p *positions) of(root *etree.Element, el *etree.Element) pos {
	if p.index == nil {
		p.index = make(map[*etree.Element]int)
		var walk func(*etree.Element)
		walk = func(e *etree.Element) {
			p.index[e] = len(p.index)
			for _, c := range e.Child {
				if ce, ok := c.(*etree.Element); ok {
					walk(ce)
				}
			}
		}
		walk(root)
		dec := newDecoder(p.src)
		for {
			line, col := dec.InputPos()
			tok, err := dec.RawToken()
			if err != nil {
				break
			}
			if _, ok := tok.(xml.StartElement); ok {
				p.at = append(p.at, pos{line, col})
			}
		}
	}
	i, ok := p.index[el]
	if !ok || i >= len(p.at) {
		return pos{}
	}
	return p.at[i]
}

func newDecoder(src []byte) *xml.Decoder {
	dec := xml.NewDecoder(bytes.NewReader(src))
	// Same pass-through charset handling as etree's default.
	dec.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	return dec
}

// syntaxError locates the first XML error in src with a strict decoder
// (etree reports mismatched or unclosed tags without any position).
func syntaxError(file string, src []byte, fallback error) error {
	dec := newDecoder(src)
	for {
		_, err := dec.Token()
		if err == nil {
			continue
		}
		line, col := dec.InputPos()
		msg := err.Error()
		var se *xml.SyntaxError
		switch {
		case errors.As(err, &se):
			msg = se.Msg
		case err == io.EOF:
			if fallback == nil {
				return nil
			}
			msg = fallback.Error()
		}
		return &Error{Diagnostic{File: file, Line: line, Column: col, Msg: "malformed XML: " + msg}}
	}
}
