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
func Hooks(r *registry.Registry, dir string, spec *Spec, impl *Impl, commands []string, opt Options) (out []byte, warnings []string, err error) {
	b, d, err := layerData1(r, dir, spec, impl, opt)
	if err != nil {
		return nil, nil, err
	}
	for _, w := range b.warns.sorted() {
		warnings = append(warnings, w.String())
	}
	var asked []*command
	for _, name := range commands {
		c, err := b.command(name)
		if err != nil {
			return nil, warnings, err
		}
		asked = append(asked, c)
	}
	out, err = genfile.Render("hooks.txt.tmpl", struct {
		*layerData
		Asked []*command
	}{d, asked}, funcs)
	return out, warnings, err
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
	b, d, err := layerData1(r, dir, spec, nil, Options{})
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
func layerData1(r *registry.Registry, dir string, spec *Spec, impl *Impl, opt Options) (*builder, *layerData, error) {
	if r == nil || spec == nil {
		return nil, nil, fmt.Errorf("layerstubs: nil registry or spec")
	}
	b, err := newBuilder(r)
	if err != nil {
		return nil, nil, err
	}
	b.older = opt.Older
	d, err := b.layer(spec, impl, PackageName(dir), genfile.Source(r))
	if err != nil {
		b.report(spec.Pos(""), err)
	}
	if b.errs != nil {
		return nil, nil, b.errs.sorted()
	}
	return b, d, nil
}
