// Package cdispatch generates the C dispatch table of the layer framework
// (layer/vkgen_dispatch.gen.[ch]) from the registry model: one untyped slot per
// instance- or device-level entry point (aliases included) and a sorted name
// table for name -> slot lookup. It owns only this model -> C step; the
// templates live in package templates and the runtime using the table in
// package layer. It must not read XML.
package cdispatch

import (
	"fmt"
	"sort"

	"github.com/vkgen/vkgen/gen/genfile"
	"github.com/vkgen/vkgen/registry"
)

// Name is one entry point of the API.
type Name struct {
	Name    string
	Command *registry.Command // the canonical command (Name may be one of its aliases)
	Level   registry.CommandLevel
	Slot    int // index into the instance or device slots (0 for GLOBAL)
}

// Table is the entry-point inventory the C dispatch is generated from.
type Table struct {
	Source        string // genfile.Source of the registry
	HeaderVersion int
	Names         []Name   // sorted by name
	Instance      []string // instance-level slot order
	Device        []string // device-level slot order
	entries       map[string][]string
}

// EntryPoints returns the entry points of the canonical command name: the
// name itself, then every alias something requires, in registry order.
func (t *Table) EntryPoints(name string) []string { return t.entries[name] }

// Lookup returns the entry point called name.
func (t *Table) Lookup(name string) (Name, bool) {
	i := sort.Search(len(t.Names), func(i int) bool { return t.Names[i].Name >= name })
	if i < len(t.Names) && t.Names[i].Name == name {
		return t.Names[i], true
	}
	return Name{}, false
}

// Build lists every entry point required by a feature or extension of r:
// each command under its own name and under every alias something requires.
func Build(r *registry.Registry) (*Table, error) {
	if r == nil {
		return nil, fmt.Errorf("cdispatch: nil registry")
	}
	t := &Table{Source: genfile.Source(r), HeaderVersion: r.HeaderVersion, entries: map[string][]string{}}
	seen := map[string]bool{}
	for _, c := range r.Commands {
		if c == nil || len(c.RequiredBy) == 0 {
			continue
		}
		if !c.Level.Valid() {
			return nil, fmt.Errorf("cdispatch: %s: unknown command level %d", c.Name, c.Level)
		}
		names := []string{c.Name}
		for _, a := range c.Aliases {
			if len(c.AliasRequiredBy[a]) > 0 {
				names = append(names, a)
			}
		}
		t.entries[c.Name] = names
		for _, n := range names {
			if seen[n] {
				return nil, fmt.Errorf("cdispatch: entry point %s defined twice", n)
			}
			seen[n] = true
			t.Names = append(t.Names, Name{Name: n, Command: c, Level: c.Level})
		}
	}
	sort.Slice(t.Names, func(i, j int) bool { return t.Names[i].Name < t.Names[j].Name })
	for i := range t.Names {
		switch n := &t.Names[i]; n.Level {
		case registry.LevelInstance:
			n.Slot = len(t.Instance)
			t.Instance = append(t.Instance, n.Name)
		case registry.LevelDevice:
			n.Slot = len(t.Device)
			t.Device = append(t.Device, n.Name)
		}
	}
	if len(t.Names) > 65535 {
		return nil, fmt.Errorf("cdispatch: %d entry points exceed the 16-bit slot index", len(t.Names))
	}
	return t, nil
}

// Generate renders vkgen_dispatch.gen.h and vkgen_dispatch.gen.c for r.
func Generate(r *registry.Registry) ([]genfile.File, error) {
	t, err := Build(r)
	if err != nil {
		return nil, err
	}
	var files []genfile.File
	for _, f := range []struct{ out, tmpl string }{
		{genfile.Name("vkgen_dispatch.h"), "dispatch.h.tmpl"},
		{genfile.Name("vkgen_dispatch.c"), "dispatch.c.tmpl"},
	} {
		b, err := genfile.Render(f.tmpl, t, nil)
		if err != nil {
			return nil, fmt.Errorf("cdispatch: %w", err)
		}
		files = append(files, genfile.File{Name: f.out, Data: b})
	}
	return files, nil
}
