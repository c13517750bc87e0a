// Package pipeline is vkgen's one generation step: from one registry it
// renders every output of a source tree (the Go tables in generated/, the
// Go views of the Vulkan types in layer/vk, the layer framework's C
// dispatch and trampolines in layer/, each layer's table, glue and
// manifest, and the library's list of layers) and compares a tree
// with what it should hold. It owns the layout of the outputs; the
// generators in gen/ own their content. It must not read XML.
package pipeline

import (
	"bufio"
	"bytes"
	"fmt"
	"go/format"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/vkgen/vkgen/gen/cdispatch"
	"github.com/vkgen/vkgen/gen/genfile"
	"github.com/vkgen/vkgen/gen/gotables"
	"github.com/vkgen/vkgen/gen/goviews"
	"github.com/vkgen/vkgen/gen/layerstubs"
	"github.com/vkgen/vkgen/registry"
)

// The tree's layout, relative to its root.
const (
	TablesDir    = "generated"                          // Go tables
	FrameworkDir = "layer"                              // the layer framework (package layer)
	ViewsDir     = "layer/vk"                           // Go views of the Vulkan types (package vk)
	LibraryFile  = "layer/vklayers/vkgen_layers.gen.go" // the library's blank imports of its layers
)

// Dirs are the directories Stale searches for orphaned generated files.
var Dirs = []string{TablesDir, FrameworkDir}

// Layers finds the layers of the tree at root: every layer/<name>/ holding
// a layerstubs.SpecFile.
func Layers(root string) ([]layerstubs.Layer, error) {
	specs, err := filepath.Glob(filepath.Join(root, FrameworkDir, "*", layerstubs.SpecFile))
	if err != nil {
		return nil, err
	}
	sort.Strings(specs)
	var out []layerstubs.Layer
	var errs layerstubs.Errors // every spec's mistakes at once
	for _, p := range specs {
		s, err := layerstubs.LoadSpec(p)
		if es, ok := err.(layerstubs.Errors); ok {
			errs = append(errs, es...)
			continue
		}
		if err != nil {
			return nil, err
		}
		impl, err := layerstubs.Discover(filepath.Dir(p))
		if err != nil {
			return nil, err
		}
		out = append(out, layerstubs.Layer{Dir: path.Join(FrameworkDir, filepath.Base(filepath.Dir(p))), Spec: s, Impl: impl})
	}
	if errs != nil {
		return nil, errs
	}
	return out, nil
}

// Generate renders every output of the tree at root from r. Names are
// slash-separated and relative to root. Errors are the registry's or a
// spec's; warnings are facts of the registry that did not resolve.
func Generate(r *registry.Registry, root string) (files []genfile.File, warnings []string, err error) {
	tables, warnings, err := gotables.Generate(r)
	if err != nil {
		return nil, warnings, err
	}
	for _, f := range tables {
		files = append(files, genfile.File{Name: path.Join(TablesDir, f.Name), Data: f.Data})
	}
	disp, err := cdispatch.Generate(r)
	if err != nil {
		return nil, warnings, err
	}
	for _, f := range disp {
		files = append(files, genfile.File{Name: path.Join(FrameworkDir, f.Name), Data: f.Data})
	}
	views, err := goviews.Generate(r)
	if err != nil {
		return nil, warnings, err
	}
	for _, f := range views {
		files = append(files, genfile.File{Name: path.Join(ViewsDir, f.Name), Data: f.Data})
	}
	layers, err := Layers(root)
	if err != nil {
		return nil, warnings, err
	}
	lf, lw, err := layerstubs.Generate(r, FrameworkDir, layers, LayerOptions(root, r))
	warnings = append(warnings, lw...)
	if err != nil {
		return nil, warnings, err
	}
	files = append(files, lf...)
	lib, err := library(root, genfile.Source(r), layers)
	if err != nil {
		return nil, warnings, err
	}
	return append(files, lib), warnings, nil
}

// LayerOptions are the layer generator's options for the tree at root: a
// registry older than the tree's pinned one (registry.PinFile) leaves out
// the hooks of what it lacks, with warnings.
func LayerOptions(root string, r *registry.Registry) layerstubs.Options {
	pin, err := registry.ReadPin(filepath.Join(root, registry.PinFile))
	return layerstubs.Options{Older: err == nil && pin.Older(r)}
}

// library renders the list of layers the c-shared library hosts.
func library(root, source string, layers []layerstubs.Layer) (genfile.File, error) {
	mod, err := modulePath(root)
	if err != nil {
		return genfile.File{}, err
	}
	d := struct {
		Source  string
		Imports []string
	}{Source: source}
	for _, l := range layers {
		d.Imports = append(d.Imports, mod+"/"+l.Dir)
	}
	b, err := genfile.Render("layers.go.tmpl", d, nil)
	if err == nil {
		b, err = format.Source(b)
	}
	if err != nil {
		return genfile.File{}, fmt.Errorf("pipeline: %s: %w", LibraryFile, err)
	}
	return genfile.File{Name: LibraryFile, Data: b}, nil
}

func modulePath(root string) (string, error) {
	f, err := os.Open(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", fmt.Errorf("pipeline: run vkgen generate at the module root: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(m), `"`), nil
		}
	}
	return "", fmt.Errorf("pipeline: %s has no module line", filepath.Join(root, "go.mod"))
}

// Stale compares the tree at root with files: every file that differs or is
// missing, and every generated file (one named by genfile.Name's rule or
// carrying genfile.Header) under Dirs that files no longer contain, as
// "PATH: reason" lines.
func Stale(root string, files []genfile.File) ([]string, error) {
	var out []string
	want := map[string]bool{}
	for _, f := range files {
		want[f.Name] = true
		got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f.Name)))
		switch {
		case err != nil:
			out = append(out, f.Name+": missing")
		case !bytes.Equal(got, f.Data):
			out = append(out, f.Name+": differs")
		}
	}
	for _, d := range Dirs {
		err := filepath.WalkDir(filepath.Join(root, d), func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if e.IsDir() {
				if e.Name() == "testdata" || strings.HasPrefix(e.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			rel = filepath.ToSlash(rel)
			if !want[rel] && (genfile.IsName(rel) || generated(p)) {
				out = append(out, rel+": generated, but vkgen no longer produces it")
			}
			return nil
		})
		if err != nil && !os.IsNotExist(err) {
			return nil, err
		}
	}
	sort.Strings(out)
	return out, nil
}

// generated reports whether the file at p carries the generated-file header
// in its first lines.
func generated(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 256)
	n, _ := f.Read(head)
	return bytes.Contains(head[:n], []byte(genfile.Header))
}
