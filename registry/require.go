package registry

import (
	"slices"
	"strconv"
	"strings"

	"github.com/beevik/etree"
)

// prescanFeature records which public feature each internal one
// (apitype="internal", VK_BASE_VERSION_1_0 and friends since 1.4.330) is
// merged into: the public feature of the same API version, as Khronos's
// generator emits their contents under VK_VERSION_x_y.
func (b *builder) prescanFeature(el *etree.Element) {
	if !supports(attr(el, "api"), b.api) || attr(el, "apitype") == "internal" {
		return
	}
	num, name := attr(el, "number"), attr(el, "name")
	if _, ok := b.publicFeature["#"+num]; !ok || strings.HasPrefix(name, "VK_VERSION_") {
		b.publicFeature["#"+num] = name
	}
}

// owner is the feature that element el's requirements are credited to.
func (b *builder) ownerOf(el *etree.Element) string {
	name := attr(el, "name")
	if attr(el, "apitype") != "internal" {
		return name
	}
	if pub, ok := b.publicFeature["#"+attr(el, "number")]; ok {
		b.publicFeature[name] = pub
		return pub
	}
	b.warnf(el, "internal feature %s has no public feature of version %s to merge into; kept on its own", name, attr(el, "number"))
	return name
}

func (b *builder) feature(el *etree.Element) error {
	b.checkAttrs(el, "feature")
	if !supports(attr(el, "api"), b.api) {
		return nil
	}
	owner := b.ownerOf(el)
	f := b.featureNamed(owner)
	if owner == attr(el, "name") {
		f.Number = attr(el, "number")
		f.API = splitList(attr(el, "api"))
		f.Depends = b.rewriteDepends(attr(el, "depends"), owner)
	} else {
		f.Merged = append(f.Merged, attr(el, "name"))
	}
	return b.requirements(el, owner, 0, &f.Commands, &f.Types, &f.Enums)
}

func (b *builder) featureNamed(name string) *Feature {
	for _, f := range b.reg.Features {
		if f.Name == name {
			return f
		}
	}
	f := &Feature{Name: name}
	b.reg.Features = append(b.reg.Features, f)
	return f
}

// rewriteDepends renames merged internal features to their public feature.
// In a plain conjunction (a+b+c) references to self disappear and duplicates
// are dropped; other expressions are only renamed.
func (b *builder) rewriteDepends(expr, self string) string {
	if expr == "" {
		return ""
	}
	if !strings.ContainsAny(expr, ",()") {
		var terms []string
		for t := range strings.SplitSeq(expr, "+") {
			if pub, ok := b.publicFeature[t]; ok {
				t = pub
			}
			if t != self {
				terms = appendUnique(terms, t)
			}
		}
		return strings.Join(terms, "+")
	}
	var sb strings.Builder
	start := 0
	flush := func(end int) {
		t := expr[start:end]
		if pub, ok := b.publicFeature[t]; ok {
			t = pub
		}
		sb.WriteString(t)
	}
	for i := 0; i < len(expr); i++ {
		if strings.IndexByte("+,()", expr[i]) >= 0 {
			flush(i)
			sb.WriteByte(expr[i])
			start = i + 1
		}
	}
	flush(len(expr))
	return sb.String()
}

// oldDepends converts the pre-1.3.241 requires="a,b" (all of them) and
// requiresCore="1.1" into the depends syntax: "VK_VERSION_1_1+a+b".
func oldDepends(requires, core string) string {
	var terms []string
	if core != "" && core != "1.0" {
		terms = append(terms, "VK_VERSION_"+strings.ReplaceAll(core, ".", "_"))
	}
	terms = append(terms, splitList(requires)...)
	return strings.Join(terms, "+")
}

func (b *builder) extension(el *etree.Element) error {
	b.checkAttrs(el, "extension")
	name := attr(el, "name")
	num, err := strconv.Atoi(attr(el, "number"))
	if err != nil || num <= 0 {
		return b.errorf(el, "extension %s: number %q is not a positive number", name, attr(el, "number"))
	}
	supported := attr(el, "supported")
	// Extensions not supported for the selected API, "disabled" ones
	// included, are left out of the model entirely, with their enumerants.
	if !supports(supported, b.api) {
		return nil
	}
	x := &Extension{
		Name:         name,
		Number:       num,
		Type:         attr(el, "type"),
		Supported:    splitList(supported),
		Provisional:  attr(el, "provisional") == "true",
		Platform:     attr(el, "platform"),
		Protect:      attr(el, "protect"),
		Depends:      attr(el, "depends"),
		PromotedTo:   attr(el, "promotedto"),
		DeprecatedBy: attr(el, "deprecatedby"),
		ObsoletedBy:  attr(el, "obsoletedby"),
	}
	if x.Platform != "" && x.Protect == "" {
		p, ok := b.protectOf[x.Platform]
		if !ok {
			b.warnf(el, "extension %s: platform %q is not in <platforms>", name, x.Platform)
		}
		x.Protect = p
	}
	if x.Depends == "" {
		x.Depends = oldDepends(attr(el, "requires"), attr(el, "requiresCore"))
	} else {
		x.Depends = b.rewriteDepends(x.Depends, name)
	}
	if x.Protect != "" {
		b.extProtect[name] = x.Protect
	}
	b.reg.Extensions = append(b.reg.Extensions, x)
	return b.requirements(el, name, num, &x.Commands, &x.Types, &x.Enums)
}

// requirements walks the <require>, <remove> and <deprecate> blocks of a
// feature or extension, crediting each named interface to owner.
func (b *builder) requirements(el *etree.Element, owner string, extNumber int, cmds, types, enums *[]string) error {
	for _, blk := range el.ChildElements() {
		switch blk.Tag {
		case "require":
		case "remove":
			b.checkAttrs(blk, "remove")
			if supports(attr(blk, "api"), b.api) {
				for _, r := range blk.ChildElements() {
					if r.Tag == "command" || r.Tag == "type" || r.Tag == "enum" {
						b.removed[attr(r, "name")] = true
					}
				}
			}
			continue
		case "deprecate":
			b.checkAttrs(blk, "deprecate")
			continue
		default:
			b.warnf(blk, "unknown element <%s> in <%s>", blk.Tag, el.Tag)
			continue
		}
		b.checkAttrs(blk, "require")
		if !supports(attr(blk, "api"), b.api) {
			continue
		}
		for _, r := range blk.ChildElements() {
			name := attr(r, "name")
			switch r.Tag {
			case "command":
				b.checkAttrs(r, "ref:command")
				b.credit(name, owner)
				*cmds = appendUnique(*cmds, name)
			case "type":
				b.checkAttrs(r, "ref:type")
				b.credit(name, owner)
				*types = appendUnique(*types, name)
			case "enum":
				b.checkAttrs(r, "enum")
				if !supports(attr(r, "api"), b.api) {
					continue
				}
				if err := b.requiredEnum(r, owner, extNumber); err != nil {
					return err
				}
				*enums = appendUnique(*enums, name)
			case "feature":
				b.checkAttrs(r, "ref:feature")
			case "comment":
			default:
				b.warnf(r, "unknown element <%s> in <require>", r.Tag)
			}
		}
	}
	return nil
}

func (b *builder) credit(name, owner string) {
	if list := b.required[name]; !slices.Contains(list, owner) {
		b.required[name] = append(list, owner)
	}
}

// requiredEnum handles an <enum> inside <require>: extends= adds a value to
// an existing enum; anything else is a reference or an extension constant.
func (b *builder) requiredEnum(r *etree.Element, owner string, extNumber int) error {
	b.credit(attr(r, "name"), owner)
	extends := attr(r, "extends")
	if extends == "" {
		return nil
	}
	e := b.enums[b.resolveType(extends)]
	v, err := b.enumValue(r, e, extNumber)
	if err != nil {
		return err
	}
	if e == nil {
		b.warnf(r, "enum %s extends %s, which is not an enum of API %s", v.Name, extends, b.api)
		return nil
	}
	v.RequiredBy = owner
	if v.Protect == "" {
		v.Protect = b.extProtect[owner]
	}
	b.addValue(r, e, v)
	return nil
}
