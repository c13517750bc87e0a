// Package doccmds reads what the project's documents (README.md and
// docs/*.md) tell a reader to type or to open: the commands of their
// fenced shell blocks, vkgen's usage synopses, and the repository paths
// they name, each with the file and line it comes from, so that tests can
// run or check them and say which line drifted. It parses; running and
// checking belong to the tests (docs/commands_test.go, cmd/vkgen).
package doccmds

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Files returns README.md and docs/*.md of the repository at root,
// relative to it.
func Files(root string) ([]string, error) {
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	out := []string{"README.md"}
	for _, d := range docs {
		out = append(out, filepath.Join("docs", filepath.Base(d)))
	}
	return out, nil
}

// Block is one fenced code block.
type Block struct {
	File string // relative to the repository root
	Line int    // the line of its first line of code
	Lang string // the fence's info string: "sh", "sql", "" ...
	Text string
}

// Pos is the block's file:line.
func (b Block) Pos() string { return fmt.Sprintf("%s:%d", b.File, b.Line) }

var fileComment = regexp.MustCompile(`^// ([\w./-]+/[\w.-]+\.go)\n`)

// FileToWrite returns the repository path of a Go block whose first line is
// a comment naming it (`// layer/bufcount/bufcount.go`): a file the reader
// is told to write.
func (b Block) FileToWrite() (string, bool) {
	if b.Lang != "go" {
		return "", false
	}
	m := fileComment.FindStringSubmatch(b.Text)
	if m == nil {
		return "", false
	}
	return m[1], true
}

var fenceLine = regexp.MustCompile("^\\s*```+\\s*([A-Za-z0-9_-]*)")

// Blocks returns the fenced blocks of file (relative to root).
func Blocks(root, file string) ([]Block, error) {
	b, err := os.ReadFile(filepath.Join(root, file))
	if err != nil {
		return nil, err
	}
	var out []Block
	lines := strings.Split(string(b), "\n")
	for i := 0; i < len(lines); i++ {
		m := fenceLine.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		blk := Block{File: file, Line: i + 2, Lang: m[1]}
		var body []string
		for i++; i < len(lines) && !fenceLine.MatchString(lines[i]); i++ {
			body = append(body, lines[i])
		}
		if i == len(lines) {
			return nil, fmt.Errorf("%s:%d: code block not closed", file, blk.Line-1)
		}
		blk.Text = strings.Join(body, "\n") + "\n"
		out = append(out, blk)
	}
	return out, nil
}

// Command is one simple command of a shell block.
type Command struct {
	File string
	Line int
	// Env is the assignments before the command (NAME=VALUE as written);
	// Args its words as written, quotes and all; Words the same with
	// quotes removed where the word is literal.
	Env, Args, Words []string
	// Text is the command's source with its redirections, line
	// continuations kept; Offset and End its bytes in the block's text;
	// Call the same without the assignments before the command.
	Text, Call  string
	Offset, End int
}

// Pos is the command's file:line.
func (c Command) Pos() string { return fmt.Sprintf("%s:%d", c.File, c.Line) }

// Vkgen returns the arguments of a vkgen command ("vkgen", "build/vkgen",
// "go run ./cmd/vkgen"); ok is false for other commands.
func (c Command) Vkgen() (args []string, ok bool) {
	w := c.Words
	switch {
	case len(w) >= 3 && w[0] == "go" && w[1] == "run" && strings.TrimSuffix(w[2], "/") == "./cmd/vkgen":
		return w[3:], true
	case len(w) >= 1 && (w[0] == "vkgen" || strings.HasSuffix(w[0], "/vkgen")):
		return w[1:], true
	}
	return nil, false
}

// Commands parses a shell block into its simple commands, in order (those
// in pipelines, lists and subshells too). A block
// that does not parse is an error at its line.
func Commands(b Block) ([]Command, error) {
	f, err := syntax.NewParser(syntax.KeepComments(false)).Parse(strings.NewReader(b.Text), b.File)
	if err != nil {
		if pe, ok := err.(syntax.ParseError); ok {
			return nil, fmt.Errorf("%s:%d: %s", b.File, b.Line+int(pe.Pos.Line())-1, pe.Text)
		}
		return nil, fmt.Errorf("%s: %v", b.Pos(), err)
	}
	var out []Command
	syntax.Walk(f, func(n syntax.Node) bool {
		st, ok := n.(*syntax.Stmt)
		if !ok {
			return true
		}
		call, ok := st.Cmd.(*syntax.CallExpr)
		if !ok || len(call.Args) == 0 && len(call.Assigns) == 0 {
			return true
		}
		c := Command{File: b.File, Line: b.Line + int(st.Pos().Line()) - 1, Offset: int(st.Pos().Offset()), End: int(call.End().Offset())}
		for _, r := range st.Redirs {
			c.End = max(c.End, int(r.End().Offset()))
		}
		for _, a := range call.Assigns {
			c.Env = append(c.Env, source(b.Text, a))
		}
		for _, w := range call.Args {
			c.Args = append(c.Args, source(b.Text, w))
			lit := w.Lit()
			if lit == "" {
				lit = unquote(w)
			}
			c.Words = append(c.Words, lit)
		}
		c.Text = b.Text[c.Offset:c.End]
		c.Call = c.Text
		if len(call.Args) > 0 {
			c.Call = b.Text[call.Args[0].Pos().Offset():c.End]
		}
		out = append(out, c)
		return true
	})
	return out, nil
}

// source is the text of node n in src.
func source(src string, n syntax.Node) string {
	return src[n.Pos().Offset():n.End().Offset()]
}

// unquote is a word's text with the quotes of its quoted parts removed and
// expansions kept as written ($HOME, ~, globs).
func unquote(w *syntax.Word) string {
	var s strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			s.WriteString(p.Value)
		case *syntax.SglQuoted:
			s.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if l, ok := q.(*syntax.Lit); ok {
					s.WriteString(l.Value)
				} else {
					s.WriteString("$…")
				}
			}
		default:
			s.WriteString("$…")
		}
	}
	return s.String()
}

// AllBlocks returns the fenced blocks of every document, in reading order.
func AllBlocks(root string) ([]Block, error) {
	files, err := Files(root)
	if err != nil {
		return nil, err
	}
	var out []Block
	for _, f := range files {
		bs, err := Blocks(root, f)
		if err != nil {
			return nil, err
		}
		out = append(out, bs...)
	}
	return out, nil
}

// ShellBlocks returns the sh and bash blocks of every document.
func ShellBlocks(root string) ([]Block, error) {
	all, err := AllBlocks(root)
	var out []Block
	for _, b := range all {
		if b.Lang == "sh" || b.Lang == "bash" {
			out = append(out, b)
		}
	}
	return out, err
}

// Synopsis is a usage line of a plain block: "vkgen trace summary [--format
// text|json] FILE...", its continuation lines joined.
type Synopsis struct {
	File string
	Line int
	// Command is the subcommand path ("trace", "summary"); Flags every
	// option named (with its dashes).
	Command, Flags []string
}

// Pos is the synopsis's file:line.
func (s Synopsis) Pos() string { return fmt.Sprintf("%s:%d", s.File, s.Line) }

var flagWord = regexp.MustCompile(`(?:^|[\s\[|])(--?[A-Za-z][A-Za-z0-9-]*)`)

// Synopses returns the vkgen usage synopses of every document: plain
// blocks whose first line begins with "vkgen ".
func Synopses(root string) ([]Synopsis, error) {
	all, err := AllBlocks(root)
	var out []Synopsis
	for _, b := range all {
		if b.Lang != "" || !strings.HasPrefix(b.Text, "vkgen ") {
			continue
		}
		s := Synopsis{File: b.File, Line: b.Line}
		for _, w := range strings.Fields(b.Text)[1:] {
			if strings.ContainsAny(w, "[-") || strings.ToUpper(w) == w {
				break
			}
			s.Command = append(s.Command, w)
		}
		for _, m := range flagWord.FindAllStringSubmatch(b.Text, -1) {
			if !slices.Contains(s.Flags, m[1]) {
				s.Flags = append(s.Flags, m[1])
			}
		}
		out = append(out, s)
	}
	return out, err
}
