// Package gotables renders the committed Go package generated/ (object types,
// the debug-report mapping, destroyers) with dave/jennifer from the facts of
// gen/objtypes. It produces bytes only: writing files is the caller's job,
// and it must not read XML.
package gotables

import (
	"bytes"
	"fmt"

	"github.com/dave/jennifer/jen"
	"github.com/vkgen/vkgen/gen/genfile"
	"github.com/vkgen/vkgen/gen/objtypes"
	"github.com/vkgen/vkgen/registry"
)

// PackageName is the package the files belong to.
const PackageName = "generated"

// Generate derives the tables of r and renders them. warnings are the
// facts that did not resolve (see objtypes.Tables.Warnings).
func Generate(r *registry.Registry) (files []genfile.File, warnings []string, err error) {
	t, err := objtypes.Derive(r)
	if err != nil {
		return nil, nil, err
	}
	files, err = Render(t, genfile.Source(r))
	return files, t.Warnings, err
}

// Render renders t, recording source (genfile.Source) in every file. It fails when the registry has no VkObjectType (Vulkan
// 1.0) or when two enumerants would get the same Go name.
func Render(t *objtypes.Tables, source string) ([]genfile.File, error) {
	if !t.HasObjectType() {
		return nil, fmt.Errorf("gotables: the registry has no %s enum (it appeared in Vulkan 1.1); nothing to generate", objtypes.ObjectTypeEnum)
	}
	g, err := newNamer(t)
	if err != nil {
		return nil, err
	}
	var out []genfile.File
	for _, f := range []struct {
		name  string
		build func(*jen.File)
	}{
		{genfile.Name("objecttypes.go"), g.objectTypes},
		{genfile.Name("debugreport.go"), g.debugReport},
		{genfile.Name("destroyers.go"), g.destroyers},
	} {
		jf := jen.NewFile(PackageName)
		jf.HeaderComment(genfile.Header)
		jf.HeaderComment("Source: " + source + ".")
		f.build(jf)
		var buf bytes.Buffer
		if err := jf.Render(&buf); err != nil {
			return nil, fmt.Errorf("gotables: %s: %w", f.name, err)
		}
		out = append(out, genfile.File{Name: f.name, Data: buf.Bytes()})
	}
	return out, nil
}

// namer holds the Go identifiers of every enumerant, checked for clashes.
type namer struct {
	t     *objtypes.Tables
	names map[string]string // enumerant (incl. aliases) -> Go constant
}

func newNamer(t *objtypes.Tables) (*namer, error) {
	g := &namer{t: t, names: map[string]string{}}
	used := map[string]string{}
	add := func(enumerant, goName string) error {
		if prev, ok := used[goName]; ok {
			return fmt.Errorf("gotables: %s and %s both become Go name %s", prev, enumerant, goName)
		}
		used[goName] = enumerant
		g.names[enumerant] = goName
		return nil
	}
	var all []string
	for _, o := range t.ObjectTypes {
		all = append(append(all, o.Name), o.Aliases...)
	}
	for _, d := range t.DebugReport {
		all = append(append(all, d.Name), d.Aliases...)
	}
	for _, n := range all {
		if err := add(n, t.GoConst(n)); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// constBlock renders the constants of one enum type, aliases after values,
// and a stringer-style guard that stops compiling when a value changes
// without regeneration.
func (g *namer) constBlock(f *jen.File, typ string, vals []struct {
	name    string
	value   int64
	aliases []string
}) {
	f.Const().DefsFunc(func(d *jen.Group) {
		for _, v := range vals {
			d.Id(g.names[v.name]).Id(typ).Op("=").Lit(int(v.value)).Comment(v.name)
		}
		for _, v := range vals {
			for _, a := range v.aliases {
				d.Id(g.names[a]).Op("=").Id(g.names[v.name]).Comment(a + " (alias)")
			}
		}
	})
	f.Comment("An \"invalid array index\" compiler error here means the values changed: run go generate.")
	f.Func().Id("_").Params().BlockFunc(func(b *jen.Group) {
		b.Var().Id("x").Index(jen.Lit(1)).Struct()
		for _, v := range vals {
			b.Id("_").Op("=").Id("x").Index(jen.Id(g.names[v.name]).Op("-").Lit(int(v.value)))
		}
	})
}

type enumVal = struct {
	name    string
	value   int64
	aliases []string
}

func (g *namer) objectTypes(f *jen.File) {
	t := g.t
	f.Comment("RegistryHeaderVersion is VK_HEADER_VERSION of the registry these tables came from.")
	f.Const().Id("RegistryHeaderVersion").Op("=").Lit(t.HeaderVersion)

	f.Comment("ObjectType is VkObjectType.")
	f.Type().Id("ObjectType").Int32()
	var vals []enumVal
	for _, o := range t.ObjectTypes {
		vals = append(vals, enumVal{o.Name, o.Value, o.Aliases})
	}
	g.constBlock(f, "ObjectType", vals)

	f.Comment("ObjectTypes lists every value of ObjectType, ascending.")
	f.Var().Id("ObjectTypes").Op("=").Index().Id("ObjectType").ValuesFunc(func(l *jen.Group) {
		for _, o := range t.ObjectTypes {
			l.Line().Id(g.names[o.Name])
		}
		l.Line()
	})

	f.Type().Id("objectTypeInfo").Struct(
		jen.Id("name").String(),
		jen.Id("handle").String(),
		jen.Id("dispatchable").Bool(),
		jen.Id("parent").Id("ObjectType"),
	)
	f.Var().Id("objectTypeInfos").Op("=").Map(jen.Id("ObjectType")).Id("objectTypeInfo").Values(jen.DictFunc(func(d jen.Dict) {
		for _, o := range t.ObjectTypes {
			parent := jen.Id("ObjectTypeUnknown")
			if o.Parent != "" {
				parent = jen.Id(g.names[o.Parent])
			}
			d[jen.Id(g.names[o.Name])] = jen.Values(jen.Lit(o.Name), jen.Lit(o.Handle), jen.Lit(o.Dispatchable), parent)
		}
	}))

	f.Comment(`String returns the enumerant name, e.g. "VK_OBJECT_TYPE_BUFFER", or "VkObjectType(N)" for values outside the registry.`)
	f.Func().Params(jen.Id("t").Id("ObjectType")).Id("String").Params().String().Block(
		jen.If(jen.List(jen.Id("i"), jen.Id("ok")).Op(":=").Id("objectTypeInfos").Index(jen.Id("t")), jen.Id("ok")).Block(jen.Return(jen.Id("i").Dot("name"))),
		jen.Return(jen.Lit("VkObjectType(").Op("+").Qual("strconv", "FormatInt").Call(jen.Int64().Call(jen.Id("t")), jen.Lit(10)).Op("+").Lit(")")),
	)
	f.Comment(`HandleName returns the Vulkan handle type of t, e.g. "VkBuffer"; "" for ObjectTypeUnknown and values outside the registry.`)
	f.Func().Params(jen.Id("t").Id("ObjectType")).Id("HandleName").Params().String().Block(
		jen.Return(jen.Id("objectTypeInfos").Index(jen.Id("t")).Dot("handle")),
	)
	f.Comment("Dispatchable reports whether handles of type t are dispatchable (carry a dispatch table pointer).")
	f.Func().Params(jen.Id("t").Id("ObjectType")).Id("Dispatchable").Params().Bool().Block(
		jen.Return(jen.Id("objectTypeInfos").Index(jen.Id("t")).Dot("dispatchable")),
	)
	f.Comment("Parent returns the type of the first parent handle of t, ObjectTypeUnknown when it has none.")
	f.Func().Params(jen.Id("t").Id("ObjectType")).Id("Parent").Params().Id("ObjectType").Block(
		jen.Return(jen.Id("objectTypeInfos").Index(jen.Id("t")).Dot("parent")),
	)
	f.Comment("Valid reports whether t is a value of the registry.")
	f.Func().Params(jen.Id("t").Id("ObjectType")).Id("Valid").Params().Bool().Block(
		jen.List(jen.Id("_"), jen.Id("ok")).Op(":=").Id("objectTypeInfos").Index(jen.Id("t")),
		jen.Return(jen.Id("ok")),
	)
}

func (g *namer) debugReport(f *jen.File) {
	t := g.t
	f.Comment("DebugReportObjectType is VkDebugReportObjectTypeEXT (VK_EXT_debug_report).")
	f.Type().Id("DebugReportObjectType").Int32()
	var vals []enumVal
	for _, d := range t.DebugReport {
		vals = append(vals, enumVal{d.Name, d.Value, d.Aliases})
	}
	if len(vals) > 0 {
		g.constBlock(f, "DebugReportObjectType", vals)
	}

	f.Var().Id("debugReportNames").Op("=").Map(jen.Id("DebugReportObjectType")).String().Values(jen.DictFunc(func(d jen.Dict) {
		for _, v := range t.DebugReport {
			d[jen.Id(g.names[v.Name])] = jen.Lit(v.Name)
		}
	}))
	f.Comment("debugReportToObjectType is the naming rule's mapping: the enumerant minus")
	f.Comment("VK_DEBUG_REPORT_OBJECT_TYPE_ and its final _EXT names the VkObjectType.")
	for _, u := range t.Unmapped() {
		f.Comment(fmt.Sprintf("%s names no VkObjectType and is unmapped.", u.Name))
	}
	f.Var().Id("debugReportToObjectType").Op("=").Map(jen.Id("DebugReportObjectType")).Id("ObjectType").Values(jen.DictFunc(func(d jen.Dict) {
		for _, v := range t.DebugReport {
			if v.ObjectType != "" {
				d[jen.Id(g.names[v.Name])] = jen.Id(g.names[v.ObjectType])
			}
		}
	}))
	// The reverse keeps the lowest debug-report value when two map to one type.
	seen := map[string]bool{}
	f.Var().Id("objectTypeToDebugReport").Op("=").Map(jen.Id("ObjectType")).Id("DebugReportObjectType").Values(jen.DictFunc(func(d jen.Dict) {
		for _, v := range t.DebugReport {
			if v.ObjectType != "" && !seen[v.ObjectType] {
				seen[v.ObjectType] = true
				d[jen.Id(g.names[v.ObjectType])] = jen.Id(g.names[v.Name])
			}
		}
	}))

	f.Comment(`String returns the enumerant name, e.g. "VK_DEBUG_REPORT_OBJECT_TYPE_BUFFER_EXT", or "VkDebugReportObjectTypeEXT(N)".`)
	f.Func().Params(jen.Id("t").Id("DebugReportObjectType")).Id("String").Params().String().Block(
		jen.If(jen.List(jen.Id("n"), jen.Id("ok")).Op(":=").Id("debugReportNames").Index(jen.Id("t")), jen.Id("ok")).Block(jen.Return(jen.Id("n"))),
		jen.Return(jen.Lit("VkDebugReportObjectTypeEXT(").Op("+").Qual("strconv", "FormatInt").Call(jen.Int64().Call(jen.Id("t")), jen.Lit(10)).Op("+").Lit(")")),
	)
	f.Comment("ObjectType maps t onto VkObjectType; ok is false when the registry names no VkObjectType for t.")
	f.Func().Params(jen.Id("t").Id("DebugReportObjectType")).Id("ObjectType").Params().Params(jen.Id("ObjectType"), jen.Bool()).Block(
		jen.List(jen.Id("o"), jen.Id("ok")).Op(":=").Id("debugReportToObjectType").Index(jen.Id("t")),
		jen.Return(jen.Id("o"), jen.Id("ok")),
	)
	f.Comment("DebugReportObjectType maps t back onto the legacy VkDebugReportObjectTypeEXT; ok is false when none names t.")
	f.Func().Params(jen.Id("t").Id("ObjectType")).Id("DebugReportObjectType").Params().Params(jen.Id("DebugReportObjectType"), jen.Bool()).Block(
		jen.List(jen.Id("d"), jen.Id("ok")).Op(":=").Id("objectTypeToDebugReport").Index(jen.Id("t")),
		jen.Return(jen.Id("d"), jen.Id("ok")),
	)
}

func (g *namer) destroyers(f *jen.File) {
	f.Comment("Destroyer is a command that ends the life of objects of one type.")
	f.Type().Id("Destroyer").Struct(
		jen.Id("Command").String().Comment(`"vkDestroyBuffer", "vkFreeCommandBuffers", ...`),
		jen.Id("ObjectType").Id("ObjectType").Comment("what it destroys"),
		jen.Id("Param").Int().Comment("index of the parameter holding the handle (or array)"),
		jen.Id("Count").Int().Comment("index of the count parameter of an array free, -1 otherwise"),
	)
	f.Comment("Destroyers lists every destroying command (aliases included), sorted by Command.")
	f.Var().Id("Destroyers").Op("=").Index().Id("Destroyer").ValuesFunc(func(l *jen.Group) {
		for _, d := range g.t.Destroyers {
			l.Line().Values(jen.Lit(d.Command), jen.Id(g.names[d.ObjectType]), jen.Lit(d.Param), jen.Lit(d.Count))
		}
		l.Line()
	})
	f.Comment("DestroyersOf returns the commands that destroy objects of type t, sorted by Command.")
	f.Func().Id("DestroyersOf").Params(jen.Id("t").Id("ObjectType")).Index().Id("Destroyer").Block(
		jen.Var().Id("out").Index().Id("Destroyer"),
		jen.For(jen.List(jen.Id("_"), jen.Id("d")).Op(":=").Range().Id("Destroyers")).Block(
			jen.If(jen.Id("d").Dot("ObjectType").Op("==").Id("t")).Block(
				jen.Id("out").Op("=").Append(jen.Id("out"), jen.Id("d")),
			),
		),
		jen.Return(jen.Id("out")),
	)
	f.Comment("DestroyerByCommand finds the destroyer named name (e.g. \"vkFreeMemory\").")
	f.Func().Id("DestroyerByCommand").Params(jen.Id("name").String()).Params(jen.Id("Destroyer"), jen.Bool()).Block(
		jen.Id("i").Op(":=").Qual("sort", "Search").Call(jen.Len(jen.Id("Destroyers")), jen.Func().Params(jen.Id("i").Int()).Bool().Block(
			jen.Return(jen.Id("Destroyers").Index(jen.Id("i")).Dot("Command").Op(">=").Id("name")),
		)),
		jen.If(jen.Id("i").Op("<").Len(jen.Id("Destroyers")).Op("&&").Id("Destroyers").Index(jen.Id("i")).Dot("Command").Op("==").Id("name")).Block(
			jen.Return(jen.Id("Destroyers").Index(jen.Id("i")), jen.True()),
		),
		jen.Return(jen.Id("Destroyer").Values(), jen.False()),
	)
}
