package audit

import "strings"

// lineStride is how many bytes of source one entry of a lineIndex covers.
const lineStride = 256

// lineIndex gives the line of a source offset from the newlines before
// every lineStride-th byte and a count of the rest: a line per token would
// cost four bytes a token, this costs a sixty-fourth of a byte per byte.
type lineIndex struct {
	src    string
	before []uint32 // newlines before byte k*lineStride
}

func newLineIndex(src string) lineIndex {
	l := lineIndex{src: src, before: make([]uint32, len(src)/lineStride+1)}
	for k := 1; k < len(l.before); k++ {
		l.before[k] = l.before[k-1] + uint32(strings.Count(src[(k-1)*lineStride:k*lineStride], "\n"))
	}
	return l
}

// line is the 1-based line of the byte at off.
func (l lineIndex) line(off int) int {
	k := off / lineStride
	return 1 + int(l.before[k]) + strings.Count(l.src[k*lineStride:off], "\n")
}
