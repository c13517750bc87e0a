package decode

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"unicode/utf8"
)

// sniff looks at the start of the input: gzip is inflated as it is read
// (once: gzip inside gzip is no trace); for what is no trace, kind says
// what it is, for the error.
func (r *Reader) sniff() error {
	r.sniffed = true
	b, _ := r.r.Peek(sniffBytes)
	prefix := ""
	if bytes.HasPrefix(b, gzipMagic) {
		zr, err := gzip.NewReader(r.r)
		if err != nil {
			return fmt.Errorf("%w: gzip-compressed data whose header does not read: %w", ErrNotTrace, err)
		}
		r.r = bufio.NewReaderSize(zr, r.r.Size())
		b, _ = r.r.Peek(sniffBytes)
		prefix = "gzip-compressed "
	}
	if k := kind(b); k != "" {
		r.kind = prefix + k
	}
	return nil
}

const sniffBytes = 512

var gzipMagic = []byte{0x1f, 0x8b}

// magics are the formats people mistake for traces, by their first bytes.
var magics = []struct{ magic, what string }{
	{string(gzipMagic), "gzip-compressed data"},
	{"\x28\xb5\x2f\xfd", "zstd-compressed data (decompress it first: zstd -d)"},
	{"\xfd7zXZ\x00", "xz-compressed data (decompress it first: xz -d)"},
	{"BZh", "bzip2-compressed data (decompress it first: bzip2 -d)"},
	{"PK\x03\x04", "a zip archive (extract the trace first)"},
	{"\x7fELF", "an ELF file (a program or library)"},
	{"SQLite format 3\x00", "an SQLite database"},
	{"%PDF", "a PDF document"},
}

// kind says what b, the start of an input, is when it is not a trace: a
// known format, or text; "" when it may be a trace.
func kind(b []byte) string {
	for _, m := range magics {
		if bytes.HasPrefix(b, []byte(m.magic)) {
			return m.what
		}
	}
	if !isText(b) {
		return ""
	}
	t := bytes.ToLower(bytes.TrimSpace(b))
	switch {
	case bytes.HasPrefix(t, []byte("<!doctype html")), bytes.HasPrefix(t, []byte("<html")):
		return "HTML"
	case bytes.HasPrefix(t, []byte("<?xml")), bytes.HasPrefix(t, []byte("<svg")):
		return "XML"
	case bytes.HasPrefix(t, []byte("{")), bytes.HasPrefix(t, []byte("[")):
		return "JSON (not read: this reader reads Perfetto's protobuf format)"
	}
	return "text"
}

// isText says whether b is non-empty UTF-8 text without control
// characters other than white space (b may end inside a character).
func isText(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for len(b) > 0 {
		c, n := utf8.DecodeRune(b)
		switch {
		case c == utf8.RuneError && n <= 1:
			return !utf8.FullRune(b) // only a cut character at the end
		case c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f', c == 0x7f:
			return false
		}
		b = b[n:]
	}
	return true
}
