package goviews

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/vkgen/vkgen/registry"
)

// String methods of enums and flags, as Vulkan-Utility-Libraries'
// enum_string_helper prints them: an enum value prints its registry name,
// a flags value the names of its bits joined by |, then the bits without a
// name in hex. Each enum type has one table of its values' names, a string
// of "hexvalue NAME" pairs that the hand-written names type in layer/vk reads
// once and searches; a flags type uses the table of its FlagBits enum
// (bitvalues= or requires=). Alias enumerants (the _KHR spellings of
// promoted values) are not listed: a value prints its first name that is
// no alias. Type aliases share their target's method.

// tableName is the names table of enum type id.
func tableName(id string) string { return strings.ToLower(id[:1]) + id[1:] + "Names" }

// noNames is layer/vk's empty table, of flags types without bits.
const noNames = "noNames"

// enumStrings declares enum e's names table and its String method.
func (g *gen) enumStrings(f *jen.File, e *registry.Enum) error {
	id := g.goName[e.Name]
	table := tableName(id)
	type pair struct {
		v    uint64
		name string
	}
	var pairs []pair
	seen := map[uint64]bool{}
	for _, v := range e.Values {
		u := uint64(v.Value)
		if v.Alias != "" || seen[u] {
			continue
		}
		seen[u] = true
		pairs = append(pairs, pair{u, v.Name})
	}
	bitmask := e.Kind == registry.EnumKindBitmask
	if len(pairs) == 0 {
		f.Add(stringMethod(id, noNames, e.Name, bitmask))
		return nil
	}
	if err := g.claim(table, e.Name+" names"); err != nil {
		return err
	}
	sort.Slice(pairs, func(i, j int) bool { return pairs[i].v < pairs[j].v })
	text := make([]string, len(pairs))
	for i, p := range pairs {
		text[i] = fmt.Sprintf("%x %s", p.v, p.name)
	}
	f.Var().Id(table).Op("=").Op("&").Id("names").Values(jen.Id("text").Op(":").Lit(strings.Join(text, " "))).
		Line().Add(stringMethod(id, table, e.Name, bitmask))
	return nil
}

// stringMethod is the String method of type id, reading table (package
// vk's doc says what it prints).
func stringMethod(id, table, cname string, flags bool) *jen.Statement {
	call := jen.Id(table).Dot("enum").Call(jen.Lit(cname), jen.Int64().Call(jen.Id("v")))
	if flags {
		call = jen.Id(table).Dot("flags").Call(jen.Uint64().Call(jen.Id("v")))
	}
	return jen.Func().Params(jen.Id("v").Id(id)).Id("String").Params().String().Op("{").Return(call).Op("}")
}

// stringerTable lists, for package vk's tests, every type with a String
// method by its C name, in registry order.
func (g *gen) stringerTable(f *jen.File) {
	f.Comment("stringers are the enum and flags types whose String the registry's names must give.")
	f.Var().Id("stringers").Op("=").Index().Id("stringer").ValuesFunc(func(list *jen.Group) {
		for _, t := range g.r.Types {
			_, gen := fromGenerated[t.Name]
			if (t.Kind == registry.KindEnum && g.r.Enum(t.Name) != nil || t.Kind == registry.KindBitmask) && g.goName[t.Name] != "" && !gen {
				list.Line().Values(jen.Lit(t.Name), jen.Qual("reflect", "TypeFor").Index(jen.Id(g.goName[t.Name])).Call())
			}
		}
		list.Line()
	})
}

// flagsStrings declares the String method of bitmask type t.
func (g *gen) flagsStrings(f *jen.File, t *registry.Type) {
	table := noNames
	if e := g.r.Enum(t.Bits); e != nil && g.owner[tableName(g.goName[e.Name])] != "" {
		table = tableName(g.goName[e.Name])
	}
	f.Add(stringMethod(g.goName[t.Name], table, t.Name, true))
}
