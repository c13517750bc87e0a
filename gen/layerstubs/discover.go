package layerstubs

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/vkgen/vkgen/gen/genfile"
)

// What a layer implements, read from its Go source: the hooks are the
// package-level functions named for what they hook, so a layer declares
// each hook once, as Go.
//
//	pre<Cmd>, post<Cmd>   before / after vk<Cmd> (canonical command names)
//	before<Cmd>, after<Cmd>  the same, deferred: off the application's thread
//	forget                every ended handle (destroy and free commands)
//	on<Callback>          a C callback of type PFN_vk<Callback> the layer hands
//	                      down; the glue defines pfn<Callback>, its C pointer
//	next.<Cmd>(...)       calls of the next layer's vk<Cmd>, through
//	                      generated helpers (next is the glue's)
//
// The package is parsed, not type-checked: the generator runs before the
// glue it writes exists. Signatures are compared as written, with the
// import names of packages vk and layer normalised.

// Import paths a hook signature may name.
const (
	VkImport    = "github.com/vkgen/vkgen/layer/vk"
	LayerImport = "github.com/vkgen/vkgen/layer"
)

// Func is one hook function as the layer wrote it.
type Func struct {
	Name    string
	Pos     token.Position
	Params  []string // parameter types, normalised ("*vk.BufferCreateInfo")
	Results []string
	// Query is the command a deferred hook's directive
	// "//vkgen:query vkGetBufferMemoryRequirements" asks the framework to
	// call when it records the call, "" for none.
	Query string
	// Durable: the directive "//vkgen:durable" on a deferred hook of a
	// naming command: the exit watcher writes a record of it still pending
	// when the process dies into the trace files as the name's packet.
	Durable bool
	// Unknown is the first "//vkgen:" line of the doc comment that is no
	// directive above (a typo, or one vkgen no longer has): an error.
	Unknown string
}

// queryDirective introduces a deferred hook's query in its doc comment;
// durableDirective makes a naming hook's pending records survive the process.
const (
	queryDirective   = "//vkgen:query "
	durableDirective = "//vkgen:durable"
)

// Signature is the function's type as Go source.
func (f *Func) Signature() string { return signature(f.Params, f.Results) }

func signature(params, results []string) string {
	s := "func(" + strings.Join(params, ", ") + ")"
	switch len(results) {
	case 0:
	case 1:
		s += " " + results[0]
	default:
		s += " (" + strings.Join(results, ", ") + ")"
	}
	return s
}

// Impl is what one layer package implements.
type Impl struct {
	Funcs map[string]*Func // pre*, post*, on*, forget
	// Next are the names called as next.<Name> (vk<Name> when a command).
	Next map[string]token.Position
	// Others are the package's other functions and its methods, checked
	// for names close to a hook's (nearmiss.go).
	Others []Named
}

// Named is a function or method that is no hook.
type Named struct {
	Name   string
	Pos    token.Position
	Method bool
}

// Discover parses the Go files of the layer package in dir (tests and the
// generated glue excluded).
func Discover(dir string) (*Impl, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	impl := &Impl{Funcs: map[string]*Func{}, Next: map[string]token.Position{}}
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") || genfile.IsName(n) {
			continue
		}
		if e.Type()&fs.ModeType != 0 {
			continue // not a regular file
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution|parser.ParseComments)
		if err != nil {
			return nil, err
		}
		impl.addFile(fset, f)
	}
	return impl, nil
}

func (impl *Impl) addFile(fset *token.FileSet, f *ast.File) {
	names := map[string]string{} // local import name -> canonical qualifier
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		q := ""
		switch p {
		case VkImport:
			q = "vk"
		case LayerImport:
			q = "layer"
		case "unsafe":
			q = "unsafe"
		default:
			continue
		}
		local := q
		if im.Name != nil {
			local = im.Name.Name
		}
		names[local] = q
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		if fd.Recv != nil || !isHookName(fd.Name.Name) {
			impl.Others = append(impl.Others, Named{fd.Name.Name, fset.Position(fd.Name.Pos()), fd.Recv != nil})
			continue
		}
		f := &Func{
			Name: fd.Name.Name, Pos: fset.Position(fd.Name.Pos()),
			Params: fieldTypes(fd.Type.Params, names), Results: fieldTypes(fd.Type.Results, names),
		}
		if fd.Doc != nil {
			for _, c := range fd.Doc.List {
				text := strings.TrimSpace(c.Text)
				switch q, isQuery := strings.CutPrefix(text, queryDirective); {
				case isQuery:
					f.Query = strings.TrimSpace(q)
				case text == durableDirective:
					f.Durable = true
				case strings.HasPrefix(text, "//vkgen:") && f.Unknown == "":
					f.Unknown = text
				}
			}
		}
		impl.Funcs[fd.Name.Name] = f
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if s, ok := n.(*ast.SelectorExpr); ok {
			if x, ok := s.X.(*ast.Ident); ok && x.Name == "next" {
				if _, seen := impl.Next[s.Sel.Name]; !seen {
					impl.Next[s.Sel.Name] = fset.Position(s.Sel.Pos())
				}
			}
		}
		return true
	})
}

// isHookName: forget(Named), or a hook prefix followed by an upper-case letter.
func isHookName(n string) bool {
	if n == "forget" || n == "forgetNamed" {
		return true
	}
	for _, p := range []string{"pre", "post", "before", "after", "on"} {
		if rest, ok := strings.CutPrefix(n, p); ok && rest != "" && unicode.IsUpper(rune(rest[0])) {
			return true
		}
	}
	return false
}

func fieldTypes(fl *ast.FieldList, names map[string]string) []string {
	var out []string
	if fl == nil {
		return out
	}
	for _, f := range fl.List {
		t := typeString(f.Type, names)
		n := len(f.Names)
		if n == 0 {
			n = 1
		}
		for i := 0; i < n; i++ {
			out = append(out, t)
		}
	}
	return out
}

// typeString renders a type expression with package qualifiers normalised.
func typeString(e ast.Expr, names map[string]string) string {
	switch t := e.(type) {
	case *ast.Ident:
		return t.Name
	case *ast.StarExpr:
		return "*" + typeString(t.X, names)
	case *ast.SelectorExpr:
		q := "?"
		if x, ok := t.X.(*ast.Ident); ok {
			q = x.Name
			if c, ok := names[q]; ok {
				q = c
			}
		}
		return q + "." + t.Sel.Name
	case *ast.ArrayType:
		n := ""
		if t.Len != nil {
			n = "N"
			if l, ok := t.Len.(*ast.BasicLit); ok {
				n = l.Value
			}
		}
		return "[" + n + "]" + typeString(t.Elt, names)
	case *ast.ParenExpr:
		return typeString(t.X, names)
	case *ast.Ellipsis:
		return "..." + typeString(t.Elt, names)
	default:
		return fmt.Sprintf("%T", e) // never equals an expected type
	}
}

// sortedFuncs lists the functions by position.
func (impl *Impl) sortedFuncs() []*Func {
	var fs []*Func
	for _, f := range impl.Funcs {
		fs = append(fs, f)
	}
	sort.Slice(fs, func(i, j int) bool { return posLess(fs[i].Pos, fs[j].Pos) })
	return fs
}
