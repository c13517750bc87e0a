// Package layerstubs generates, from a layer spec (vkgen-layer.json) and the
// registry model, everything a vkgen layer package needs besides its hook
// code: the C trampolines (forwarding in C, entering Go only where hooks are
// declared), the per-layer exported GetInstanceProcAddr / GetDeviceProcAddr /
// Negotiate entry points, the Go //export glue with panic recovery, and the
// loader manifest. It owns the model -> layer-code step; the C runtime those
// files link against is package layer and the templates are package
// templates. It must not read XML or import cgo packages.
package layerstubs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/format"
	"path/filepath"
	"sort"
	"strings"
	"text/template"

	"github.com/vkgen/vkgen/gen/cdispatch"
	"github.com/vkgen/vkgen/gen/objtypes"
	"github.com/vkgen/vkgen/registry"
	"github.com/vkgen/vkgen/templates"
)

// File is one generated output, named relative to the layer's directory.
type File struct {
	Name string
	Data []byte
}

// Files lists the names Generate writes for a layer with this symbol.
func Files(symbol string) []string {
	return []string{
		"vkgen_" + symbol + ".h",
		"vkgen_" + symbol + ".c",
		"vkgen_" + symbol + "_glue.go",
		ManifestName(symbol),
	}
}

// ManifestName is the manifest file of a layer.
func ManifestName(symbol string) string { return "VkLayer_vkgen_" + symbol + ".json" }

// Commands every layer intercepts: its own lifetime bookkeeping and the loader
// entry points. Down is the runtime call that replaces the call down.
var mandatory = map[string]string{
	"vkCreateInstance":                       "result = vkgen_create_instance(LAYER, pCreateInfo, pAllocator, pInstance);",
	"vkDestroyInstance":                      "vkgen_destroy_instance(LAYER, instance, pAllocator);",
	"vkCreateDevice":                         "result = vkgen_create_device(LAYER, physicalDevice, pCreateInfo, pAllocator, pDevice);",
	"vkDestroyDevice":                        "vkgen_destroy_device(LAYER, device, pAllocator);",
	"vkEnumerateInstanceLayerProperties":     "result = vkgen_enumerate_instance_layers(LAYER, pPropertyCount, pProperties);",
	"vkEnumerateInstanceExtensionProperties": "result = vkgen_enumerate_instance_extensions(LAYER, pLayerName, pPropertyCount, pProperties);",
	"vkEnumerateDeviceLayerProperties":       "result = vkgen_enumerate_device_layers(LAYER, physicalDevice, pPropertyCount, pProperties);",
	"vkEnumerateDeviceExtensionProperties":   "result = vkgen_enumerate_device_extensions(LAYER, physicalDevice, pLayerName, pPropertyCount, pProperties);",
	"vkGetInstanceProcAddr":                  "",
	"vkGetDeviceProcAddr":                    "",
}

// Commands whose Go hooks the name cache can filter, with the C expressions
// of the cache key. Debug-marker object types are tagged so they never equal
// a VkObjectType.
var nameCacheKeys = map[string]nameCache{
	"vkSetDebugUtilsObjectNameEXT": {
		Info: "pNameInfo", Dev: "(uint64_t)vkgen_key(device)", Type: "(int32_t)pNameInfo->objectType",
		Handle: "pNameInfo->objectHandle", Name: "pNameInfo->pObjectName",
	},
	"vkDebugMarkerSetObjectNameEXT": {
		Info: "pNameInfo", Dev: "(uint64_t)vkgen_key(device)", Type: "(int32_t)(0x40000000u | (uint32_t)pNameInfo->objectType)",
		Handle: "pNameInfo->object", Name: "pNameInfo->pObjectName",
	},
}

type nameCache struct{ Info, Dev, Type, Handle, Name string }

type param struct {
	Name   string // C name
	Decl   string // C declaration
	CType  string // C type without the name, arrays as pointers
	GoName string // Go identifier
	GoType string // type in the Go hook signature
	ToGo   string // C expression converting the parameter for the Go export
}

type entry struct {
	Name    string // entry point (canonical or alias)
	Func    string // C function answering it
	Slot    string // VKGEN_I_* / VKGEN_D_* slot of the call down
	Guard   string // C condition under which the system headers declare it
	Claimed bool
}

type command struct {
	Name, Short, Return string
	Level               string // GLOBAL, INSTANCE, DEVICE
	Params              []param
	Entries             []entry
	GoPre, GoPost       bool
	CPre, CPost         bool
	Fallback            bool
	Down                string // runtime call replacing the call down, "" for the generic path
	Export              bool   // vkGetInstanceProcAddr/vkGetDeviceProcAddr: the exported entry point itself
	Spec                bool   // listed in the spec (missing from the headers is an error)
	Guard               string
	Protect             string
	RequiredBy          string // for the #error message
	NameCache           *nameCache
	Forget              string // C statements invalidating the name cache and calling the forget hook
	ForgetHook          bool   // Forget calls <symbol>_forget (needs a struct vkgen_call)
}

type extension struct {
	Name        string   `json:"name"`
	SpecVersion string   `json:"spec_version"`
	Entrypoints []string `json:"entrypoints,omitempty"`
	specVersion uint32
}

type data struct {
	Spec          *Spec
	Package       string
	HeaderVersion int
	APIMajor      string
	APIMinor      string
	Commands      []*command
	GoHooks       []*command
	Unsafe        bool
	NameCache     bool
	InstanceExts  []extension
	DeviceExts    []extension
}

// Generate renders the layer described by spec, whose Go package is pkg.
func Generate(r *registry.Registry, spec *Spec, pkg string) ([]File, error) {
	if r == nil || spec == nil {
		return nil, fmt.Errorf("layerstubs: nil registry or spec")
	}
	tab, err := cdispatch.Build(r)
	if err != nil {
		return nil, err
	}
	d, err := build(r, tab, spec, pkg)
	if err != nil {
		return nil, err
	}
	var files []File
	for _, f := range []struct{ out, tmpl string }{
		{"vkgen_" + spec.Symbol + ".h", "layer.h.tmpl"},
		{"vkgen_" + spec.Symbol + ".c", "layer.c.tmpl"},
		{"vkgen_" + spec.Symbol + "_glue.go", "glue.go.tmpl"},
	} {
		b, err := render(f.tmpl, d)
		if err != nil {
			return nil, err
		}
		if strings.HasSuffix(f.out, ".go") {
			if b, err = format.Source(b); err != nil {
				return nil, fmt.Errorf("layerstubs: gofmt %s: %w", f.out, err)
			}
		}
		files = append(files, File{Name: f.out, Data: b})
	}
	m, err := manifest(d)
	if err != nil {
		return nil, err
	}
	return append(files, File{Name: ManifestName(spec.Symbol), Data: m}), nil
}

var funcs = template.FuncMap{
	"join": strings.Join,
	"args": func(ps []param) string {
		var s []string
		for _, p := range ps {
			s = append(s, p.Name)
		}
		return strings.Join(s, ", ")
	},
	"decls": func(ps []param) string {
		var s []string
		for _, p := range ps {
			s = append(s, p.Decl)
		}
		if len(s) == 0 {
			return "void"
		}
		return strings.Join(s, ", ")
	},
	"ctypes": func(ps []param) string {
		var s []string
		for _, p := range ps {
			s = append(s, p.CType)
		}
		if len(s) == 0 {
			return "void"
		}
		return strings.Join(s, ", ")
	},
	"ptrdecls": func(ps []param) string {
		var s []string
		for _, p := range ps {
			s = append(s, p.CType+" *"+p.Name)
		}
		return strings.Join(s, ", ")
	},
	"refs": func(ps []param) string {
		var s []string
		for _, p := range ps {
			s = append(s, "&"+p.Name)
		}
		return strings.Join(s, ", ")
	},
	"togo": func(ps []param) string {
		var s []string
		for _, p := range ps {
			s = append(s, p.ToGo)
		}
		return strings.Join(s, ", ")
	},
	"goparams": func(ps []param) string {
		var s []string
		for _, p := range ps {
			s = append(s, p.GoName+" "+p.GoType)
		}
		return strings.Join(s, ", ")
	},
	"goargs": func(ps []param) string {
		var s []string
		for _, p := range ps {
			s = append(s, p.GoName)
		}
		return strings.Join(s, ", ")
	},
	"gotype": goScalar,
	"cstring": func(s string) (string, error) {
		b, err := json.Marshal(s) // a JSON string of printable text is a valid C literal
		if err != nil {
			return "", err
		}
		if strings.Contains(string(b), `\u`) {
			return "", fmt.Errorf("layerstubs: %q: use printable ASCII", s)
		}
		return string(b), nil
	},
}

func render(name string, d *data) ([]byte, error) {
	t, err := template.New(name).Funcs(funcs).ParseFS(templates.FS, name)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, d); err != nil {
		return nil, fmt.Errorf("layerstubs: %s: %w", name, err)
	}
	return b.Bytes(), nil
}

func build(r *registry.Registry, tab *cdispatch.Table, spec *Spec, pkg string) (*data, error) {
	d := &data{Spec: spec, Package: pkg, HeaderVersion: r.HeaderVersion}
	var ok bool
	v := strings.Split(spec.APIVersion, ".")
	if len(v) >= 2 {
		d.APIMajor, d.APIMinor, ok = v[0], v[1], true
	}
	if !ok {
		return nil, fmt.Errorf("layerstubs: api_version %q is not major.minor[.patch]", spec.APIVersion)
	}
	claimed := map[string]bool{}
	var err error
	if d.InstanceExts, err = extensions(r, spec.InstanceExtensions, "instance", claimed); err != nil {
		return nil, err
	}
	if d.DeviceExts, err = extensions(r, spec.DeviceExtensions, "device", claimed); err != nil {
		return nil, err
	}

	byName := map[string]*command{}
	add := func(cs CommandSpec, fromSpec bool) error {
		c := r.Command(cs.Name)
		if c == nil || c.Name != cs.Name || len(c.RequiredBy) == 0 {
			if canon := canonical(r, cs.Name); canon != "" {
				return fmt.Errorf("layerstubs: %s is an alias; list the command as %s (aliases are intercepted with it)", cs.Name, canon)
			}
			return fmt.Errorf("layerstubs: unknown command %s", cs.Name)
		}
		cmd, err := newCommand(r, tab, c, cs, claimed, spec.Symbol)
		if err != nil {
			return err
		}
		cmd.Spec = fromSpec
		byName[c.Name] = cmd
		return nil
	}
	for _, cs := range spec.Commands {
		if mandatory[cs.Name] == "" && (cs.Name == "vkGetInstanceProcAddr" || cs.Name == "vkGetDeviceProcAddr") {
			return nil, fmt.Errorf("layerstubs: %s cannot be hooked", cs.Name)
		}
		if cs.NameCache {
			if _, ok := nameCacheKeys[cs.Name]; !ok {
				return nil, fmt.Errorf("layerstubs: %s: name_cache only applies to vkSetDebugUtilsObjectNameEXT and vkDebugMarkerSetObjectNameEXT", cs.Name)
			}
			if !cs.GoPre && !cs.GoPost {
				return nil, fmt.Errorf("layerstubs: %s: name_cache filters Go hooks, but none is declared", cs.Name)
			}
			d.NameCache = true
		}
		if err := add(cs, true); err != nil {
			return nil, err
		}
	}
	for name := range mandatory {
		if byName[name] == nil {
			if err := add(CommandSpec{Name: name}, false); err != nil {
				return nil, err
			}
		}
	}
	if d.NameCache || spec.ForgetHook {
		if err := addDestroyers(r, byName, add, d.NameCache, spec.ForgetHook, spec.Symbol); err != nil {
			return nil, err
		}
	}
	for _, c := range byName {
		d.Commands = append(d.Commands, c)
		if c.GoPre || c.GoPost {
			d.GoHooks = append(d.GoHooks, c)
			for _, p := range c.Params {
				if strings.Contains(p.GoType, "unsafe.") {
					d.Unsafe = true
				}
			}
		}
	}
	sort.Slice(d.Commands, func(i, j int) bool { return d.Commands[i].Name < d.Commands[j].Name })
	sort.Slice(d.GoHooks, func(i, j int) bool { return d.GoHooks[i].Name < d.GoHooks[j].Name })
	return d, nil
}

func canonical(r *registry.Registry, alias string) string {
	for _, c := range r.Commands {
		for _, a := range c.Aliases {
			if a == alias {
				return c.Name
			}
		}
	}
	return ""
}

func extensions(r *registry.Registry, specs []ExtensionSpec, typ string, claimed map[string]bool) ([]extension, error) {
	var out []extension
	for _, s := range specs {
		e := r.Extension(s.Name)
		if e == nil {
			return nil, fmt.Errorf("layerstubs: unknown extension %s", s.Name)
		}
		if e.Type != typ {
			return nil, fmt.Errorf("layerstubs: %s is a %s extension, listed as %s", s.Name, e.Type, typ)
		}
		claimed[s.Name] = true
		x := extension{Name: s.Name, SpecVersion: fmt.Sprint(s.SpecVersion), specVersion: s.SpecVersion}
		if typ == "device" {
			x.Entrypoints = append([]string(nil), e.Commands...)
		}
		out = append(out, x)
	}
	return out, nil
}

// guard is the C condition under which <vulkan/vulkan.h> declares something
// required by any of reqs (each feature and extension defines its own name).
func guard(reqs []string) string {
	var g []string
	for _, q := range reqs {
		g = append(g, "defined("+q+")")
	}
	sort.Strings(g)
	if len(g) == 0 {
		return "0"
	}
	return strings.Join(g, " || ")
}

func newCommand(r *registry.Registry, tab *cdispatch.Table, c *registry.Command, cs CommandSpec, claimed map[string]bool, sym string) (*command, error) {
	short := strings.TrimPrefix(c.Name, "vk")
	cmd := &command{
		Name: c.Name, Short: short, Return: c.Return, Protect: c.Protect,
		GoPre: cs.GoPre, GoPost: cs.GoPost, CPre: cs.CPre, CPost: cs.CPost, Fallback: cs.Fallback,
		Guard: guard(c.RequiredBy), RequiredBy: strings.Join(c.RequiredBy, ", "),
	}
	down, isMandatory := mandatory[c.Name]
	cmd.Down = down
	if c.Name == "vkGetInstanceProcAddr" || c.Name == "vkGetDeviceProcAddr" {
		cmd.Export = true
	}
	if cs.NameCache {
		nc := nameCacheKeys[c.Name]
		cmd.NameCache = &nc
	}
	n, ok := tab.Lookup(c.Name)
	if !ok {
		return nil, fmt.Errorf("layerstubs: %s has no dispatch entry", c.Name)
	}
	cmd.Level = n.Level
	if cmd.Level == "GLOBAL" && down == "" {
		return nil, fmt.Errorf("layerstubs: global command %s cannot be intercepted", c.Name)
	}
	if cmd.Fallback && cmd.Down != "" {
		return nil, fmt.Errorf("layerstubs: %s always reaches the chain; it takes no fallback", c.Name)
	}
	for _, p := range c.Params {
		pp, err := newParam(r, p)
		if err != nil {
			return nil, fmt.Errorf("layerstubs: %s: %w", c.Name, err)
		}
		cmd.Params = append(cmd.Params, pp)
	}
	if cmd.Level != "GLOBAL" && !cmd.Export && cmd.Down == "" {
		if len(c.Params) == 0 {
			return nil, fmt.Errorf("layerstubs: %s has no dispatchable first parameter", c.Name)
		}
		if h := r.Handle(c.Params[0].Type); h == nil || !h.Dispatchable {
			return nil, fmt.Errorf("layerstubs: %s: first parameter %s is not dispatchable", c.Name, c.Params[0].Type)
		}
	}
	names := []string{c.Name}
	for _, a := range c.Aliases {
		if len(c.AliasRequiredBy[a]) > 0 {
			names = append(names, a)
		}
	}
	for i, name := range names {
		reqs := c.RequiredBy
		if i > 0 {
			reqs = c.AliasRequiredBy[name]
		}
		e := entry{Name: name, Func: "tramp_" + strings.TrimPrefix(name, "vk"), Claimed: isMandatory}
		for _, q := range reqs {
			if claimed[q] {
				e.Claimed = true
			}
		}
		switch {
		case c.Name == "vkGetInstanceProcAddr":
			e.Func = "vkgen_" + sym + "_GetInstanceProcAddr"
		case c.Name == "vkGetDeviceProcAddr":
			e.Func = "vkgen_" + sym + "_GetDeviceProcAddr"
		}
		if i > 0 {
			// An alias compiles only where the canonical name's types exist too.
			e.Guard = "(" + guard(reqs) + ") && (" + cmd.Guard + ")"
		}
		switch n.Level {
		case "INSTANCE":
			e.Slot = "VKGEN_I_" + name
		case "DEVICE":
			e.Slot = "VKGEN_D_" + name
		}
		cmd.Entries = append(cmd.Entries, e)
	}
	return cmd, nil
}

// addDestroyers intercepts (C only) every command that ends an object's life,
// so the name cache forgets the object before its handle can be reused and
// the layer's forget hook (Spec.ForgetHook) sees it. Destroying a parent of
// implicitly freed children (pools) clears the cache.
func addDestroyers(r *registry.Registry, byName map[string]*command, add func(CommandSpec, bool) error, cache, hook bool, sym string) error {
	t, err := objtypes.Derive(r)
	if err != nil {
		return err
	}
	parents := map[string]bool{}
	values := map[string]int64{}
	for _, o := range t.ObjectTypes {
		if o.Parent != "" {
			parents[o.Parent] = true
		}
		values[o.Name] = o.Value
	}
	type forget struct {
		d       objtypes.Destroyer
		clear   bool
		handled bool // vkDestroyDevice/vkDestroyInstance: the runtime clears
		reset   bool // vkResetDescriptorPool: frees children, not the pool
	}
	var list []forget
	for _, d := range t.Destroyers {
		if c := r.Command(d.Command); c == nil || c.Name != d.Command {
			continue // an alias: intercepted with its command
		}
		f := forget{d: d, clear: parents[d.ObjectType]}
		switch d.ObjectType {
		case "VK_OBJECT_TYPE_DEVICE", "VK_OBJECT_TYPE_INSTANCE":
			f.handled = true
		}
		list = append(list, f)
	}
	if cache {
		list = append(list, forget{d: objtypes.Destroyer{Command: "vkResetDescriptorPool", Param: 1, Count: -1}, clear: true, reset: true})
	}
	for _, f := range list {
		c := byName[f.d.Command]
		if c == nil {
			if err := add(CommandSpec{Name: f.d.Command}, false); err != nil {
				return err
			}
			c = byName[f.d.Command]
		}
		if f.handled {
			continue
		}
		p := c.Params[f.d.Param]
		h := r.Handle(r.Command(f.d.Command).Params[f.d.Param].Type)
		conv := "(uint64_t)"
		if h != nil && h.Dispatchable {
			conv = "(uint64_t)(uintptr_t)"
		}
		var stmts []string
		if cache && f.clear {
			stmts = append(stmts, "vkgen_namecache_clear(LAYER->names);")
		}
		each := func(x string) string {
			var s []string
			if cache && !f.clear {
				s = append(s, fmt.Sprintf("vkgen_namecache_forget(LAYER->names, %s%s);", conv, x))
			}
			if hook && !f.reset {
				dev := "0"
				if c.Level == "DEVICE" && r.Command(f.d.Command).Params[0].Type == "VkDevice" {
					dev = "(uint64_t)(uintptr_t)" + c.Params[0].Name
				}
				s = append(s, fmt.Sprintf("if (%[3]s%[4]s) %[1]s_forget(&call, %[2]s, %[5]d, %[3]s%[4]s);", sym, dev, conv, x, values[f.d.ObjectType]))
			}
			return strings.Join(s, " ")
		}
		if f.d.Count < 0 {
			if s := each(p.Name); s != "" {
				stmts = append(stmts, s)
			}
		} else if s := each(p.Name + "[i]"); s != "" {
			if strings.Count(s, ";") > 1 {
				s = "{ " + s + " }"
			}
			stmts = append(stmts, fmt.Sprintf("if (%s) for (uint32_t i = 0; i < %s; i++) %s", p.Name, c.Params[f.d.Count].Name, s))
		}
		c.Forget = strings.Join(stmts, "\n\t")
		c.ForgetHook = hook && !f.reset
	}
	return nil
}

var goKeywords = map[string]bool{
	"break": true, "case": true, "chan": true, "const": true, "continue": true, "default": true,
	"defer": true, "else": true, "fallthrough": true, "for": true, "func": true, "go": true, "goto": true,
	"if": true, "import": true, "interface": true, "map": true, "package": true, "range": true,
	"return": true, "select": true, "struct": true, "switch": true, "type": true, "var": true,
}

// newParam derives the C type and the Go-facing form of one parameter.
// Handles reach Go as integers (uint64, or uintptr when dispatchable), never
// as Go pointers: drivers may use small integers as handles, which the Go
// garbage collector rejects in pointer-typed variables.
func newParam(r *registry.Registry, p registry.Param) (param, error) {
	decl := strings.TrimSpace(p.Decl)
	ctype := strings.TrimSpace(strings.TrimSuffix(decl, p.Name))
	if i := strings.Index(decl, "["); i >= 0 {
		ctype = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(decl[:i]), p.Name)) + "*"
	}
	if ctype == decl || ctype == "" {
		return param{}, fmt.Errorf("parameter %s: cannot split declaration %q", p.Name, p.Decl)
	}
	depth := strings.Count(ctype, "*")
	pp := param{Name: p.Name, Decl: decl, CType: ctype, GoName: p.Name}
	if goKeywords[p.Name] {
		pp.GoName = p.Name + "_"
	}
	h := r.Handle(p.Type)
	var goBase, cBase string
	switch {
	case strings.Contains(ctype, "struct ") || p.Type == "void":
		goBase, cBase = "unsafe.Pointer", "void"
		depth-- // unsafe.Pointer is itself the first level
		if depth < 0 {
			return param{}, fmt.Errorf("parameter %s: void value", p.Name)
		}
	case h != nil && h.Dispatchable:
		goBase, cBase = "uintptr", "GoUintptr"
	case h != nil:
		goBase, cBase = "uint64", "GoUint64"
	default:
		goBase, cBase = "C."+p.Type, p.Type
	}
	pp.GoType = strings.Repeat("*", depth) + goBase
	switch {
	case cBase == "void":
		pp.ToGo = "(void" + strings.Repeat("*", depth+1) + ")" + p.Name
	case depth == 0 && h != nil && h.Dispatchable:
		pp.ToGo = "(GoUintptr)(uintptr_t)" + p.Name
	case depth == 0:
		pp.ToGo = "(" + cBase + ")" + p.Name
	default:
		pp.ToGo = "(" + cBase + strings.Repeat("*", depth) + ")" + p.Name
	}
	return pp, nil
}

// goScalar is the Go type of a command's return value in a post hook.
func goScalar(ctype string) string { return "C." + ctype }

type manifestLayer struct {
	Name                  string            `json:"name"`
	Type                  string            `json:"type"`
	LibraryPath           string            `json:"library_path"`
	APIVersion            string            `json:"api_version"`
	ImplementationVersion string            `json:"implementation_version"`
	Description           string            `json:"description"`
	Functions             map[string]string `json:"functions"`
	InstanceExtensions    []extension       `json:"instance_extensions,omitempty"`
	DeviceExtensions      []extension       `json:"device_extensions,omitempty"`
}

func manifest(d *data) ([]byte, error) {
	s := d.Spec
	m := struct {
		FileFormatVersion string        `json:"file_format_version"`
		Layer             manifestLayer `json:"layer"`
	}{"1.2.0", manifestLayer{
		Name: s.Name, Type: "GLOBAL", LibraryPath: s.Library, APIVersion: s.APIVersion,
		ImplementationVersion: fmt.Sprint(s.ImplementationVersion), Description: s.Description,
		Functions: map[string]string{
			"vkGetInstanceProcAddr":                  "vkgen_" + s.Symbol + "_GetInstanceProcAddr",
			"vkGetDeviceProcAddr":                    "vkgen_" + s.Symbol + "_GetDeviceProcAddr",
			"vkNegotiateLoaderLayerInterfaceVersion": "vkgen_" + s.Symbol + "_NegotiateLoaderLayerInterfaceVersion",
		},
		InstanceExtensions: d.InstanceExts, DeviceExtensions: d.DeviceExts,
	}}
	b, err := json.MarshalIndent(m, "", "    ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// PackageName is the Go package name for a layer directory.
func PackageName(dir string) string {
	base := filepath.Base(dir)
	var b strings.Builder
	for _, r := range base {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' {
			b.WriteRune(r)
		}
	}
	return b.String()
}
