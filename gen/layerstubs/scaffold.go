package layerstubs

import (
	"fmt"
	"go/format"
	"path"
	"regexp"

	"github.com/vkgen/vkgen/gen/genfile"
	"github.com/vkgen/vkgen/registry"
)

// Hooks renders, for the layer whose package directory is dir, the exact
// signature of every hook its spec asks for (`vkgen layer hooks`).
func Hooks(r *registry.Registry, dir string, spec *Spec) ([]byte, error) {
	d, err := layerData1(r, dir, spec)
	if err != nil {
		return nil, err
	}
	return genfile.Render("hooks.txt.tmpl", d, funcs)
}

var newNameRE = regexp.MustCompile(`^[a-z][a-z0-9]*$`)

// Scaffold renders a new layer called name in directory dir (`vkgen layer
// new`): its spec, and a Go file with the hook the spec asks for. With the
// files vkgen generate then writes it builds and loads as it is.
func Scaffold(r *registry.Registry, dir, name string) ([]genfile.File, error) {
	if !newNameRE.MatchString(name) {
		return nil, fmt.Errorf("layerstubs: layer name %q: use lower-case letters and digits, starting with a letter", name)
	}
	specData, err := genfile.Render("newlayer.json.tmpl", struct{ Name string }{name}, nil)
	if err != nil {
		return nil, err
	}
	spec, err := ParseSpec(specData)
	if err != nil {
		return nil, err
	}
	d, err := layerData1(r, dir, spec)
	if err != nil {
		return nil, err
	}
	hooks, err := genfile.Render("newlayer.go.tmpl", d, funcs)
	if err == nil {
		hooks, err = format.Source(hooks)
	}
	if err != nil {
		return nil, fmt.Errorf("layerstubs: new layer %s: %w", name, err)
	}
	return []genfile.File{
		{Name: path.Join(dir, SpecFile), Data: specData},
		{Name: path.Join(dir, name+".go"), Data: hooks},
	}, nil
}

// layerData1 is the model of one layer on its own.
func layerData1(r *registry.Registry, dir string, spec *Spec) (*layerData, error) {
	if r == nil || spec == nil {
		return nil, fmt.Errorf("layerstubs: nil registry or spec")
	}
	b, err := newBuilder(r)
	if err != nil {
		return nil, err
	}
	return b.layer(spec, PackageName(dir), genfile.Source(r))
}
