package registry

import (
	"slices"
	"strconv"
	"strings"

	"github.com/beevik/etree"
)

func (b *builder) types(sec *etree.Element) error {
	b.checkAttrs(sec, "types")
	for _, el := range sec.ChildElements() {
		switch el.Tag {
		case "comment":
			continue
		case "type":
		default:
			b.warnf(el, "unknown element <%s> in <types>", el.Tag)
			continue
		}
		b.checkAttrs(el, "type")
		if !supports(attr(el, "api"), b.api) {
			continue
		}
		name := attr(el, "name")
		if name == "" {
			name = childText(el, "name")
		}
		if proto := el.SelectElement("proto"); name == "" && proto != nil {
			name = childText(proto, "name") // funcpointers since 1.4.339
		}
		if alias := attr(el, "alias"); alias != "" {
			b.typeAlias[name] = alias
			continue
		}
		cat := attr(el, "category")
		switch cat {
		case "handle":
			b.handle(el, name)
			b.addType(el, &Type{Name: name, Kind: KindHandle})
		case "funcpointer":
			if err := b.funcPointer(el, name); err != nil {
				return err
			}
			b.addType(el, &Type{Name: name, Kind: KindFuncPointer})
		case "struct", "union":
			if err := b.structType(el, name, cat == "union"); err != nil {
				return err
			}
		case "basetype", "bitmask":
			if err := b.typedef(el, name, cat); err != nil {
				return err
			}
		case "enum":
			b.addType(el, &Type{Name: name, Kind: KindEnum})
		case "":
			// C types come from vk_platform.h; older registries list int
			// without requires=.
			kind := KindExternal
			if req := attr(el, "requires"); req == "vk_platform" || req == "" {
				kind = KindScalar
			}
			b.addType(el, &Type{Name: name, Kind: kind, Header: attr(el, "requires")})
		case "define":
			// Old registries file opaque platform types ("struct
			// <name>ANativeWindow</name>;") as defines; macros are "#define".
			if !isMacro(el) {
				if err := b.typedef(el, name, "basetype"); err != nil {
					return err
				}
				continue
			}
			if name == "VK_HEADER_VERSION" && !b.headerSeen {
				if err := b.headerVersion(el); err != nil {
					return err
				}
			}
		}
	}
	// Aliases of handles and enums are folded into their targets; chains
	// (A -> B -> C) resolve to the final target.
	for alias := range b.typeAlias {
		target := b.resolveType(alias)
		if h := b.handles[target]; h != nil {
			h.Aliases = append(h.Aliases, alias)
		}
		if s := b.structs[target]; s != nil {
			s.Aliases = append(s.Aliases, alias)
		}
	}
	for _, h := range b.reg.Handles {
		slices.Sort(h.Aliases)
	}
	for _, s := range b.reg.Structs {
		slices.Sort(s.Aliases)
	}
	return nil
}

// addType records the kind of a type name; the first definition wins, as
// for handles.
func (b *builder) addType(el *etree.Element, t *Type) {
	if name := t.Name; name == "" {
		b.warnf(el, "<type> without a name")
	} else if b.typeByName[name] == nil {
		b.typeByName[name] = t
		b.reg.Types = append(b.reg.Types, t)
	}
}

func (b *builder) handle(el *etree.Element, name string) {
	h := &Handle{
		Name:         name,
		ObjectType:   attr(el, "objtypeenum"),
		Parents:      splitList(attr(el, "parent")),
		Dispatchable: childText(el, "type") == "VK_DEFINE_HANDLE",
	}
	if prev := b.handles[name]; prev != nil {
		b.warnf(el, "handle %s defined twice; keeping the first", name)
		return
	}
	b.handles[name] = h
	b.reg.Handles = append(b.reg.Handles, h)
}

func (b *builder) headerVersion(el *etree.Element) error {
	// "#define VK_HEADER_VERSION 359": the number follows the <name>.
	t := text(el)
	i := strings.Index(t, "VK_HEADER_VERSION")
	f := strings.Fields(t[i+len("VK_HEADER_VERSION"):])
	if len(f) == 0 {
		return b.errorf(el, "VK_HEADER_VERSION has no value")
	}
	v, err := strconv.Atoi(f[0])
	if err != nil {
		return b.errorf(el, "VK_HEADER_VERSION value %q is not a number", f[0])
	}
	b.reg.HeaderVersion = v
	b.headerSeen = true
	return nil
}

// funcPointer models both syntaxes: the C text with a <name> child (before
// 1.4.339) and <proto>/<param> children (after). Both give typed
// parameters, so generators never see the difference.
func (b *builder) funcPointer(el *etree.Element, name string) error {
	fp := &FuncPointer{Name: name}
	var els []*etree.Element // per parameter, where it is declared
	if proto := el.SelectElement("proto"); proto != nil {
		fp.Return = returnType(proto)
		for _, p := range el.SelectElements("param") {
			if !supports(attr(p, "api"), b.api) {
				continue
			}
			d, err := b.decl(p)
			if err != nil {
				return err
			}
			fp.Params = append(fp.Params, d)
			els = append(els, p)
		}
	} else {
		// typedef R (VKAPI_PTR *<name>PFN</name>)(T1 p1, T2 p2);
		toks := tokens(el)
		open := slices.IndexFunc(toks, func(t token) bool { return t.is(tokPunct, "(") })
		at := slices.IndexFunc(toks, func(t token) bool { return t.kind == tokName })
		if open < 1 || at < open || at+2 >= len(toks) || !toks[at+1].is(tokPunct, ")") || !toks[at+2].is(tokPunct, "(") {
			return b.errorf(el, "funcpointer %s is not \"typedef R (VKAPI_PTR *NAME)(params);\"", name)
		}
		ret, msg := parseDecl(append(slices.Clone(toks[1:open]), token{tokName, ""}), false)
		if msg != "" {
			return b.errorf(el, "funcpointer %s: return type: %s", name, msg)
		}
		fp.Return = ret.CType()
		list := toks[at+3:]
		if end := slices.IndexFunc(list, func(t token) bool { return t.is(tokPunct, ")") }); end >= 0 {
			list = list[:end]
		}
		if len(list) == 1 && list[0].text == "void" {
			list = nil
		}
		for len(list) > 0 {
			n := slices.IndexFunc(list, func(t token) bool { return t.is(tokPunct, ",") })
			if n < 0 {
				n = len(list)
			}
			d, msg := parseDecl(list[:n], true)
			if msg != "" {
				return b.errorf(el, "funcpointer %s: parameter %d: %s", name, len(fp.Params)+1, msg)
			}
			fp.Params = append(fp.Params, d)
			els = append(els, el)
			list = list[min(n+1, len(list)):]
		}
	}
	b.reg.FuncPointers = append(b.reg.FuncPointers, fp)
	b.addPending(name, fp.Params, els)
	return nil
}

func returnType(proto *etree.Element) string {
	var parts []string
	for _, c := range proto.Child {
		switch t := c.(type) {
		case *etree.CharData:
			parts = append(parts, t.Data)
		case *etree.Element:
			if t.Tag != "name" {
				parts = append(parts, t.Text())
			}
		}
	}
	return strings.Join(strings.Fields(strings.Join(parts, "")), " ")
}

// decl reads the typed declaration of a <param> or <member>.
func (b *builder) decl(el *etree.Element) (Decl, error) {
	d, msg := parseDecl(tokens(el), false)
	if msg != "" {
		what := "<" + el.Tag + ">"
		if d.Name != "" {
			what += " " + d.Name
		}
		return d, b.errorf(el, "%s: %s", what, msg)
	}
	d.Len = attr(el, "len")
	d.AltLen = attr(el, "altlen")
	d.Optional = parseOptional(attr(el, "optional"))
	d.ExternSync = attr(el, "externsync")
	d.NoAutoValidity = attr(el, "noautovalidity") == "true"
	d.Values = attr(el, "values")
	d.Selector = attr(el, "selector")
	d.Selection = splitList(attr(el, "selection"))
	return d, nil
}

// isMacro reports whether a category="define" type is a #define.
func isMacro(el *etree.Element) bool {
	toks := tokens(el)
	for i := 1; i < len(toks); i++ {
		if toks[i-1].is(tokOther, "#") && toks[i].is(tokIdent, "define") {
			return true
		}
	}
	return false
}
