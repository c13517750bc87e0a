package registry

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/beevik/etree"
)

// builder turns the etree document into the model. It lives only for one
// parse, so the document can be collected as soon as build returns.
type builder struct {
	file string
	root *etree.Element
	api  string
	pos  positions
	reg  *Registry

	tags      []string
	protectOf map[string]string // platform name -> protect macro
	typeAlias map[string]string // type alias -> target (handles, enums, bitmasks)
	handles   map[string]*Handle
	structs   map[string]*Struct
	// typeByName holds every type defined so far by its own name.
	typeByName map[string]*Type
	// pending are the declarations read so far (see resolveDecls).
	pending  []pendingDecl
	enums    map[string]*Enum
	values   map[string]*EnumValue // every enumerant defined so far, by name
	commands map[string]*Command
	cmdAlias map[string]string // command alias -> target
	required map[string][]string
	removed  map[string]bool
	// extProtect holds the guard of every selected platform extension.
	extProtect map[string]string
	// publicFeature maps an internal feature (apitype="internal") to the
	// public feature of the same version it is merged into.
	publicFeature map[string]string
	headerSeen    bool
}

func newBuilder(file string, src []byte, root *etree.Element, api string) *builder {
	return &builder{
		file: file, root: root, api: api, pos: positions{src: src},
		reg:           &Registry{API: api},
		protectOf:     map[string]string{},
		typeAlias:     map[string]string{},
		handles:       map[string]*Handle{},
		structs:       map[string]*Struct{},
		typeByName:    map[string]*Type{},
		enums:         map[string]*Enum{},
		values:        map[string]*EnumValue{},
		commands:      map[string]*Command{},
		cmdAlias:      map[string]string{},
		required:      map[string][]string{},
		removed:       map[string]bool{},
		extProtect:    map[string]string{},
		publicFeature: map[string]string{},
	}
}

func (b *builder) diag(el *etree.Element, format string, args ...any) Diagnostic {
	p := b.pos.of(b.root, el)
	return Diagnostic{File: b.file, Line: p.line, Column: p.col, Msg: fmt.Sprintf(format, args...)}
}

func (b *builder) errorf(el *etree.Element, format string, args ...any) error {
	return &Error{b.diag(el, format, args...)}
}

func (b *builder) warnf(el *etree.Element, format string, args ...any) {
	if b.countWarning() {
		b.reg.Warnings = append(b.reg.Warnings, b.diag(el, format, args...))
	}
}

// MaxWarnings is how many warnings a Registry lists: a registry with a
// million unknown attributes must not cost a million diagnostics. The rest
// are counted in MoreWarnings.
const MaxWarnings = 100

// countWarning counts a warning and reports whether it is listed.
func (b *builder) countWarning() bool {
	if len(b.reg.Warnings) < MaxWarnings {
		return true
	}
	b.reg.MoreWarnings++
	return false
}

// warn lists d unless MaxWarnings are listed.
func (b *builder) warn(d Diagnostic) {
	if b.countWarning() {
		b.reg.Warnings = append(b.reg.Warnings, d)
	}
}

// known lists, per element, the attributes the schema defines (whether or not
// the model uses them); anything else is reported as a warning.
var known = map[string]string{
	"registry":  "",
	"types":     "comment",
	"type":      "alias allowduplicate api bitvalues category comment deprecated name objtypeenum parent requiredlimittype requires returnedonly structextends",
	"enums":     "bitwidth comment expand name namespace type",
	"enum":      "alias api bitpos comment deprecated dir extends extnumber name offset protect type value",
	"unused":    "comment start",
	"commands":  "comment",
	"command":   "alias allownoqueues api cmdbufferlevel comment conditionalrendering errorcodes export name pipeline queues renderpass successcodes tasks videocoding",
	"param":     "altlen api externsync len noautovalidity objecttype optional stride validstructs",
	"member":    "altlen api deprecated externsync featurelink flagsextend flagsextendmember len limittype noautovalidity objecttype optional selection selector stride validextensionstructs values",
	"proto":     "",
	"feature":   "api apitype comment depends name number sortorder protect",
	"extension": "author comment contact depends deprecatedby name nofeatures number obsoletedby platform promotedto protect provisional ratified requires requiresCore sortorder specialuse supported type",
	"require":   "api comment depends extension feature",
	"remove":    "api comment reasonlink",
	"deprecate": "api comment explanationlink",
	"platforms": "comment",
	"platform":  "comment name protect",
	"tags":      "comment",
	"tag":       "author contact name",
	// Children of <require>/<remove>/<deprecate> that name interfaces.
	"ref:type":    "comment name supersededby",
	"ref:command": "comment name supersededby",
	"ref:feature": "comment name struct",
	"extensions":  "comment",
}

// ignoredSections are registry children the model does not cover.
var ignoredSections = map[string]bool{
	"comment": true, "vendorids": true, "formats": true, "spirvextensions": true,
	"spirvcapabilities": true, "sync": true, "videocodecs": true,
}

func (b *builder) checkAttrs(el *etree.Element, kind string) {
	list, ok := known[kind]
	if !ok {
		return
	}
	for _, a := range el.Attr {
		if a.Space == "xmlns" || (a.Space == "" && a.Key == "xmlns") {
			continue
		}
		if a.Space != "" || !hasWord(list, a.Key) {
			b.warnf(el, "unknown attribute %q on <%s>", a.FullKey(), el.Tag)
		}
	}
}

func hasWord(list, w string) bool {
	for f := range strings.FieldsSeq(list) {
		if f == w {
			return true
		}
	}
	return false
}

// supports reports whether a comma-separated api/supported list names api.
// An absent attribute means every API.
func supports(list, api string) bool {
	if list == "" {
		return true
	}
	for item := range strings.SplitSeq(list, ",") {
		if strings.TrimSpace(item) == api {
			return true
		}
	}
	return false
}

func splitList(s string) []string {
	if s == "" {
		return nil
	}
	var out []string
	for item := range strings.SplitSeq(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

func attr(el *etree.Element, key string) string { return el.SelectAttrValue(key, "") }

func (b *builder) build() (*Registry, error) {
	b.checkAttrs(b.root, "registry")
	children := b.root.ChildElements()
	// Platforms, tags and internal-feature targets are needed before the
	// sections that refer to them, whatever order the file uses.
	for _, el := range children {
		switch el.Tag {
		case "platforms":
			b.platforms(el)
		case "tags":
			b.checkAttrs(el, "tags")
			for _, t := range el.ChildElements() {
				b.checkAttrs(t, "tag")
				b.tags = append(b.tags, attr(t, "name"))
			}
		case "feature":
			b.prescanFeature(el)
		}
	}
	var features, extensions []*etree.Element
	for _, el := range children {
		switch el.Tag {
		case "platforms", "tags":
		case "types":
			if err := b.types(el); err != nil {
				return nil, err
			}
		case "enums":
			if err := b.enumBlock(el); err != nil {
				return nil, err
			}
		case "commands":
			b.checkAttrs(el, "commands")
			for _, c := range el.ChildElements() {
				if err := b.command(c); err != nil {
					return nil, err
				}
			}
		case "feature":
			features = append(features, el)
		case "extensions":
			b.checkAttrs(el, "extensions")
			for _, x := range el.ChildElements() {
				if x.Tag != "extension" {
					b.warnf(x, "unknown element <%s> in <extensions>", x.Tag)
					continue
				}
				extensions = append(extensions, x)
			}
		default:
			if !ignoredSections[el.Tag] {
				b.warnf(el, "unknown element <%s> in <registry>", el.Tag)
			}
		}
	}
	b.resolveCommandAliases()
	for _, el := range features {
		if err := b.feature(el); err != nil {
			return nil, err
		}
	}
	for _, el := range extensions {
		if err := b.extension(el); err != nil {
			return nil, err
		}
	}
	b.finish()
	return b.reg, nil
}

func (b *builder) platforms(el *etree.Element) {
	b.checkAttrs(el, "platforms")
	for _, p := range el.ChildElements() {
		if p.Tag != "platform" {
			b.warnf(p, "unknown element <%s> in <platforms>", p.Tag)
			continue
		}
		b.checkAttrs(p, "platform")
		pl := &Platform{Name: attr(p, "name"), Protect: attr(p, "protect"), Comment: attr(p, "comment")}
		b.protectOf[pl.Name] = pl.Protect
		b.reg.Platforms = append(b.reg.Platforms, pl)
	}
}

// finish derives what needs the whole registry: requirement lists, command
// levels and protection, object types, lookup indexes.
func (b *builder) finish() {
	reg := b.reg
	reg.APIVersion = ""
	for _, f := range reg.Features {
		if versionLess(reg.APIVersion, f.Number) {
			reg.APIVersion = f.Number
		}
	}
	for _, h := range reg.Handles {
		h.RequiredBy = b.requirers(h.Name, h.Aliases)
	}
	// Keep only commands some selected feature or extension requires (as the
	// C headers do): disabled or other-API extensions' commands are dropped.
	cmds := reg.Commands[:0]
	for _, c := range reg.Commands {
		if b.removed[c.Name] {
			continue
		}
		c.RequiredBy = b.required[c.Name]
		for _, a := range c.Aliases {
			if r := b.required[a]; len(r) > 0 {
				if c.AliasRequiredBy == nil {
					c.AliasRequiredBy = map[string][]string{}
				}
				c.AliasRequiredBy[a] = r
			}
		}
		if len(c.RequiredBy) == 0 && len(c.AliasRequiredBy) == 0 {
			continue
		}
		c.Protect = b.protect(b.requirers(c.Name, c.Aliases))
		cmds = append(cmds, c)
	}
	reg.Commands = cmds
	// Before 1.2.182 handles are not <require>d explicitly; they come in
	// with the commands that use them.
	for _, c := range reg.Commands {
		for _, p := range c.Params {
			if h := b.handles[b.resolveType(p.Type)]; h != nil && !b.explicitlyRequired(h) {
				h.RequiredBy = appendUnique(h.RequiredBy, b.requirers(c.Name, c.Aliases)...)
			}
		}
	}
	for _, h := range reg.Handles {
		if b.removed[h.Name] {
			h.RequiredBy = nil
		}
		h.Protect = b.protect(h.RequiredBy)
	}
	for _, c := range reg.Commands {
		c.Level = b.level(c)
	}
	for _, e := range reg.Enums {
		vals := e.Values[:0]
		for _, v := range e.Values {
			if !b.removed[v.Name] {
				vals = append(vals, v)
			}
		}
		e.Values = vals
	}
	b.resolveEnumAliases()
	for _, alias := range sortedKeys(b.typeAlias) {
		if e := b.enums[b.resolveType(alias)]; e != nil {
			e.Aliases = append(e.Aliases, alias)
		}
	}
	b.objectTypes()
	b.resolveDecls()
	reg.typeByName = maps.Clone(b.typeByName)
	for _, alias := range sortedKeys(b.typeAlias) {
		if t := b.typeByName[b.resolveType(alias)]; t != nil {
			reg.typeByName[alias] = t
			t.Aliases = append(t.Aliases, alias)
		}
	}
	reg.index()
}

func (b *builder) explicitlyRequired(h *Handle) bool {
	return len(b.requirers(h.Name, h.Aliases)) > 0
}

func (b *builder) requirers(name string, aliases []string) []string {
	out := slices.Clone(b.required[name])
	for _, a := range aliases {
		out = appendUnique(out, b.required[a]...)
	}
	return out
}

// protect is the guard shared by every requirer, "" when any requirer is
// unguarded (core, or a non-platform extension).
func (b *builder) protect(requirers []string) string {
	guard := ""
	for i, r := range requirers {
		p := b.extProtect[r]
		if p == "" || (i > 0 && p != guard) {
			return ""
		}
		guard = p
	}
	return guard
}

func appendUnique(list []string, items ...string) []string {
	for _, it := range items {
		if !slices.Contains(list, it) {
			list = append(list, it)
		}
	}
	return list
}

// level classifies a command the way the loader dispatches it. The four
// global commands are fixed by the spec. vkGetInstanceProcAddr is Instance
// level: the loader answers it itself for a NULL instance, but layers see it
// in their instance dispatch chain. Everything whose first parameter is a
// dispatchable handle descending from VkDevice is Device level.
func (b *builder) level(c *Command) CommandLevel {
	switch c.Name {
	case "vkCreateInstance", "vkEnumerateInstanceVersion",
		"vkEnumerateInstanceExtensionProperties", "vkEnumerateInstanceLayerProperties":
		return LevelGlobal
	}
	if len(c.Params) == 0 {
		return LevelInstance
	}
	h := b.handles[b.resolveType(c.Params[0].Type)]
	if h == nil || !h.Dispatchable {
		return LevelInstance
	}
	if b.descendsFromDevice(h.Name, map[string]bool{}) {
		return LevelDevice
	}
	return LevelInstance
}

func (b *builder) descendsFromDevice(name string, seen map[string]bool) bool {
	if name == "VkDevice" {
		return true
	}
	if seen[name] {
		return false
	}
	seen[name] = true
	h := b.handles[name]
	if h == nil {
		return false
	}
	for _, p := range h.Parents {
		if b.descendsFromDevice(b.resolveType(p), seen) {
			return true
		}
	}
	return false
}

func (b *builder) resolveType(name string) string {
	for range 16 { // alias chains are short; the bound stops cycles
		t, ok := b.typeAlias[name]
		if !ok {
			break
		}
		name = t
	}
	return name
}

// objectTypes fills Handle.ObjectType for registries without objtypeenum
// (before 1.2.163) and checks every name against VkObjectType when present.
func (b *builder) objectTypes() {
	ot := b.enums["VkObjectType"]
	for _, h := range b.reg.Handles {
		if h.ObjectType == "" {
			h.ObjectType = deriveObjectType(h.Name, b.tags)
		}
		if ot != nil && ot.ValueByName[h.ObjectType] == nil && len(h.RequiredBy) > 0 {
			b.warn(Diagnostic{File: b.file,
				Msg: fmt.Sprintf("handle %s: object type %s is not a VkObjectType value", h.Name, h.ObjectType)})
		}
	}
}

// deriveObjectType builds VK_OBJECT_TYPE_<UPPER_SNAKE> from a handle name,
// keeping a vendor tag suffix: VkDebugReportCallbackEXT ->
// VK_OBJECT_TYPE_DEBUG_REPORT_CALLBACK_EXT.
func deriveObjectType(name string, tags []string) string {
	base := strings.TrimPrefix(name, "Vk")
	suffix := ""
	for _, t := range tags {
		if len(t) > len(suffix) && strings.HasSuffix(base, t) && len(base) > len(t) {
			prev := base[len(base)-len(t)-1]
			if prev < 'A' || prev > 'Z' {
				suffix = t
			}
		}
	}
	base = strings.TrimSuffix(base, suffix)
	var sb strings.Builder
	sb.WriteString("VK_OBJECT_TYPE_")
	for i := 0; i < len(base); i++ {
		c := base[i]
		if i > 0 && c >= 'A' && c <= 'Z' {
			prev := base[i-1]
			nextLower := i+1 < len(base) && base[i+1] >= 'a' && base[i+1] <= 'z'
			if (prev >= 'a' && prev <= 'z') || (prev >= '0' && prev <= '9') || (prev >= 'A' && prev <= 'Z' && nextLower) {
				sb.WriteByte('_')
			}
		}
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		sb.WriteByte(c)
	}
	if suffix != "" {
		sb.WriteString("_" + suffix)
	}
	return sb.String()
}

// versionLess compares "major.minor" feature numbers numerically.
func versionLess(a, b string) bool {
	if a == "" {
		return b != ""
	}
	pa, pb := strings.SplitN(a, ".", 2), strings.SplitN(b, ".", 2)
	for i := range 2 {
		var x, y int
		if i < len(pa) {
			x, _ = strconv.Atoi(pa[i])
		}
		if i < len(pb) {
			y, _ = strconv.Atoi(pb[i])
		}
		if x != y {
			return x < y
		}
	}
	return false
}

// text is the character data of el and its descendants minus <comment>s,
// with whitespace runs collapsed to one space.
func text(el *etree.Element) string {
	var sb strings.Builder
	var walk func(*etree.Element)
	walk = func(e *etree.Element) {
		for _, c := range e.Child {
			switch t := c.(type) {
			case *etree.CharData:
				sb.WriteString(t.Data)
			case *etree.Element:
				if t.Tag != "comment" {
					walk(t)
				}
			}
		}
	}
	walk(el)
	return strings.Join(strings.Fields(sb.String()), " ")
}

func childText(el *etree.Element, tag string) string {
	if c := el.SelectElement(tag); c != nil {
		return strings.TrimSpace(c.Text())
	}
	return ""
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
