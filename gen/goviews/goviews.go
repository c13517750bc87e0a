// Package goviews renders package layer/vk with dave/jennifer: Go types
// whose memory layout is C's (LP64, from gen/cabi) for every struct and
// union the registry requires, with the handle, enum, flags, basetype,
// funcpointer types and API constants they use. A layer written in Go reads
// Vulkan structures through them instead of cgo types. It produces bytes
// only and must not read XML.
package goviews

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/vkgen/vkgen/gen/cabi"
	"github.com/vkgen/vkgen/gen/genfile"
	"github.com/vkgen/vkgen/gen/objtypes"
	"github.com/vkgen/vkgen/registry"
)

// PackageName is the package the files belong to.
const PackageName = "vk"

// reserved are the identifiers the hand-written files of layer/vk declare.
var reserved = []string{"Find", "Chain", "Chained", "BaseIn", "MaxChainLength", "view", "maxView", "names", "noNames"}

// gen holds one rendering: the registry, the layouts and every Go name.
type gen struct {
	r      *registry.Registry
	abi    *cabi.ABI
	tags   *objtypes.Tables // vendor tags for enumerant names
	source string
	// goName maps emitted C type names (aliases included) to Go names.
	goName map[string]string
	// owner maps every Go identifier to what declared it, to refuse clashes.
	owner   map[string]string
	consts  map[string]string // enumerant -> Go constant
	structs []*registry.Struct
	layouts map[string]*cabi.Layout
	// Skipped are the required structs without a known layout (a member of
	// a platform type the ABI table lacks, such as Win32 HANDLE), by name.
	Skipped map[string]string
}

// Generate renders the files of layer/vk from r.
func Generate(r *registry.Registry) ([]genfile.File, error) {
	g, err := build(r)
	if err != nil {
		return nil, err
	}
	return g.render()
}

func build(r *registry.Registry) (*gen, error) {
	tags, err := objtypes.Derive(r)
	if err != nil {
		return nil, err
	}
	g := &gen{
		r: r, abi: cabi.New(r), tags: tags, source: genfile.Source(r),
		goName: map[string]string{}, owner: map[string]string{}, consts: map[string]string{},
		layouts: map[string]*cabi.Layout{}, Skipped: map[string]string{},
	}
	for _, id := range reserved {
		g.owner[id] = "layer/vk"
	}
	for _, s := range r.Structs {
		if len(s.RequiredBy) == 0 {
			continue
		}
		l, err := g.abi.Struct(s.Name)
		if err != nil {
			g.Skipped[s.Name] = err.Error()
			continue
		}
		g.layouts[s.Name] = l
		g.structs = append(g.structs, s)
	}
	// Type names first (constants yield to them), then enumerants.
	for _, t := range r.Types {
		if !g.emits(t) {
			continue
		}
		for _, n := range append([]string{t.Name}, t.Aliases...) {
			if err := g.claim(typeGoName(n), n); err != nil {
				return nil, err
			}
			g.goName[n] = typeGoName(n)
		}
	}
	for _, e := range r.Enums {
		if e.Kind != registry.EnumKindConstants && g.goName[e.Name] == "" {
			continue
		}
		for _, v := range e.Values {
			name := tags.GoName(strings.TrimPrefix(v.Name, "VK_"))
			if _, isType := g.owner[name]; isType && g.r.Type(g.owner[name]) != nil {
				name += "Value"
			}
			// Old spellings differing only in an underscore before a digit
			// (VK_..._CAPABILITIES2_EXT, an alias of _CAPABILITIES_2_EXT)
			// share their target's constant.
			if prev := g.owner[name]; v.Alias != "" && g.canonical(v.Alias) == g.canonical(prev) {
				g.consts[v.Name] = name
				continue
			}
			if err := g.claim(name, v.Name); err != nil {
				return nil, err
			}
			g.consts[v.Name] = name
		}
	}
	return g, nil
}

// canonical follows enumerant aliases to the enumerant they name.
func (g *gen) canonical(name string) string {
	for range 16 {
		_, v := g.r.EnumValue(name)
		if v == nil || v.Alias == "" {
			break
		}
		name = v.Alias
	}
	return name
}

// emits reports whether layer/vk declares a Go type for t: structs with a
// layout, every handle, enum, flags type and funcpointer, and basetypes
// that are not opaque.
func (g *gen) emits(t *registry.Type) bool {
	switch t.Kind {
	case registry.KindStruct, registry.KindUnion:
		return g.layouts[t.Name] != nil
	case registry.KindHandle, registry.KindEnum, registry.KindBitmask, registry.KindFuncPointer:
		return true
	case registry.KindBaseType:
		return t.Underlying != nil && g.basetypeOK(t)
	}
	return false
}

func (g *gen) basetypeOK(t *registry.Type) bool {
	if t.Underlying.Pointers > 0 {
		return true
	}
	_, _, err := g.abi.Decl(*t.Underlying)
	return err == nil
}

func (g *gen) claim(id, what string) error {
	if prev, ok := g.owner[id]; ok && prev != what {
		return fmt.Errorf("goviews: %s and %s both become Go name %s", prev, what, id)
	}
	g.owner[id] = what
	return nil
}

// typeGoName drops the Vk prefix (VkBufferCreateInfo -> BufferCreateInfo)
// and turns PFN_vkX into PFNX; other names (MTLDevice_id) stay.
func typeGoName(c string) string {
	if rest, ok := strings.CutPrefix(c, "PFN_vk"); ok {
		return "PFN" + rest
	}
	if rest, ok := strings.CutPrefix(c, "Vk"); ok && rest != "" && rest[0] >= 'A' && rest[0] <= 'Z' {
		return rest
	}
	return c
}

// fieldName exports a member name: pQueueFamilyIndices -> PQueueFamilyIndices.
func fieldName(m string) string { return strings.ToUpper(m[:1]) + m[1:] }

// scalars are the Go types of the vk_platform.h types (LP64: size_t is
// 64 bits like uintptr).
var scalars = map[string]func() *jen.Statement{
	"char": jen.Byte, "int8_t": jen.Int8, "uint8_t": jen.Uint8, "int16_t": jen.Int16, "uint16_t": jen.Uint16,
	"int32_t": jen.Int32, "uint32_t": jen.Uint32, "int": jen.Int32, "int64_t": jen.Int64, "uint64_t": jen.Uint64,
	"float": jen.Float32, "double": jen.Float64, "size_t": jen.Uintptr,
}

// sized is the unsigned Go integer of a C type's size.
func sized(n int) (*jen.Statement, error) {
	switch n {
	case 1:
		return jen.Uint8(), nil
	case 2:
		return jen.Uint16(), nil
	case 4:
		return jen.Uint32(), nil
	case 8:
		return jen.Uint64(), nil
	}
	return nil, fmt.Errorf("no Go integer of %d bytes", n)
}

// goType is the Go type of a declaration: pointers to types layer/vk
// declares are typed, others (void, opaque and platform types) are
// unsafe.Pointer; arrays keep their dimensions.
func (g *gen) goType(d registry.Decl) (*jen.Statement, error) {
	base, err := g.baseType(d.Type, d.Pointers > 0)
	if err != nil {
		return nil, err
	}
	ptrs := d.Pointers
	if base == nil { // no Go type: the first pointer level is unsafe.Pointer
		base, ptrs = jen.Qual("unsafe", "Pointer"), ptrs-1
	}
	s := jen.Empty()
	for _, a := range d.Array {
		s.Index(jen.Lit(a.Size))
	}
	return s.Op(strings.Repeat("*", ptrs)).Add(base), nil
}

// baseType is the Go type of a base type name, nil when only a pointer to
// it can be expressed (void, opaque, platform or unlaid-out types).
func (g *gen) baseType(name string, pointer bool) (*jen.Statement, error) {
	t := g.r.Type(name)
	if t != nil {
		if id := g.goName[name]; id != "" {
			return jen.Id(id), nil
		}
		if f := scalars[t.Name]; f != nil && t.Kind == registry.KindScalar {
			return f(), nil
		}
	}
	if pointer {
		return nil, nil
	}
	size, _, err := g.abi.Type(name)
	if err != nil {
		return nil, err
	}
	return sized(size) // platform types by value: their size
}

// kindType is the underlying Go type of a handle, enum, flags type,
// funcpointer or basetype.
func (g *gen) kindType(t *registry.Type) (*jen.Statement, error) {
	switch t.Kind {
	case registry.KindHandle:
		if h := g.r.Handle(t.Name); h != nil && h.Dispatchable {
			return jen.Uintptr(), nil
		}
		return jen.Uint64(), nil
	case registry.KindFuncPointer:
		return jen.Qual("unsafe", "Pointer"), nil
	case registry.KindEnum:
		if e := g.r.Enum(t.Name); e != nil && e.Kind == registry.EnumKindBitmask {
			return sized(e.BitWidth / 8)
		}
		return jen.Int32(), nil
	case registry.KindBitmask:
		size, _, err := g.abi.Type(t.Name)
		if err != nil {
			return nil, err
		}
		return sized(size)
	}
	d := *t.Underlying
	if d.Pointers == 0 {
		if f := scalars[d.Type]; f != nil {
			return f(), nil
		}
	}
	return g.goType(d)
}

// render builds the files (named by genfile.Name): types.go (handles, enums' types, flags,
// basetypes, funcpointers, API constants), enums_<group>.go (the
// enumerants, by the first letter of their type), structs_<group>.go (by
// the first letter of the struct), and the layout table of the tests.
func (g *gen) render() ([]genfile.File, error) {
	files := map[string]*jen.File{}
	file := func(name string) *jen.File {
		if f := files[name]; f != nil {
			return f
		}
		f := jen.NewFile(PackageName)
		f.HeaderComment(genfile.Header)
		f.HeaderComment("Source: " + g.source + ".")
		files[name] = f
		return f
	}
	// Every registry gets the same files, so none is left behind when
	// another registry's output replaces this one's.
	for _, grp := range enumFiles {
		file("enums_" + grp + ".go")
	}
	for _, grp := range structFiles {
		file("structs_" + grp + ".go")
	}
	if err := g.types(file("types.go")); err != nil {
		return nil, err
	}
	g.constants(file("types.go"))
	for _, e := range g.r.Enums {
		if _, gen := fromGenerated[e.Name]; e.Kind != registry.EnumKindConstants && g.goName[e.Name] != "" && !gen {
			f := file("enums_" + group(enumFiles, g.goName[e.Name]) + ".go")
			g.enumerants(f, e)
			if err := g.enumStrings(f, e); err != nil {
				return nil, err
			}
		}
	}
	for _, t := range g.r.Types {
		if t.Kind == registry.KindBitmask && g.goName[t.Name] != "" {
			g.flagsStrings(file("enums_"+group(enumFiles, g.goName[t.Name])+".go"), t)
		}
	}
	for _, s := range g.structs {
		if err := g.structType(file("structs_"+group(structFiles, g.goName[s.Name])+".go"), s); err != nil {
			return nil, err
		}
	}
	g.layoutTable(file("layouts_test.go"))
	g.stringerTable(file("layouts_test.go"))
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []genfile.File
	for _, n := range names {
		var buf bytes.Buffer
		if err := files[n].Render(&buf); err != nil {
			return nil, fmt.Errorf("goviews: %s: %w", n, err)
		}
		out = append(out, genfile.File{Name: genfile.Name(n), Data: buf.Bytes()})
	}
	return out, nil
}

// enumFiles and structFiles split the enumerants and structs by the first
// letter of their type's Go name, each group's file under 1 MiB (the
// biggest, StructureType and the PhysicalDevice* structs, are near 400 KB).
var (
	enumFiles   = []string{"a-c", "d", "e-o", "p-r", "s", "t-z"}
	structFiles = []string{"a", "b", "c", "d", "e-h", "i-o", "p", "q-r", "s", "t-z"}
)

// group is the group of groups ("a-c", "d") holding goName's first letter.
func group(groups []string, goName string) string {
	c := strings.ToLower(goName[:1])
	for _, grp := range groups {
		first, last, _ := strings.Cut(grp, "-")
		if last == "" {
			last = first
		}
		if c >= first && c <= last {
			return grp
		}
	}
	return groups[len(groups)-1]
}
