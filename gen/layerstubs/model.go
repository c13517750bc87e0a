package layerstubs

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/vkgen/vkgen/gen/cdispatch"
	"github.com/vkgen/vkgen/gen/objtypes"
	"github.com/vkgen/vkgen/registry"
)

// The model the templates render: one command per intercepted name of the
// whole library (the framework's trampolines), and per layer the table of
// its hooks. Everything a template needs is precomputed here; templates hold
// the C.

// mandatory are the commands every layer intercepts, with the runtime
// function (vkgen_runtime.h) that replaces the call down; it takes the layer
// and the command's parameters. vkGetInstanceProcAddr and
// vkGetDeviceProcAddr are the layer's exported entry points themselves.
var mandatory = map[string]string{
	"vkCreateInstance":                       "vkgen_create_instance",
	"vkDestroyInstance":                      "vkgen_destroy_instance",
	"vkCreateDevice":                         "vkgen_create_device",
	"vkDestroyDevice":                        "vkgen_destroy_device",
	"vkEnumerateInstanceLayerProperties":     "vkgen_enumerate_instance_layers",
	"vkEnumerateInstanceExtensionProperties": "vkgen_enumerate_instance_extensions",
	"vkEnumerateDeviceLayerProperties":       "vkgen_enumerate_device_layers",
	"vkEnumerateDeviceExtensionProperties":   "vkgen_enumerate_device_extensions",
	"vkGetInstanceProcAddr":                  "",
	"vkGetDeviceProcAddr":                    "",
}

// nameCached are the commands whose Go hooks the C name cache filters (a
// re-applied unchanged name does not enter Go); vkgen_runtime.h has their
// vkgen_names_hit_/store_/mark_ key functions.
var nameCached = map[string]bool{"vkSetDebugUtilsObjectNameEXT": true, "vkDebugMarkerSetObjectNameEXT": true}

type param struct {
	Name    string // C name
	Decl    string // C declaration
	CType   string // C type without the name, arrays as pointers
	Pointer bool
	Handle  bool
	GoName  string // Go identifier
	// HookType is the type in Go hook signatures ("" when the parameter has
	// no Go form): vk.Device, *vk.BufferCreateInfo, uint32, unsafe.Pointer.
	HookType string
	// The parameter of a Go export: its C type in _cgo_export.h, its Go
	// type, and Conv, the expression turning it (named GoName) into HookType.
	GoCType, ExportGo, Conv string
	// The parameter of a next-layer helper: its C type, and ToBridge, the Go
	// expression turning a HookType value (named GoName) into it.
	Bridge, ToBridge string
}

type entry struct {
	Name     string   // entry point (canonical or alias)
	Slot     string   // dispatch slot of the call down, "0" when the runtime calls down
	Requires []string // an alias's own features/extensions (nil for the canonical name)
}

// forget says which handles a destroy command ends.
type forget struct {
	Handle       string // parameter holding the handle or the array
	Count        string // count parameter of an array, "" otherwise
	Dispatchable bool
	Device       string // the VkDevice parameter of device-level commands, "" otherwise
	ObjectType   int64
	Clear        bool // a parent of implicitly freed children (pools): clear the whole cache
	Reset        bool // vkResetDescriptorPool: frees children, not the pool
	// Images is the dispatch slot of vkGetSwapchainImagesKHR for
	// vkDestroySwapchainKHR: the swapchain's images end with it, with no
	// call of their own, so they are asked for and forgotten first.
	Images string
}

type command struct {
	Name, Short, Return string
	Result              bool   // non-void
	ReturnGo            string // the result's type in Go hooks, "" for void
	VkResult            bool
	Level               registry.CommandLevel
	Params              []param
	Entries             []entry
	Requires            []string // features and extensions requiring it
	Protect             string
	Down                string // runtime call replacing the call down, "" for the generic path
	Export              bool   // vkGetInstanceProcAddr/vkGetDeviceProcAddr
	NameCache           bool
	Forget              *forget
}

// hook is one initializer of a layer's vkgen_hooks_<Cmd> table.
type hook struct{ Field, Value string }

// goHook is a Go hook function of a layer and the export calling it.
type goHook struct {
	Func, Export string
	WithCall     bool // takes the *layer.Call first
	Edit         bool // a pre hook given pointers to the parameters, returning a vk.Result
}

// use is one command a layer intercepts.
type use struct {
	*command
	Hooks         []hook
	Claimed       []bool // per entry
	Pre, Post     *goHook
	Before, After *deferHook
	Names         *capCmd // the framework's naming record (object_names)
	EditFn        string  // the C wrapper of an editing pre hook
}

// deferHook is a deferred hook (before<Cmd>, after<Cmd>) and its record.
type deferHook struct {
	Func string
	Cap  *capCmd
}

// nextCall is a next-layer helper: next.<Method> calls entry point Entry.
type nextCall struct {
	*command
	Entry, Method, Fn string
	Slot              string
	Instance          bool // the table is the instance's (else the device's)
}

// callback is a C callback the layer implements in Go (on<Name>).
type callback struct {
	Name, PFN, Return, ReturnGo string
	Params                      []param
	Func, Export, Thunk         string
}

type extension struct {
	Name        string   `json:"name"`
	SpecVersion string   `json:"spec_version"`
	Entrypoints []string `json:"entrypoints,omitempty"`
}

type layerData struct {
	Source             string
	Spec               *Spec
	Package            string
	APIMajor, APIMinor string
	Uses               []*use     // sorted by name, without the exported entry points
	Own                []*command // what it uses that the framework does not intercept itself
	GoHooks            []*use
	Deferred           []*use // uses with a deferred hook
	Edits              []*use // uses with an editing pre hook
	Next               []*nextCall
	Callbacks          []*callback
	Forget             *deferHook // forgetNamed
	NameCache          bool
	ObjectNames        bool // the framework records the layer's object names (spec object_names)
	Forgets            bool // name cache, forget hook or object names: every destroy command is intercepted
	InstanceExts       []extension
	DeviceExts         []extension
	Settings           []map[string]any // the manifest's features.settings
}

type frameworkData struct {
	Source   string
	Captures *captures
	Commands []*command // what the framework intercepts itself (builder.fixed)
	Forgets  []*command // the destroy commands
	Runtime  []*command // the commands every layer intercepts for the runtime (mandatory)
	Reports  []reportType
	Names    []*capCmd // the framework's object-name records
}

// reportType maps a VkDebugReportObjectTypeEXT value to its VkObjectType
// (the exit watcher's, for durable debug-marker names).
type reportType struct{ Value, ObjectType int64 }

type builder struct {
	r       *registry.Registry
	caps    *captures
	tab     *cdispatch.Table
	cmds    map[string]*command
	forgets []*command
	reports []reportType
	names   []*capCmd // the framework's object-name records (addNameRecords)
	// memory maps the commands creating objects that hold memory to their
	// handle type (objtypes.MemoryCreators): their deferred hooks carry call
	// stacks in layers declaring call_stacks.
	memory map[string]string
	// fixed are the commands the framework intercepts whatever the layers
	// (the runtime's, the destroy and the naming commands): its files hold
	// their signatures and trampolines, a layer's the others it uses.
	fixed map[string]bool

	diags              // the layers' mistakes and warnings (diag.go)
	hookNames []string // every hook name the registry allows (nearHooks)
}

func newBuilder(r *registry.Registry) (*builder, error) {
	tab, err := cdispatch.Build(r)
	if err != nil {
		return nil, err
	}
	b := &builder{r: r, tab: tab, cmds: map[string]*command{}, caps: newCaptures(r), memory: objtypes.MemoryCreators(r)}
	if err := b.addForgets(); err != nil {
		return nil, err
	}
	if err := b.addNameRecords(); err != nil {
		return nil, err
	}
	for name, down := range mandatory {
		if down != "" {
			if _, err := b.command(name); err != nil {
				return nil, err
			}
		}
	}
	for _, name := range nameRecords[:2] {
		if c := r.Command(name); c != nil && c.Name == name {
			if _, err := b.command(name); err != nil {
				return nil, err
			}
		}
	}
	b.fixed = map[string]bool{}
	for name := range b.cmds {
		b.fixed[name] = true
	}
	if err := b.allStructs(); err != nil {
		return nil, err
	}
	return b, nil
}

// nameRecords are the framework's object-name records, in id order: the two
// naming commands (durable) and the forgetting of an ended object's name.
var nameRecords = []string{"vkSetDebugUtilsObjectNameEXT", "vkDebugMarkerSetObjectNameEXT", "forget"}

// addNameRecords describes the framework's own deferred hooks: what the
// naming trampolines of a layer declaring object_names record, and its
// forget record (layer/naming drains them). A naming command the registry
// lacks gets a record nothing makes (Names 0).
func (b *builder) addNameRecords() error {
	for _, name := range nameRecords {
		cname := "vkgen_cap_names_" + strings.TrimPrefix(name, "vk")
		var c *capCmd
		if rc := b.r.Command(name); name != "forget" && (rc == nil || rc.Name != name) {
			c = b.caps.values(cname, 2)
		} else if name == "forget" {
			c = b.caps.values(cname, 3)
		} else {
			var err error
			if c, err = b.caps.command(name, cname); err != nil {
				return err
			}
			c.Names = namingRecords[name]
		}
		c.Framework = true
		b.names = append(b.names, c)
	}
	return nil
}

// command returns the model of a canonical command, building it once.
func (b *builder) command(name string) (*command, error) {
	if c := b.cmds[name]; c != nil {
		return c, nil
	}
	c := b.r.Command(name)
	if c == nil || c.Name != name || len(c.RequiredBy) == 0 {
		if canon := canonical(b.r, name); canon != "" {
			return nil, fmt.Errorf("%s is an alias; list the command as %s (aliases are intercepted with it)", name, canon)
		}
		return nil, b.noCommand("", name)
	}
	n, ok := b.tab.Lookup(c.Name)
	if !ok {
		return nil, fmt.Errorf("layerstubs: %s has no dispatch entry", c.Name)
	}
	down, isMandatory := mandatory[c.Name]
	cmd := &command{
		Name: c.Name, Short: strings.TrimPrefix(c.Name, "vk"), Return: c.Return, Protect: c.Protect,
		Result: c.Return != "void", ReturnGo: goValueType(c.Return), VkResult: c.Return == "VkResult", Level: n.Level,
		Requires: sorted(c.RequiredBy), Down: down, NameCache: nameCached[c.Name],
		Export: isMandatory && down == "",
	}
	if cmd.Level.Global() && down == "" {
		return nil, fmt.Errorf("global command %s cannot be intercepted", c.Name)
	}
	for _, p := range c.Params {
		pp, err := newParam(b.r, p)
		if err != nil {
			return nil, fmt.Errorf("layerstubs: %s: %w", c.Name, err)
		}
		cmd.Params = append(cmd.Params, pp)
	}
	if !cmd.Level.Global() && down == "" && !cmd.Export {
		if len(c.Params) == 0 {
			return nil, fmt.Errorf("layerstubs: %s has no dispatchable first parameter", c.Name)
		}
		if h := b.r.Handle(c.Params[0].Type); h == nil || !h.Dispatchable {
			return nil, fmt.Errorf("layerstubs: %s: first parameter %s is not dispatchable", c.Name, c.Params[0].Type)
		}
	}
	for i, name := range b.tab.EntryPoints(c.Name) {
		var reqs []string
		if i > 0 {
			reqs = sorted(c.AliasRequiredBy[name])
		}
		cmd.Entries = append(cmd.Entries, b.entry(cmd, name, reqs))
	}
	b.cmds[name] = cmd
	return cmd, nil
}

func (b *builder) entry(c *command, name string, reqs []string) entry {
	e := entry{Name: name, Slot: "0", Requires: reqs} // "0": the runtime calls down
	if c.Down == "" {
		e.Slot = tableSlot(c, name)
	}
	return e
}

// tableSlot is the dispatch-table slot of entry point name of c (an instance-
// or device-level command): where trampolines, next-layer helpers and
// queries find the next layer's function.
func tableSlot(c *command, name string) string {
	if c.Level.Instance() {
		return "VKGEN_I_" + name
	}
	return "VKGEN_D_" + name
}

// swapchainImages lists the images a swapchain owns.
const swapchainImages = "vkGetSwapchainImagesKHR"

// addForgets models every command that ends an object's life, so the name
// cache forgets the object before its handle can be reused and forget hooks
// see it. vkDestroyInstance/vkDestroyDevice are the runtime's.
func (b *builder) addForgets() error {
	t, err := objtypes.Derive(b.r)
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
	for _, d := range t.DebugReport {
		if d.ObjectType != "" {
			b.reports = append(b.reports, reportType{d.Value, d.ObjectTypeValue})
		}
	}
	list := append([]objtypes.Destroyer(nil), t.Destroyers...)
	list = append(list, objtypes.Destroyer{Command: "vkResetDescriptorPool", Param: 1, Count: -1})
	for _, d := range list {
		if c := b.r.Command(d.Command); c == nil || c.Name != d.Command {
			continue // an alias: intercepted with its command
		}
		if d.ObjectType == "VK_OBJECT_TYPE_DEVICE" || d.ObjectType == "VK_OBJECT_TYPE_INSTANCE" {
			continue
		}
		c, err := b.command(d.Command)
		if err != nil {
			return err
		}
		rc := b.r.Command(d.Command)
		f := &forget{
			Handle: c.Params[d.Param].Name, ObjectType: values[d.ObjectType],
			Clear: parents[d.ObjectType], Reset: d.ObjectType == "",
		}
		if d.Count >= 0 {
			f.Count = c.Params[d.Count].Name
		}
		if h := b.r.Handle(rc.Params[d.Param].Type); h != nil && h.Dispatchable {
			f.Dispatchable = true
		}
		if c.Level.Device() && rc.Params[0].Type == "VkDevice" {
			f.Device = c.Params[0].Name
		}
		if d.ObjectType == "VK_OBJECT_TYPE_SWAPCHAIN_KHR" && f.Device != "" && b.r.Command(swapchainImages) != nil {
			f.Images = tableSlot(c, swapchainImages)
		}
		c.Forget = f
		b.forgets = append(b.forgets, c)
	}
	sort.Slice(b.forgets, func(i, j int) bool { return b.forgets[i].Name < b.forgets[j].Name })
	return nil
}

// framework is what the framework intercepts itself, whatever the layers.
func (b *builder) framework(source string) *frameworkData {
	d := &frameworkData{Source: source, Forgets: b.forgets, Captures: b.caps, Reports: b.reports, Names: b.names}
	for name, c := range b.cmds {
		if !b.fixed[name] {
			continue
		}
		if !c.Export {
			d.Commands = append(d.Commands, c)
		}
		if c.Down != "" {
			d.Runtime = append(d.Runtime, c)
		}
	}
	sort.Slice(d.Commands, func(i, j int) bool { return d.Commands[i].Name < d.Commands[j].Name })
	sort.Slice(d.Runtime, func(i, j int) bool { return d.Runtime[i].Name < d.Runtime[j].Name })
	return d
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

func sorted(s []string) []string {
	s = append([]string(nil), s...)
	sort.Strings(s)
	return s
}

// layerSettingsExt is VK_EXT_layer_settings, which a layer with
// TracingSettings implements.
const layerSettingsExt = "VK_EXT_layer_settings"

// extensions are the spec's extensions of type typ ("instance", "device")
// the registry has, each marked claimed; the others are reported at their
// place in the spec.
func (b *builder) extensions(spec *Spec, typ string, claimed map[string]bool) []extension {
	specs, key := spec.InstanceExtensions, "instance_extensions"
	if typ == "device" {
		specs, key = spec.DeviceExtensions, "device_extensions"
	}
	var out []extension
	for i, s := range specs {
		pos := spec.Pos(fmt.Sprintf("%s[%d].name", key, i))
		e := b.r.Extension(s.Name)
		if e == nil {
			var names []string
			for _, x := range b.r.Extensions {
				names = append(names, x.Name)
			}
			b.report(pos, absentf("unknown extension %s%s", s.Name, didYouMean(closest(s.Name, names, 3))))
			continue
		}
		if e.Type != typ {
			article := "a"
			if strings.HasPrefix(e.Type, "i") {
				article = "an"
			}
			b.report(pos, fmt.Errorf("%s is %s %s extension, listed in %s", s.Name, article, e.Type, key))
			continue
		}
		claimed[s.Name] = true
		x := extension{Name: s.Name, SpecVersion: fmt.Sprint(s.SpecVersion)}
		if typ == "device" {
			x.Entrypoints = append([]string(nil), e.Commands...)
		}
		out = append(out, x)
	}
	return out
}

var goKeywords = map[string]bool{
	"break": true, "case": true, "chan": true, "const": true, "continue": true, "default": true,
	"defer": true, "else": true, "fallthrough": true, "for": true, "func": true, "go": true, "goto": true,
	"if": true, "import": true, "interface": true, "map": true, "package": true, "range": true,
	"return": true, "select": true, "struct": true, "switch": true, "type": true, "var": true,
}

// goScalars are the C scalar types of the registry and their Go types.
var goScalars = map[string]string{
	"uint8_t": "uint8", "uint16_t": "uint16", "uint32_t": "uint32", "uint64_t": "uint64",
	"int8_t": "int8", "int16_t": "int16", "int32_t": "int32", "int64_t": "int64", "int": "int32",
	"float": "float32", "double": "float64", "size_t": "uintptr", "char": "byte",
}

// newParam derives the C type and the Go-facing forms of one parameter.
// Array parameters decay to pointers, as C passes them. Handles reach Go as
// integers (uint64, or uintptr when dispatchable), never as Go pointers:
// drivers may use small integers as handles, which the Go garbage collector
// rejects in pointer-typed variables. Pointers cross as unsafe.Pointer and
// reach hooks typed (package vk's views); scalars cross as their C type.
func newParam(r *registry.Registry, p registry.Decl) (param, error) {
	if p.Name == "" || p.Type == "" {
		return param{}, fmt.Errorf("parameter %q of type %q: incomplete declaration", p.Name, p.Type)
	}
	decayed := p
	if len(p.Array) > 0 {
		decayed.Array = nil
		decayed.Pointers++
		decayed.Const = append(slices.Clone(p.Const), false)
	}
	depth := decayed.Pointers
	ctype := decayed.CType()
	pp := param{Name: p.Name, Decl: p.C(), CType: ctype, GoName: p.Name, Pointer: depth > 0}
	if goKeywords[p.Name] {
		pp.GoName = p.Name + "_"
	}
	if (p.Struct || p.Type == "void") && depth == 0 {
		return param{}, fmt.Errorf("parameter %s: %s value", p.Name, p.Type)
	}
	base := goValueType(p.Type)
	if t := r.Type(p.Type); p.Struct || p.Type == "void" || (t != nil && t.Kind == registry.KindExternal) {
		base = "" // opaque: void*, a platform type (Display, HANDLE, ...)
	}
	if base == "" && depth > 0 {
		base, depth = "unsafe.Pointer", depth-1 // unsafe.Pointer is itself the first level
	}
	if base != "" {
		pp.HookType = strings.Repeat("*", depth) + base
	}
	h := r.Handle(p.Type)
	pp.Handle = h != nil
	switch {
	case pp.Pointer:
		pp.GoCType, pp.ExportGo, pp.Bridge = "void*", "unsafe.Pointer", "void *"
		pp.Conv = "(" + pp.HookType + ")(" + pp.GoName + ")"
		if pp.HookType == "unsafe.Pointer" {
			pp.Conv = pp.GoName
		}
		pp.ToBridge = "unsafe.Pointer(" + pp.GoName + ")"
	case h != nil && h.Dispatchable:
		pp.GoCType, pp.ExportGo, pp.Bridge = "GoUintptr", "uintptr", "uintptr_t"
		pp.Conv, pp.ToBridge = pp.HookType+"("+pp.GoName+")", "C.uintptr_t("+pp.GoName+")"
	case h != nil:
		pp.GoCType, pp.ExportGo, pp.Bridge = "GoUint64", "uint64", "uint64_t"
		pp.Conv, pp.ToBridge = pp.HookType+"("+pp.GoName+")", "C.uint64_t("+pp.GoName+")"
	default:
		pp.GoCType, pp.ExportGo, pp.Bridge = ctype, "C."+ctype, ctype
		pp.Conv, pp.ToBridge = pp.HookType+"("+pp.GoName+")", "C."+ctype+"("+pp.GoName+")"
	}
	return pp, nil
}

// goValueType is the Go type of a by-value C type ("" for void).
func goValueType(t string) string {
	switch {
	case t == "void":
		return ""
	case goScalars[t] != "":
		return goScalars[t]
	case strings.HasPrefix(t, "PFN_vk"):
		return "vk.PFN" + strings.TrimPrefix(t, "PFN_vk")
	case strings.HasPrefix(t, "Vk"):
		return "vk." + strings.TrimPrefix(t, "Vk")
	}
	return ""
}
