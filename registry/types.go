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
		switch attr(el, "category") {
		case "handle":
			b.handle(el, name)
		case "funcpointer":
			b.funcPointer(el, name)
		case "define":
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
	}
	for _, h := range b.reg.Handles {
		slices.Sort(h.Aliases)
	}
	return nil
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
// 1.4.339) and <proto>/<param> children (after). Both normalise to the same
// Decl, so generators never see the difference.
func (b *builder) funcPointer(el *etree.Element, name string) {
	fp := &FuncPointer{Name: name}
	if proto := el.SelectElement("proto"); proto != nil {
		fp.Return = returnType(proto)
		var decls []string
		for _, p := range el.SelectElements("param") {
			if !supports(attr(p, "api"), b.api) {
				continue
			}
			prm := param(p)
			fp.Params = append(fp.Params, prm)
			decls = append(decls, prm.Decl)
		}
		list := "void"
		if len(decls) > 0 {
			list = strings.Join(decls, ", ")
		}
		fp.Decl = "typedef " + fp.Return + " (VKAPI_PTR *" + name + ")(" + list + ");"
	} else {
		fp.Decl = tidyC(text(el))
		fp.Return, fp.Params = parseFuncPointerText(fp.Decl, name)
	}
	b.reg.FuncPointers = append(b.reg.FuncPointers, fp)
}

// tidyC drops the spaces the XML layout leaves inside parentheses and before
// commas: "( void* p , int x )" -> "(void* p, int x)".
func tidyC(s string) string {
	r := strings.NewReplacer("( ", "(", " )", ")", " ,", ",", " ;", ";")
	return r.Replace(s)
}

// parseFuncPointerText splits "typedef R (VKAPI_PTR *NAME)(params);".
func parseFuncPointerText(decl, name string) (string, []Param) {
	ret := strings.TrimPrefix(decl, "typedef ")
	if i := strings.Index(ret, "(VKAPI_PTR"); i >= 0 {
		ret = strings.TrimSpace(ret[:i])
	}
	marker := name + ")("
	i := strings.Index(decl, marker)
	if i < 0 {
		return ret, nil
	}
	list := strings.TrimSuffix(strings.TrimSuffix(decl[i+len(marker):], ";"), ")")
	if list == "void" || list == "" {
		return ret, nil
	}
	var params []Param
	for d := range strings.SplitSeq(list, ",") {
		d = strings.TrimSpace(d)
		f := strings.Fields(strings.NewReplacer("*", " ", "const ", "", "struct ", "").Replace(d))
		p := Param{Decl: d}
		if len(f) >= 2 {
			p.Type, p.Name = f[0], f[len(f)-1]
		}
		params = append(params, p)
	}
	return ret, params
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

func param(p *etree.Element) Param {
	return Param{
		Name:       childText(p, "name"),
		Type:       childText(p, "type"),
		Decl:       text(p),
		Optional:   attr(p, "optional"),
		Len:        attr(p, "len"),
		ExternSync: attr(p, "externsync"),
	}
}
