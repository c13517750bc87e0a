package doccmds

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// PathRef is a repository path a document names: a word that begins with
// one of the repository's top-level folders (`layer/memreport/sql/vkgen`,
// scripts/test.sh, a code block's testdata/vkprog/vkprog.c), or the target
// of a relative markdown link, resolved against the document's folder.
type PathRef struct {
	File string
	Line int
	Path string // relative to the repository root, slash-separated
	// Pattern: the path holds a placeholder (`<version>`, `*`), so it
	// names the paths its glob matches.
	Pattern bool
}

var (
	link        = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	codeSpan    = regexp.MustCompile("`[^`]*`")
	placeholder = regexp.MustCompile(`<[^<>/]*>|\*|\[[^]/]*\]`)
	lineSuffix  = regexp.MustCompile(`(:\d+(-\d+)?)+$`)
	goSymbol    = regexp.MustCompile(`\.[A-Z]\w*$`) // gen/pipeline.Stale: the package's folder
)

// Paths returns every repository path the documents name, in order.
func Paths(root string) ([]PathRef, error) {
	files, err := Files(root)
	if err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	var tops []string
	for _, e := range ents {
		if e.IsDir() && e.Name() != ".git" && e.Name() != "build" {
			tops = append(tops, regexp.QuoteMeta(e.Name()))
		}
	}
	word := regexp.MustCompile(`(?:^|[\s(\[` + "`" + `'"=,])((?:` + strings.Join(tops, "|") + `)/(?:[A-Za-z0-9_./<>*-]|\[\w*\])*)`)
	var out []PathRef
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			return nil, err
		}
		inBlock := false
		for i, line := range strings.Split(string(b), "\n") {
			if fenceLine.MatchString(line) {
				inBlock = !inBlock
			}
			add := func(p string) {
				p = strings.TrimRight(p, ".,:;")
				p = lineSuffix.ReplaceAllString(p, "")
				p = strings.TrimRight(p, ".,:;")
				p = goSymbol.ReplaceAllString(p, "")
				if p == "" {
					return
				}
				out = append(out, PathRef{File: f, Line: i + 1, Path: filepath.ToSlash(p), Pattern: placeholder.MatchString(p)})
			}
			links := link.FindAllStringSubmatch(codeSpan.ReplaceAllString(line, ""), -1)
			if inBlock {
				links = nil // code, not markdown
			}
			for _, m := range links {
				t, _, _ := strings.Cut(m[1], "#")
				if t == "" || strings.Contains(t, "://") || strings.HasPrefix(t, "mailto:") {
					continue
				}
				add(filepath.Clean(filepath.Join(filepath.Dir(f), t)))
			}
			for _, m := range word.FindAllStringSubmatch(line, -1) {
				add(m[1])
			}
		}
	}
	return out, nil
}

// Exists reports whether the path exists under root, or, for a path named
// relative to its package as Go names them (testdata/dmprog.c), in the
// testdata folder of a package. A pattern's glob, each <placeholder> read
// as *, must match something.
func (p PathRef) Exists(root string) bool {
	glob := filepath.FromSlash(p.Path)
	if p.Pattern {
		glob = placeholder.ReplaceAllStringFunc(glob, func(s string) string {
			if strings.HasPrefix(s, "[") {
				return s
			}
			return "*"
		})
	}
	for pre := root; ; pre = filepath.Join(pre, "*") {
		if m, _ := filepath.Glob(filepath.Join(pre, glob)); len(m) > 0 {
			return true
		}
		if !strings.HasPrefix(p.Path, "testdata/") || strings.Count(pre, string(filepath.Separator))-strings.Count(root, string(filepath.Separator)) >= 4 {
			return false
		}
	}
}
