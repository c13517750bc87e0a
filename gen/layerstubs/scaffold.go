package layerstubs

import (
	"fmt"
	"go/format"
	"path"
	"regexp"

	"github.com/vkgen/vkgen/gen/genfile"
	"github.com/vkgen/vkgen/registry"
)

// Hooks renders, for the layer whose package directory is dir, the hooks
// its Go package implements (checked, so a wrong one is the error) and the
// exact signatures of the hooks and next-layer calls of the given commands
// (`vkgen layer hooks`).
func Hooks(r *registry.Registry, dir string, spec *Spec, impl *Impl, commands []string) ([]byte, error) {
	b, d, err := layerData1(r, dir, spec, impl)
	if err != nil {
		return nil, err
	}
	var asked []*command
	for _, name := range commands {
		c, err := b.command(name)
		if err != nil {
			return nil, err
		}
		asked = append(asked, c)
	}
	return genfile.Render("hooks.txt.tmpl", struct {
		*layerData
		Asked []*command
	}{d, asked}, funcs)
}

var newNameRE = regexp.MustCompile(`^[a-z][a-z0-9]*$`)

// Scaffold renders a new layer called name in directory dir (`vkgen layer
// new`): its spec, and a Go file with one hook. With the files vkgen
// generate then writes it builds and loads as it is.
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
	b, d, err := layerData1(r, dir, spec, nil)
	if err != nil {
		return nil, err
	}
	c, err := b.command("vkCreateInstance")
	if err != nil {
		return nil, err
	}
	hooks, err := genfile.Render("newlayer.go.tmpl", struct {
		*layerData
		Hook *command
	}{d, c}, funcs)
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
func layerData1(r *registry.Registry, dir string, spec *Spec, impl *Impl) (*builder, *layerData, error) {
	if r == nil || spec == nil {
		return nil, nil, fmt.Errorf("layerstubs: nil registry or spec")
	}
	b, err := newBuilder(r)
	if err != nil {
		return nil, nil, err
	}
	d, err := b.layer(spec, impl, PackageName(dir), genfile.Source(r))
	return b, d, err
}
