package goviews

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/vkgen/vkgen/registry"
)

// Slice accessors of counted pointers: a pointer member whose registry len
// names an integer member of the same struct (len="queueCreateInfoCount",
// "enabledLayerCount,null-terminated": the first part counts the outer
// pointer), or whose altlen is an expression of such members, API
// constants and integers (altlen="codeSize / 4", "2*VK_UUID_SIZE"), gets a method returning the elements as a slice
// over the memory it points to (the hand-written view in layer/vk: nil
// for a nil pointer, a zero count or an absurd one). Left out: len
// "null-terminated" alone (a C string), latexmath lens without an altlen,
// counts outside the struct, pointers to types without a view (opaque,
// platform, Win32 structs, the Vulkan Video std types of video.xml) and void pointers counted in other units than
// bytes (there are none in the registry: void* lens are byte sizes).

// altLenRE is an altlen the accessors express: identifiers, integers,
// + - * / and parentheses.
var (
	altLenRE   = regexp.MustCompile(`^[A-Za-z0-9_ +\-*/()]+$`)
	altLenWord = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
)

// countExpr is the Go expression of member m's element count in struct s
// (its receiver named "s"), false when it cannot be expressed.
func (g *gen) countExpr(s *registry.Struct, m registry.Decl) (*jen.Statement, bool) {
	first, _, _ := strings.Cut(m.Len, ",")
	expr := first
	if strings.HasPrefix(first, "latexmath:") {
		expr = m.AltLen
	}
	if expr == "" || expr == "null-terminated" || !altLenRE.MatchString(expr) {
		return nil, false
	}
	ok := true
	out := altLenWord.ReplaceAllStringFunc(expr, func(w string) string {
		if e, _ := g.r.EnumValue(w); e != nil && e.Kind == registry.EnumKindConstants && g.consts[w] != "" {
			return g.consts[w] // an API constant: 2*VK_UUID_SIZE
		}
		c := member(s, w)
		if c == nil || !g.integer(*c) {
			ok = false
			return w
		}
		return "s." + fieldName(w)
	})
	if !ok {
		return nil, false
	}
	return jen.Op(strings.Join(strings.Fields(out), " ")), true
}

func member(s *registry.Struct, name string) *registry.Decl {
	for i := range s.Members {
		if s.Members[i].Name == name {
			return &s.Members[i]
		}
	}
	return nil
}

// integer: a by-value integer member (scalar, or a basetype or enum of an
// integer type: uint32_t, size_t, VkDeviceSize, VkSampleCountFlagBits).
func (g *gen) integer(d registry.Decl) bool {
	if d.Pointers > 0 || len(d.Array) > 0 || d.BitWidth > 0 {
		return false
	}
	switch d.Type {
	case "float", "double", "char":
		return false
	}
	if scalars[d.Type] != nil {
		return true
	}
	t := g.r.Type(d.Type)
	if t == nil {
		return false
	}
	switch t.Kind {
	case registry.KindEnum, registry.KindBitmask:
		return true
	case registry.KindBaseType:
		return t.Underlying != nil && t.Underlying.Pointers == 0 && scalars[t.Underlying.Type] != nil && t.Underlying.Type != "float" && t.Underlying.Type != "double"
	}
	return false
}

// sliceMethod is the accessor of counted pointer member m of struct s (Go
// type id), nil when it has none; taken reports the names in use, claim
// takes one.
func (g *gen) sliceMethod(s *registry.Struct, id string, m registry.Decl, taken func(string) bool, claim func(string) (string, error)) ([]jen.Code, error) {
	if m.Pointers == 0 || len(m.Array) > 0 || m.Len == "" {
		return nil, nil
	}
	count, ok := g.countExpr(s, m)
	if !ok {
		return nil, nil
	}
	elem := m
	elem.Pointers--
	field := jen.Id("s").Dot(fieldName(m.Name))
	var et *jen.Statement
	switch base, err := g.baseType(m.Type, true); {
	case err != nil:
		return nil, err
	case base == nil && m.Type == "void" && m.Pointers == 1:
		et, field = jen.Byte(), jen.Parens(jen.Op("*").Byte()).Call(field)
	case base == nil && elem.Pointers == 0:
		return nil, nil // a pointer to a type without a view
	default:
		if et, err = g.goType(elem); err != nil {
			return nil, err
		}
	}
	name := strings.TrimLeft(m.Name, "p")
	if name == "" {
		return nil, nil
	}
	name = fieldName(name)
	if taken(name) {
		name += "Slice"
	}
	if taken(name) {
		return nil, fmt.Errorf("goviews: %s.%s: no free name for its slice accessor", s.Name, m.Name)
	}
	if _, err := claim(name); err != nil {
		return nil, err
	}
	what, _, _ := strings.Cut(m.Len, ",")
	if strings.HasPrefix(m.Len, "latexmath:") {
		what = m.AltLen
	}
	return []jen.Code{
		jen.Commentf("%s is %s as a slice of %s elements.", name, fieldName(m.Name), what),
		jen.Func().Params(jen.Id("s").Op("*").Id(id)).Id(name).Params().Index().Add(et).
			Op("{").Return(jen.Id("view").Call(field, count)).Op("}"),
		jen.Line(),
	}, nil
}
