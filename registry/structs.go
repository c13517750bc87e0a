package registry

import (
	"slices"

	"github.com/beevik/etree"
)

// Struct is a struct or union type.
type Struct struct {
	Name    string
	Union   bool
	Members []Decl
	// SType is the VK_STRUCTURE_TYPE_ value of its sType member, "" when
	// it has none (or the member names no value, as VkBaseInStructure).
	SType        string
	Extends      []string // structextends: the structs whose pNext chain it may extend
	ReturnedOnly bool
	Aliases      []string
	Protect      string
	// RequiredBy are the features and extensions requiring it, or, in old
	// registries that do not <require> it, those requiring a command or
	// struct that uses it.
	RequiredBy []string
}

// TypeKind says what C type a type name is.
type TypeKind int

const (
	KindUnknown     TypeKind = iota
	KindScalar               // a C type from vk_platform.h: uint32_t, float, char, void, size_t, int
	KindHandle               // see Registry.Handle
	KindEnum                 // VkFormat, VkFooFlagBits: see Registry.Enum for the values and width
	KindBitmask              // VkFooFlags: Underlying is VkFlags or VkFlags64
	KindStruct               // see Registry.Struct
	KindUnion                // see Registry.Struct
	KindFuncPointer          // PFN_*
	KindBaseType             // VkBool32, VkDeviceSize; Underlying is nil for opaque types (ANativeWindow)
	KindExternal             // a platform or video type from another header: Display, HANDLE, StdVideo*
)

var kindNames = [...]string{"unknown", "scalar", "handle", "enum", "bitmask", "struct", "union", "funcpointer", "basetype", "external"}

func (k TypeKind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "TypeKind(?)"
}

// Type is what the registry says about one type name.
type Type struct {
	Name string
	Kind TypeKind
	// Underlying is the C type a basetype or bitmask is a typedef of
	// (VkBool32: uint32_t; VkRemoteAddressNV: void*; VkFooFlags: VkFlags).
	Underlying *Decl
	Header     string   // requires= of scalar and external types: "vk_platform", "X11/Xlib.h"
	Aliases    []string // other names of the type (VkBufferUsageFlags2KHR), sorted
	// Bits is the FlagBits enum naming a bitmask type's bits (its
	// bitvalues= or requires=), "" when it has none.
	Bits string
}

// structType reads a <type category="struct|union">.
func (b *builder) structType(el *etree.Element, name string, union bool) error {
	s := &Struct{
		Name: name, Union: union,
		Extends:      splitList(attr(el, "structextends")),
		ReturnedOnly: attr(el, "returnedonly") == "true",
	}
	var els []*etree.Element
	for _, m := range el.ChildElements() {
		switch m.Tag {
		case "member":
			b.checkAttrs(m, "member")
			if !supports(attr(m, "api"), b.api) {
				continue
			}
			d, err := b.decl(m)
			if err != nil {
				return err
			}
			if d.Name == "sType" && d.Type == "VkStructureType" {
				s.SType = d.Values
			}
			s.Members = append(s.Members, d)
			els = append(els, m)
		case "comment", "validity":
		default:
			b.warnf(m, "unknown element <%s> in <type category=%q>", m.Tag, attr(el, "category"))
		}
	}
	if b.structs[name] != nil {
		b.warnf(el, "struct %s defined twice; keeping the first", name)
		return nil
	}
	kind := KindStruct
	if union {
		kind = KindUnion
	}
	b.addType(el, &Type{Name: name, Kind: kind})
	b.structs[name] = s
	b.reg.Structs = append(b.reg.Structs, s)
	b.addPending(name, s.Members, els)
	return nil
}

// typedef reads a basetype or bitmask: "typedef <type>uint32_t</type>
// <name>VkBool32</name>;", "typedef void* <name>VkRemoteAddressNV</name>;",
// or an opaque "struct <name>ANativeWindow</name>;". Platform basetypes wrap
// their typedef in #ifdef text; the typedef nearest the <name> counts.
func (b *builder) typedef(el *etree.Element, name, cat string) error {
	toks := tokens(el)
	at := slices.IndexFunc(toks, func(t token) bool { return t.kind == tokName })
	if at < 0 {
		return b.errorf(el, "<type category=%q> without <name>", cat)
	}
	t := &Type{Name: name, Kind: KindBaseType}
	if cat == "bitmask" {
		t.Kind = KindBitmask
		t.Bits = attr(el, "bitvalues")
		if t.Bits == "" {
			t.Bits = attr(el, "requires")
		}
	}
	start := -1
	for i := at - 1; i >= 0 && start < 0; i-- {
		if toks[i].is(tokIdent, "typedef") {
			start = i + 1
		}
	}
	if start >= 0 {
		d, msg := parseDecl(toks[start:at+1], false)
		if msg != "" {
			return b.errorf(el, "%s %s: %s", cat, name, msg)
		}
		t.Underlying = &d
	} else if cat == "bitmask" {
		return b.errorf(el, "bitmask %s is not a typedef", name)
	}
	b.addType(el, t)
	return nil
}

// pendingDecl is a declaration whose type names are checked, and whose
// array constants are resolved, once the whole registry is read.
type pendingDecl struct {
	el    *etree.Element
	owner string
	d     *Decl
}

// addPending queues the declarations of owner, els[i] being where decls[i]
// is written.
func (b *builder) addPending(owner string, decls []Decl, els []*etree.Element) {
	for i := range decls {
		b.pending = append(b.pending, pendingDecl{els[i], owner, &decls[i]})
	}
}

// resolveDecls gives array dimensions their constant's value and reports
// base types the registry does not define.
func (b *builder) resolveDecls() {
	for _, p := range b.pending {
		if b.typeByName[b.resolveType(p.d.Type)] == nil {
			b.warnf(p.el, "%s: %s has unknown type %s", p.owner, p.d.Name, p.d.Type)
		}
		for i := range p.d.Array {
			a := &p.d.Array[i]
			if a.Const == "" {
				continue
			}
			v := b.values[a.Const]
			if v == nil || v.Value <= 0 {
				b.warnf(p.el, "%s: %s: array size %s is not an API constant", p.owner, p.d.Name, a.Const)
				continue
			}
			a.Size = int(v.Value)
		}
	}
	b.pending = nil
	for _, s := range b.reg.Structs {
		s.RequiredBy = b.requirers(s.Name, s.Aliases)
	}
	b.implicitStructs()
	for _, s := range b.reg.Structs {
		s.Protect = b.protect(s.RequiredBy)
	}
}

// implicitStructs credits the structs old registries do not <require>
// (Vulkan 1.0 lists few) to whoever requires a command or struct using
// them, as the C headers' generator pulls them in.
func (b *builder) implicitStructs() {
	implicit := map[*Struct]bool{}
	for _, s := range b.reg.Structs {
		implicit[s] = len(s.RequiredBy) == 0 && !b.removed[s.Name]
	}
	credit := func(d Decl, by []string) bool {
		s := b.structs[b.resolveType(d.Type)]
		if s == nil || !implicit[s] || len(by) == 0 {
			return false
		}
		n := len(s.RequiredBy)
		s.RequiredBy = appendUnique(s.RequiredBy, by...)
		return len(s.RequiredBy) > n
	}
	for _, c := range b.reg.Commands {
		for _, p := range c.Params {
			credit(p, c.RequiredBy)
		}
	}
	for changed := true; changed; {
		changed = false
		for _, s := range b.reg.Structs {
			for _, m := range s.Members {
				if credit(m, s.RequiredBy) {
					changed = true
				}
			}
		}
	}
}

// Struct returns the struct or union named name or one of its aliases, nil if none.
func (r *Registry) Struct(name string) *Struct { return r.structByName[name] }

// Type returns what the registry says about a type name (aliases resolve
// to their target), nil if it defines no such type.
func (r *Registry) Type(name string) *Type { return r.typeByName[name] }
