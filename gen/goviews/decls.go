package goviews

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/vkgen/vkgen/registry"
)

// types declares every handle, enum, flags, basetype and funcpointer type,
// with their aliases as Go type aliases.
func (g *gen) types(f *jen.File) error {
	f.Comment("HeaderVersion is VK_HEADER_VERSION of the registry these views came from.")
	f.Const().Id("HeaderVersion").Op("=").Lit(g.r.HeaderVersion)
	for _, t := range g.r.Types {
		if !g.emits(t) || t.Kind == registry.KindStruct || t.Kind == registry.KindUnion {
			continue
		}
		under, err := g.kindType(t)
		if err != nil {
			return fmt.Errorf("goviews: %s: %w", t.Name, err)
		}
		id := g.goName[t.Name]
		if gen, ok := fromGenerated[t.Name]; ok {
			f.Commentf("%s is %s (%s): package generated's type, with its values and methods.", id, t.Name, t.Kind)
			f.Type().Id(id).Op("=").Qual(GeneratedImport, gen)
		} else {
			f.Commentf("%s is %s (%s).", id, t.Name, t.Kind)
			f.Type().Id(id).Add(under)
		}
		g.aliases(f, t)
	}
	return nil
}

// GeneratedImport is package generated, which declares the object-type
// enums the layers' name store uses.
const GeneratedImport = "github.com/vkgen/vkgen/generated"

// fromGenerated are the enums package generated declares with their values
// and methods (String, HandleName, the debug-report mapping): the views are
// aliases of them, so a hook's vk.ObjectType is the name store's type and
// the values are declared once.
var fromGenerated = map[string]string{"VkObjectType": "ObjectType", "VkDebugReportObjectTypeEXT": "DebugReportObjectType"}

func (g *gen) aliases(f *jen.File, t *registry.Type) {
	for _, a := range t.Aliases {
		f.Type().Id(g.goName[a]).Op("=").Id(g.goName[t.Name])
	}
}

// constants declares the API constants with their C type.
func (g *gen) constants(f *jen.File) {
	for _, e := range g.r.Enums {
		if e.Kind != registry.EnumKindConstants {
			continue
		}
		f.Const().DefsFunc(func(d *jen.Group) {
			for _, v := range e.Values {
				if g.owner[g.consts[v.Name]] == v.Name {
					d.Add(g.constant(v))
				}
			}
		})
	}
}

func (g *gen) constant(v *registry.EnumValue) *jen.Statement {
	s := jen.Id(g.consts[v.Name])
	switch {
	case v.Alias != "" && g.consts[v.Alias] != "":
		return s.Op("=").Id(g.consts[v.Alias]).Comment(v.Name)
	case v.Type == "float":
		f, err := strconv.ParseFloat(strings.TrimRight(v.Text, "fF"), 32)
		if err != nil {
			return jen.Comment(v.Name + ": " + v.Text + " is not a float")
		}
		return s.Float32().Op("=").Lit(float32(f)).Comment(v.Name)
	case v.Type == "uint32_t":
		s.Uint32()
	case v.Type == "uint64_t":
		s.Uint64()
	}
	if v.Value < 0 && v.Type != "" {
		return s.Op("=").Op(fmt.Sprintf("0x%x", uint64(v.Value)&mask(v.Type))).Comment(v.Name)
	}
	return s.Op("=").Op(strconv.FormatInt(v.Value, 10)).Comment(v.Name)
}

func mask(ctype string) uint64 {
	if ctype == "uint32_t" {
		return 1<<32 - 1
	}
	return ^uint64(0)
}

// enumerants declares the values of one enum type.
func (g *gen) enumerants(f *jen.File, e *registry.Enum) {
	typ := g.goName[e.Name]
	bitmask := e.Kind == registry.EnumKindBitmask
	if !slices.ContainsFunc(e.Values, func(v *registry.EnumValue) bool { return g.owner[g.consts[v.Name]] == v.Name }) {
		return
	}
	f.Commentf("Values of %s.", typ)
	f.Const().DefsFunc(func(d *jen.Group) {
		for _, v := range e.Values {
			if g.owner[g.consts[v.Name]] != v.Name {
				continue // shares its target's constant
			}
			s := d.Id(g.consts[v.Name])
			switch {
			case v.Alias != "" && g.consts[v.Alias] != "":
				s.Op("=").Id(g.consts[v.Alias])
			case bitmask:
				s.Id(typ).Op("=").Op(fmt.Sprintf("0x%x", uint64(v.Value)))
			default:
				s.Id(typ).Op("=").Op(strconv.FormatInt(v.Value, 10))
			}
			s.Comment(v.Name)
		}
	})
}

// structType declares one struct or union, its aliases, its sType method
// and the accessors of its bitfields or union members.
func (g *gen) structType(f *jen.File, s *registry.Struct) error {
	id, l := g.goName[s.Name], g.layouts[s.Name]
	methods := map[string]bool{}
	method := func(name string) (string, error) {
		if methods[name] {
			return "", fmt.Errorf("goviews: %s: method %s declared twice", s.Name, name)
		}
		methods[name] = true
		return name, nil
	}
	var body []jen.Code
	var after []jen.Code
	fields := map[string]bool{}
	if s.Union {
		unit, err := sized(l.Align)
		if err != nil {
			return fmt.Errorf("goviews: %s: %w", s.Name, err)
		}
		body = append(body, jen.Id("raw").Index(jen.Lit(l.Size/l.Align)).Add(unit))
		for _, m := range s.Members {
			typ, err := g.goType(m)
			if err != nil {
				return fmt.Errorf("goviews: %s.%s: %w", s.Name, m.Name, err)
			}
			name, err := method(fieldName(m.Name))
			if err != nil {
				return err
			}
			doc := fmt.Sprintf("%s views the union as its member %s.", name, m.Name)
			if len(m.Selection) > 0 {
				doc += " Selected by " + strings.Join(m.Selection, ", ") + "."
			}
			after = append(after, jen.Comment(doc), jen.Func().Params(jen.Id("u").Op("*").Id(id)).Id(name).Params().Op("*").Add(typ).Block(
				jen.Return(jen.Parens(jen.Op("*").Add(typ.Clone())).Call(jen.Qual("unsafe", "Pointer").Call(jen.Id("u")))),
			), jen.Line())
		}
	} else {
		for i := 0; i < len(s.Members); i++ {
			m, lm := s.Members[i], l.Members[i]
			if m.BitWidth == 0 {
				typ, err := g.goType(m)
				if err != nil {
					return fmt.Errorf("goviews: %s.%s: %w", s.Name, m.Name, err)
				}
				fields[fieldName(m.Name)] = true
				body = append(body, jen.Id(fieldName(m.Name)).Add(typ))
				continue
			}
			// One field per storage unit; the bitfields sharing it get
			// accessors.
			unit, err := sized(lm.Size)
			if err != nil {
				return fmt.Errorf("goviews: %s.%s: %w", s.Name, m.Name, err)
			}
			field := fmt.Sprintf("bits%d", lm.Offset)
			body = append(body, jen.Id(field).Add(unit))
			for ; i < len(s.Members) && s.Members[i].BitWidth > 0 && l.Members[i].Offset == lm.Offset; i++ {
				bm, bl := s.Members[i], l.Members[i]
				get, err := method(fieldName(bm.Name))
				if err != nil {
					return err
				}
				set, err := method("Set" + fieldName(bm.Name))
				if err != nil {
					return err
				}
				mask := jen.Op(fmt.Sprintf("0x%x", uint64(1)<<bm.BitWidth-1))
				after = append(after,
					jen.Commentf("%s is the %d-bit field %s.", get, bm.BitWidth, bm.Name),
					jen.Func().Params(jen.Id("s").Op("*").Id(id)).Id(get).Params().Add(unit.Clone()).Block(
						jen.Return(jen.Id("s").Dot(field).Op(">>").Lit(bl.Bit).Op("&").Add(mask.Clone())),
					),
					jen.Commentf("%s stores the low %d bits of v in %s.", set, bm.BitWidth, bm.Name),
					jen.Func().Params(jen.Id("s").Op("*").Id(id)).Id(set).Params(jen.Id("v").Add(unit.Clone())).Block(
						jen.Id("s").Dot(field).Op("=").Id("s").Dot(field).Op("&^").Parens(mask.Clone().Op("<<").Lit(bl.Bit)).
							Op("|").Parens(jen.Id("v").Op("&").Add(mask.Clone())).Op("<<").Lit(bl.Bit),
					),
					jen.Line())
			}
			i--
		}
	}
	if !s.Union {
		taken := func(n string) bool { return fields[n] || methods[n] || n == "StructureType" }
		for _, m := range s.Members {
			code, err := g.sliceMethod(s, id, m, taken, method)
			if err != nil {
				return err
			}
			after = append(after, code...)
		}
	}
	if s.SType != "" && g.consts[s.SType] != "" {
		name, err := method("StructureType")
		if err != nil {
			return err
		}
		after = append(after,
			jen.Commentf("%s returns %s, the sType value of %s.", name, g.consts[s.SType], id),
			jen.Func().Params(jen.Op("*").Id(id)).Id(name).Params().Id("StructureType").Block(jen.Return(jen.Id(g.consts[s.SType]))),
			jen.Line())
	}
	for m := range methods {
		if fields[m] {
			return fmt.Errorf("goviews: %s: method %s clashes with a field", s.Name, m)
		}
	}
	kind := "struct"
	if s.Union {
		kind = "union"
	}
	f.Commentf("%s is the %s %s (%d bytes, aligned to %d).", id, kind, s.Name, l.Size, l.Align)
	f.Type().Id(id).Struct(body...)
	g.aliases(f, g.r.Type(s.Name))
	for _, c := range after {
		f.Add(c)
	}
	return nil
}

// layoutTable records, for the package's tests, the C layout of every
// struct and union: size, alignment and the offset and size of every Go
// field.
func (g *gen) layoutTable(f *jen.File) {
	f.Comment("layouts are the C layouts (gen/cabi, LP64) the views must have.")
	f.Var().Id("layouts").Op("=").Index().Id("layout").ValuesFunc(func(list *jen.Group) {
		for _, s := range g.structs {
			l := g.layouts[s.Name]
			list.Line().Values(jen.Dict{
				jen.Id("c"):     jen.Lit(s.Name),
				jen.Id("typ"):   jen.Qual("reflect", "TypeFor").Index(jen.Id(g.goName[s.Name])).Call(),
				jen.Id("size"):  jen.Lit(l.Size),
				jen.Id("align"): jen.Lit(l.Align),
				jen.Id("fields"): jen.Index().Id("field").ValuesFunc(func(fl *jen.Group) {
					if s.Union {
						fl.Values(jen.Lit("raw"), jen.Lit(""), jen.Lit(0), jen.Lit(l.Size))
						return
					}
					seen := map[int]bool{}
					for i, m := range s.Members {
						lm := l.Members[i]
						if m.BitWidth > 0 {
							if !seen[lm.Offset] {
								fl.Values(jen.Lit(fmt.Sprintf("bits%d", lm.Offset)), jen.Lit(""), jen.Lit(lm.Offset), jen.Lit(lm.Size))
							}
							seen[lm.Offset] = true
							continue
						}
						fl.Values(jen.Lit(fieldName(m.Name)), jen.Lit(m.Name), jen.Lit(lm.Offset), jen.Lit(lm.Size))
					}
				}),
			})
		}
		list.Line()
	})
}
