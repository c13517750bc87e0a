package layerstubs

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/vkgen/vkgen/layer/settings"
	"github.com/vkgen/vkgen/registry"
)

// layer builds the model of one layer: what it intercepts follows from its
// spec (the extensions it claims) and what its Go package implements.
func (b *builder) layer(spec *Spec, impl *Impl, pkg, source string) (*layerData, error) {
	if impl == nil {
		impl = &Impl{}
	}
	d := &layerData{Source: source, Spec: spec, Package: pkg}
	v := strings.Split(spec.APIVersion, ".")
	if len(v) < 2 {
		return nil, Errors{{spec.Pos("api_version"), fmt.Sprintf("api_version %q is not major.minor[.patch]", spec.APIVersion)}}
	}
	d.APIMajor, d.APIMinor = v[0], v[1]
	claimed := map[string]bool{}
	d.InstanceExts = b.extensions(spec, "instance", claimed)
	d.DeviceExts = b.extensions(spec, "device", claimed)
	if spec.TracingSettings {
		if !claimed[layerSettingsExt] {
			d.InstanceExts = append(d.InstanceExts, extension{Name: layerSettingsExt, SpecVersion: "2"})
		}
		d.Settings = settings.ManifestSettings(spec.Name, append(slices.Clone(settings.Tracing), settings.Own[spec.Name]...))
	}
	uses := map[string]*use{}
	get := func(name string) (*use, error) {
		if u := uses[name]; u != nil {
			return u, nil
		}
		c, err := b.command(name)
		if err != nil {
			return nil, err
		}
		u := &use{command: c}
		uses[name] = u
		return u, nil
	}
	for name := range mandatory {
		if mandatory[name] != "" {
			if _, err := get(name); err != nil {
				return nil, err
			}
		}
	}
	for _, x := range append(append([]ExtensionSpec(nil), spec.InstanceExtensions...), spec.DeviceExtensions...) {
		if !claimed[x.Name] {
			continue // reported by extensions
		}
		for _, name := range b.r.Extension(x.Name).Commands {
			if canon := canonical(b.r, name); canon != "" {
				name = canon
			}
			u, err := get(name)
			if err != nil {
				return nil, err
			}
			if s, ok := frameworkHooks[name]; ok && x.Name == s.ext {
				u.Hooks = append(u.Hooks, s.hooks...)
			}
		}
	}
	for _, f := range impl.sortedFuncs() {
		if err := b.addFunc(d, f, get); err != nil {
			b.report(f.Pos, b.absentTypes(f, err))
		}
	}
	b.nearHooks(impl)
	if spec.ObjectNames {
		d.ObjectNames = true
		for i, name := range nameRecords[:2] {
			if b.names[i].Names == 0 {
				continue // the registry lacks the command
			}
			u, err := get(name)
			if err != nil {
				return nil, err
			}
			u.Names = b.names[i]
		}
	}
	if d.Forget != nil {
		for name := range nameCached {
			if _, err := get(name); err != nil {
				return nil, err
			}
		}
	}
	b.nextCalls(d, impl)
	if d.Forget != nil || hasDeferred(impl) {
		// Deferred hooks run before the device or instance they touch is
		// destroyed: the glue of a layer with any drains before the call down.
		for _, name := range []string{"vkDestroyDevice", "vkDestroyInstance"} {
			if u, _ := get(name); u.Pre == nil {
				u.Pre = &goHook{Export: "vkgen_" + spec.Symbol + "_go_pre_" + u.Short}
			}
		}
	}
	var names []string
	for name := range uses {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		u := uses[name]
		if !u.Export {
			b.finishUse(d, u, spec.Symbol, claimed)
			d.Uses = append(d.Uses, u)
			if !b.fixed[name] {
				d.Own = append(d.Own, u.command)
			}
		}
	}
	d.Forgets = d.NameCache || d.Forget != nil || d.ObjectNames
	return d, nil
}

// frameworkHooks are the runtime's own C hooks (vkgen_runtime.h) that a
// layer claiming the extension gets for its commands.
var frameworkHooks = map[string]struct {
	ext   string
	hooks []hook
}{
	"vkCreateDebugUtilsMessengerEXT":  {"VK_EXT_debug_utils", []hook{{"fallback", "vkgen_stub_messenger_create"}}},
	"vkDestroyDebugUtilsMessengerEXT": {"VK_EXT_debug_utils", []hook{{"c_pre", "vkgen_stub_messenger_destroy_pre"}, {"c_post", "vkgen_stub_messenger_destroy_post"}}},
}

// addFunc checks one hook function against what it hooks.
func (b *builder) addFunc(d *layerData, f *Func, get func(string) (*use, error)) error {
	sym := d.Spec.Symbol
	if f.Unknown != "" {
		return fmt.Errorf("%s: unknown directive %q (vkgen has %s<command> and %s)", f.Name, f.Unknown, queryDirective, durableDirective)
	}
	if d.Spec.ObjectNames && (f.Name == "forgetNamed" || namingRecords["vk"+strings.TrimLeft(f.Name, "abcdefghijklmnopqrstuvwxyz")] != 0) {
		return fmt.Errorf("%s: the layer declares object_names, so the framework records the naming calls into objectnames.Shared() and forgets ended objects' names there; read the names from that store (or drop object_names to hook the naming commands yourself)", f.Name)
	}
	if f.Name == "forgetNamed" || f.Name == "forget" {
		want := []string{"vk.Device", "vk.ObjectType", "uint64"}
		if f.Name != "forgetNamed" || !same(f.Params, want) || len(f.Results) != 0 {
			return fmt.Errorf("%s: the forget hook is func forgetNamed%s", f.Name, strings.TrimPrefix(signature(want, nil), "func"))
		}
		d.Forget = &deferHook{Func: f.Name, Cap: b.caps.values("vkgen_cap_"+sym+"_forgetNamed", 3)}
		return nil
	}
	if rest, ok := strings.CutPrefix(f.Name, "on"); ok {
		return b.addCallback(d, f, rest)
	}
	var kind, short string
	for _, k := range []string{"pre", "post", "before", "after"} {
		if rest, ok := strings.CutPrefix(f.Name, k); ok {
			kind, short = k, rest
			break
		}
	}
	name := "vk" + short
	if c := b.r.Command(name); c == nil || c.Name != name {
		if canon := canonical(b.r, name); canon != "" {
			return fmt.Errorf("%s: %s is an alias of %s; name the hook for it (aliases are hooked with it)", f.Name, name, canon)
		}
		return b.noCommand(f.Name, name)
	}
	if down, ok := mandatory[name]; ok && down == "" {
		return fmt.Errorf("%s: %s cannot be hooked", f.Name, name)
	}
	u, err := get(name)
	if err != nil {
		return err
	}
	var params []string
	for _, p := range u.Params {
		if p.HookType == "" {
			return fmt.Errorf("%s: parameter %s of %s (%s) has no Go form; hook it in C", f.Name, p.Name, name, p.CType)
		}
		params = append(params, p.HookType)
	}
	withCall := append([]string{"*layer.Call"}, params...)
	h := &goHook{Func: f.Name}
	if f.Durable && (kind != "before" && kind != "after" || namingRecords[name] == 0) {
		return fmt.Errorf("%s: %s applies to the deferred hooks (before, after) of vkSetDebugUtilsObjectNameEXT and vkDebugMarkerSetObjectNameEXT", f.Name, durableDirective)
	}
	switch kind {
	case "before", "after":
		if kind == "after" && u.ReturnGo != "" {
			params = append(params, u.ReturnGo)
		}
		var q *command
		if f.Query != "" {
			if b.r.Command(f.Query) == nil {
				return b.noCommand(f.Name+": query", f.Query)
			}
			if q, err = b.command(f.Query); err != nil {
				return fmt.Errorf("%s: query: %w", f.Name, err)
			}
			if q.Level.Global() {
				return fmt.Errorf("%s: the query %s is not dispatched through a layer's table", f.Name, f.Query)
			}
			out := q.Params[len(q.Params)-1]
			params = append(params, out.HookType)
		}
		if !same(f.Params, params) || len(f.Results) != 0 {
			return fmt.Errorf("%s has type %s; want %s", f.Name, f.Signature(), signature(params, nil))
		}
		c, err := b.caps.command(name, "vkgen_cap_"+sym+"_"+f.Name)
		if err != nil {
			return err
		}
		if q != nil {
			if err := b.caps.query(c, b.r.Command(name), q); err != nil {
				return fmt.Errorf("%s: %w", f.Name, err)
			}
			c.Query.Fn = "vkgen_" + sym + "_query_" + f.Name
			c.Query.Instance = q.Level.Instance()
			c.Query.Slot = tableSlot(q, q.Name)
		}
		if f.Durable {
			c.Names = namingRecords[name]
		}
		c.Stack = d.Spec.CallStacks && kind == "after" && b.memory[name] != ""
		dh := &deferHook{Func: f.Name, Cap: c}
		if kind == "before" {
			u.Before = dh
		} else {
			u.After = dh
		}
	case "pre":
		var ptrs []string
		for _, p := range params {
			ptrs = append(ptrs, "*"+p)
		}
		edit := append([]string{"*layer.Call"}, ptrs...)
		switch {
		case same(f.Params, params) && len(f.Results) == 0:
		case same(f.Params, edit) && same(f.Results, []string{"vk.Result"}):
			h.WithCall, h.Edit = true, true
		default:
			return fmt.Errorf("%s has type %s; want %s, or %s to edit the parameters (a result other than vk.Success skips the call down)",
				f.Name, f.Signature(), signature(params, nil), signature(edit, []string{"vk.Result"}))
		}
		h.Export = "vkgen_" + sym + "_go_pre_" + u.Short
		if h.Edit {
			h.Export = "vkgen_" + sym + "_go_edit_" + u.Short
		}
		u.Pre = h
	default:
		if u.ReturnGo != "" {
			params = append(params, u.ReturnGo)
			withCall = append(withCall, u.ReturnGo)
		} else if u.Result {
			return fmt.Errorf("%s: the result of %s (%s) has no Go form", f.Name, name, u.Return)
		}
		switch {
		case same(f.Params, params) && len(f.Results) == 0:
		case same(f.Params, withCall) && len(f.Results) == 0:
			h.WithCall = true
		default:
			return fmt.Errorf("%s has type %s; want %s or %s", f.Name, f.Signature(), signature(params, nil), signature(withCall, nil))
		}
		h.Export = "vkgen_" + sym + "_go_post_" + u.Short
		u.Post = h
	}
	return nil
}

// addCallback checks an on<Name> function against PFN_vk<Name>.
func (b *builder) addCallback(d *layerData, f *Func, name string) error {
	pfn := "PFN_vk" + name
	var fp *registry.FuncPointer
	for _, p := range b.r.FuncPointers {
		if p.Name == pfn {
			fp = p
		}
	}
	if fp == nil {
		var names []string
		for _, p := range b.r.FuncPointers {
			names = append(names, "on"+strings.TrimPrefix(p.Name, "PFN_vk"))
		}
		return absentf("%s: no Vulkan callback type %s%s", f.Name, pfn, didYouMean(closest(f.Name, names, 2)))
	}
	cb := &callback{Name: name, PFN: pfn, Return: fp.Return, ReturnGo: goValueType(fp.Return), Func: f.Name,
		Export: "vkgen_" + d.Spec.Symbol + "_go_on_" + name, Thunk: "vkgen_" + d.Spec.Symbol + "_cb_" + name}
	var params []string
	for _, rp := range fp.Params {
		p, err := newParam(b.r, rp)
		if err != nil || p.HookType == "" {
			return fmt.Errorf("%s: parameter %s of %s has no Go form", f.Name, rp.Name, pfn)
		}
		cb.Params = append(cb.Params, p)
		params = append(params, p.HookType)
	}
	var results []string
	if cb.ReturnGo != "" {
		results = []string{cb.ReturnGo}
	}
	if !same(f.Params, params) || !same(f.Results, results) {
		return fmt.Errorf("%s has type %s; want %s", f.Name, f.Signature(), signature(params, results))
	}
	d.Callbacks = append(d.Callbacks, cb)
	return nil
}

// nextCalls adds the helpers for the next.<Cmd> calls the package makes.
func (b *builder) nextCalls(d *layerData, impl *Impl) {
	var names []string
	for n := range impl.Next {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, method := range names {
		if n, err := b.nextCall(d, method); err != nil {
			b.report(impl.Next[method], fmt.Errorf("next.%s: %w", method, err))
		} else {
			d.Next = append(d.Next, n)
		}
	}
}

// nextCall is the helper of next.<method>.
func (b *builder) nextCall(d *layerData, method string) (*nextCall, error) {
	entry := "vk" + method
	canon := entry
	if c := b.r.Command(entry); c == nil || c.Name != entry {
		canon = canonical(b.r, entry)
	}
	if canon == "" {
		return nil, b.noCommand("", entry)
	}
	c, err := b.command(canon)
	if err != nil {
		return nil, err
	}
	if c.Level.Global() || c.Export {
		return nil, fmt.Errorf("%s is not dispatched through a layer's table", entry)
	}
	for _, p := range c.Params {
		if p.HookType == "" {
			return nil, fmt.Errorf("parameter %s (%s) has no Go form", p.Name, p.CType)
		}
	}
	return &nextCall{command: c, Entry: entry, Method: method,
		Fn: "vkgen_" + d.Spec.Symbol + "_next_" + method, Slot: tableSlot(c, entry), Instance: c.Level.Instance()}, nil
}

// finishUse derives a use's hook table row and which entries it claims.
func (b *builder) finishUse(d *layerData, u *use, sym string, claimed map[string]bool) {
	if u.Pre != nil && u.Pre.Edit {
		u.EditFn = sym + "_edit_" + u.Short
		u.Hooks = append(u.Hooks, hook{"c_pre", u.EditFn})
		d.Edits = append(d.Edits, u)
	} else if u.Pre != nil {
		u.Hooks = append(u.Hooks, hook{"go_pre", u.Pre.Export})
	}
	if u.Post != nil {
		u.Hooks = append(u.Hooks, hook{"go_post", u.Post.Export})
	}
	if u.Before != nil {
		u.Hooks = append(u.Hooks, hook{"defer_pre", "&" + u.Before.Cap.CName})
	}
	if u.After != nil {
		u.Hooks = append(u.Hooks, hook{"defer_post", "&" + u.After.Cap.CName})
	}
	if u.Names != nil {
		u.Hooks = append(u.Hooks, hook{"defer_pre", "&" + u.Names.CName}, hook{"names_once", "1"})
	}
	if u.Before != nil || u.After != nil {
		d.Deferred = append(d.Deferred, u)
	}
	if nameCached[u.Name] && (u.Pre != nil || u.Post != nil || u.Before != nil || u.After != nil || u.Names != nil) {
		u.Hooks = append(u.Hooks, hook{"name_cache", "1"})
		d.NameCache = true
	}
	if u.Pre != nil || u.Post != nil {
		d.GoHooks = append(d.GoHooks, u)
	}
	for i, e := range u.Entries {
		reqs := e.Requires
		if i == 0 {
			reqs = u.Requires
		}
		on := u.Down != ""
		for _, q := range reqs {
			on = on || claimed[q]
		}
		u.Claimed = append(u.Claimed, on)
	}
}

func same(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// hasDeferred tells whether the package implements a deferred hook.
func hasDeferred(impl *Impl) bool {
	for name := range impl.Funcs {
		if strings.HasPrefix(name, "before") || strings.HasPrefix(name, "after") {
			return true
		}
	}
	return false
}
