package layerstubs

import (
	"errors"
	"fmt"
	"go/token"
	"sort"
	"strings"
)

// A layer's mistakes are reported all at once, each at its position in the
// layer's Go source or spec (file:line:col), with the nearest valid name
// when one is close (closest).

// Diag is one mistake or warning at its position.
type Diag struct {
	Pos token.Position
	Msg string
}

func (d Diag) String() string {
	if d.Pos.Filename == "" && !d.Pos.IsValid() {
		return d.Msg
	}
	return d.Pos.String() + ": " + d.Msg
}

// Errors are every mistake found in one run; as an error, one line each.
type Errors []Diag

func (e Errors) Error() string {
	lines := make([]string, len(e))
	for i, d := range e {
		lines[i] = d.String()
	}
	return strings.Join(lines, "\n")
}

// sorted orders the mistakes by file and position.
func (e Errors) sorted() Errors {
	sort.SliceStable(e, func(i, j int) bool { return posLess(e[i].Pos, e[j].Pos) })
	return e
}

// posLess orders positions by file, then offset.
func posLess(a, b token.Position) bool {
	if a.Filename != b.Filename {
		return a.Filename < b.Filename
	}
	return a.Offset < b.Offset
}

// absentError is a hook naming what the registry lacks (a command, type or
// extension): an error with the pinned registry or a newer one, a warning
// and the hook left out with an older one (Options.Older).
type absentError struct{ msg string }

func (e *absentError) Error() string { return e.msg }

func absentf(format string, args ...any) error { return &absentError{fmt.Sprintf(format, args...)} }

// diags collects what one generation found.
type diags struct {
	older bool // the registry is older than the pinned one
	errs  Errors
	warns Errors
}

// report files err, found at pos.
func (d *diags) report(pos token.Position, err error) {
	var absent *absentError
	if errors.As(err, &absent) && d.older {
		d.warns = append(d.warns, Diag{pos, "left out (the registry is older than the pinned one): " + err.Error()})
		return
	}
	if es, ok := err.(Errors); ok {
		d.errs = append(d.errs, es...)
		return
	}
	d.errs = append(d.errs, Diag{pos, err.Error()})
}

// closest is the candidate nearest to name, compared without case, within
// maxDist edits (a case-only difference counts as one); "" when none is.
func closest(name string, candidates []string, maxDist int) string {
	best, bestDist := "", maxDist+1
	ln := strings.ToLower(name)
	for _, c := range candidates {
		if c == name || abs(len(c)-len(name)) >= bestDist {
			continue
		}
		d := editDistance(ln, strings.ToLower(c))
		if d == 0 {
			d = 1
		}
		if d < bestDist || d == bestDist && c < best {
			best, bestDist = c, d
		}
	}
	return best
}

// didYouMean is the suffix naming a near miss, "" for none.
func didYouMean(near string) string {
	if near == "" {
		return ""
	}
	return "; did you mean " + near + "?"
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// editDistance is the Levenshtein distance of a and b (bytes).
func editDistance(a, b string) int {
	row := make([]int, len(b)+1)
	for j := range row {
		row[j] = j
	}
	for i := 1; i <= len(a); i++ {
		prev := row[0]
		row[0] = i
		for j := 1; j <= len(b); j++ {
			cur := row[j]
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			row[j] = min(row[j]+1, row[j-1]+1, prev+cost)
			prev = cur
		}
	}
	return row[len(b)]
}
