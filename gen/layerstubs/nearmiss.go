package layerstubs

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// Near misses. A layer declares hooks by naming functions, so a misspelt
// name would silently be no hook; vkgen generate reports these instead
// (docs/layers.md "Hook names"):
//   - a function named as a hook (pre, post, before, after or on, then an
//     upper-case letter; forget, forgetNamed) whose command or callback the
//     registry lacks, with the nearest command's name (within 2 edits,
//     case ignored);
//   - any other function or method whose name equals a hook name of the
//     registry ignoring case (PreCreateBuffer, precreateBuffer), or, for
//     names of 10 or more letters, is within 2 edits of one
//     (preCreateBufer is already a hook name; preCreatBuffers is not);
//   - a method named as a hook: only package-level functions are hooks.

// noCommand is the mistake of naming command name, which the registry
// lacks, with the nearest command it has; what = the hook, "" for none.
func (b *builder) noCommand(what, name string) error {
	var names []string
	for _, c := range b.r.Commands {
		names = append(names, c.Name)
	}
	if what != "" {
		what += ": "
	}
	return absentf("%sno Vulkan command %s%s", what, name, didYouMean(closest(name, names, 2)))
}

// vkTypeRE finds the types of package vk in a normalised signature.
var vkTypeRE = regexp.MustCompile(`\bvk\.([A-Za-z0-9_]+)`)

// absentTypes turns a hook's signature mistake into an absentError when its
// signature names a type of package vk the registry lacks: the hook was
// written for a newer registry.
func (b *builder) absentTypes(f *Func, err error) error {
	var absent *absentError
	if errors.As(err, &absent) {
		return err
	}
	for _, m := range vkTypeRE.FindAllStringSubmatch(f.Signature(), -1) {
		c := "Vk" + m[1]
		if rest, ok := strings.CutPrefix(m[1], "PFN"); ok {
			c = "PFN_vk" + rest
		}
		if b.r.Type(c) == nil {
			return absentf("%s (vk.%s is not in this registry)", err, m[1])
		}
	}
	return err
}

// nearHooks reports the functions and methods of impl that are no hook but
// are named like one.
func (b *builder) nearHooks(impl *Impl) {
	if b.hookNames == nil {
		b.hookNames = []string{"forget", "forgetNamed"}
		for _, c := range b.r.Commands {
			short := strings.TrimPrefix(c.Name, "vk")
			for _, p := range []string{"pre", "post", "before", "after"} {
				b.hookNames = append(b.hookNames, p+short)
			}
		}
		for _, p := range b.r.FuncPointers {
			b.hookNames = append(b.hookNames, "on"+strings.TrimPrefix(p.Name, "PFN_vk"))
		}
	}
	for _, o := range impl.Others {
		if o.Method && isHookName(o.Name) {
			b.report(o.Pos, fmt.Errorf("method %s is named as a hook; hooks are package-level functions", o.Name))
			continue
		}
		near := ""
		for _, h := range b.hookNames {
			if strings.EqualFold(h, o.Name) {
				near = h
				break
			}
		}
		if near == "" && len(o.Name) >= 10 {
			near = closest(o.Name, b.hookNames, 2)
		}
		if near != "" {
			b.report(o.Pos, fmt.Errorf("%s is not a hook, but close to one%s (hooks are named pre, post, before, after or on, then the command without vk; docs/layers.md \"Hook names\")", o.Name, didYouMean(near)))
		}
	}
}
