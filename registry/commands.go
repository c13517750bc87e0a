package registry

import (
	"slices"

	"github.com/beevik/etree"
)

func (b *builder) command(el *etree.Element) error {
	if el.Tag != "command" {
		b.warnf(el, "unknown element <%s> in <commands>", el.Tag)
		return nil
	}
	b.checkAttrs(el, "command")
	if !supports(attr(el, "api"), b.api) {
		return nil
	}
	if alias := attr(el, "alias"); alias != "" {
		name := attr(el, "name")
		if name == "" {
			return b.errorf(el, "command alias %s without a name", alias)
		}
		b.cmdAlias[name] = alias
		return nil
	}
	proto := el.SelectElement("proto")
	if proto == nil {
		return b.errorf(el, "<command> without <proto>")
	}
	b.checkAttrs(proto, "proto")
	c := &Command{Name: childText(proto, "name"), Return: returnType(proto)}
	if c.Name == "" {
		return b.errorf(proto, "<proto> without <name>")
	}
	var els []*etree.Element
	for _, ch := range el.ChildElements() {
		switch ch.Tag {
		case "param":
			b.checkAttrs(ch, "param")
			if supports(attr(ch, "api"), b.api) {
				d, err := b.decl(ch)
				if err != nil {
					return err
				}
				c.Params = append(c.Params, d)
				els = append(els, ch)
			}
		case "proto", "implicitexternsyncparams", "validity", "description", "comment":
		default:
			b.warnf(ch, "unknown element <%s> in <command>", ch.Tag)
		}
	}
	if b.commands[c.Name] != nil {
		b.warnf(el, "command %s defined twice for API %s; keeping the first", c.Name, b.api)
		return nil
	}
	b.commands[c.Name] = c
	b.reg.Commands = append(b.reg.Commands, c)
	b.addPending(c.Name, c.Params, els)
	return nil
}

func (b *builder) resolveCommandAliases() {
	for _, alias := range sortedKeys(b.cmdAlias) {
		target := alias
		for range 16 {
			next, ok := b.cmdAlias[target]
			if !ok {
				break
			}
			target = next
		}
		c := b.commands[target]
		if c == nil {
			b.warn(Diagnostic{File: b.file,
				Msg: "command alias " + alias + " -> " + b.cmdAlias[alias] + " does not resolve to a command"})
			continue
		}
		c.Aliases = append(c.Aliases, alias)
	}
	for _, c := range b.reg.Commands {
		slices.Sort(c.Aliases)
	}
}
