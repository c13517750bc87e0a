// Package objtypes derives the object-type facts vkgen generates from a
// registry model: the VkObjectType values with their handles, the legacy
// VkDebugReportObjectTypeEXT values with their mapping onto VkObjectType, and
// the commands that end an object's life. Generators (gen/gotables), the
// tables command and audit/ all read these facts from here so they agree.
// It must not read XML (that is registry/) nor format any output.
package objtypes

import (
	"fmt"
	"sort"
	"strings"

	"github.com/vkgen/vkgen/registry"
)

// Enum names and prefixes the derivation relies on.
const (
	ObjectTypeEnum  = "VkObjectType"
	DebugReportEnum = "VkDebugReportObjectTypeEXT"

	ObjectTypePrefix  = "VK_OBJECT_TYPE_"
	DebugReportPrefix = "VK_DEBUG_REPORT_OBJECT_TYPE_"
	debugReportSuffix = "_EXT"
)

// ObjectType is one non-alias VkObjectType value.
type ObjectType struct {
	Name         string   // VK_OBJECT_TYPE_BUFFER
	Value        int64    // 9
	Aliases      []string // VK_OBJECT_TYPE_DESCRIPTOR_UPDATE_TEMPLATE_KHR, ...
	Handle       string   // VkBuffer; "" when no handle names this type (UNKNOWN)
	Dispatchable bool
	Parent       string // object type of the first parent handle, "" when none
	Protect      string // platform guard macro of the handle, "" for none
	AddedBy      string // feature or extension that added the value: VK_VERSION_1_0, VK_KHR_surface
}

// DebugReportType is one non-alias VkDebugReportObjectTypeEXT value.
type DebugReportType struct {
	Name    string // VK_DEBUG_REPORT_OBJECT_TYPE_BUFFER_EXT
	Value   int64
	Aliases []string
	// ObjectType is the VkObjectType this value maps to by the naming rule,
	// "" when the rule names no VkObjectType of the registry.
	ObjectType      string
	ObjectTypeValue int64
	AddedBy         string // feature or extension that added the value: VK_EXT_debug_report, VK_NV_cuda_kernel_launch
}

// Destroyer is a command that ends the life of objects of one type.
type Destroyer struct {
	Command    string // vkFreeCommandBuffers
	ObjectType string // VK_OBJECT_TYPE_COMMAND_BUFFER
	Param      int    // index of the parameter holding the handle or the array of handles
	Count      int    // index of the count parameter of an array, -1 otherwise
}

// Tables is everything derived from one registry.
type Tables struct {
	HeaderVersion int
	// ObjectTypes is ascending by value; empty when the registry predates
	// VkObjectType (Vulkan 1.0 registries).
	ObjectTypes []ObjectType
	// DebugReport is ascending by value; empty when the registry has no
	// VK_EXT_debug_report.
	DebugReport []DebugReportType
	Destroyers  []Destroyer // sorted by Command
	// Warnings are facts that did not resolve: debug-report values naming no
	// VkObjectType, destroy/free commands whose handle could not be found,
	// handles whose object type is not a value of VkObjectType.
	Warnings []string
	// VendorTags are the author tags (KHR, EXT, NV, ...) seen in extension
	// names, used to keep vendor suffixes upper case in Go names.
	VendorTags map[string]bool
}

// HasObjectType reports whether the registry defines VkObjectType.
func (t *Tables) HasObjectType() bool { return len(t.ObjectTypes) > 0 }

// ObjectTypeByName finds a VkObjectType value by its name or an alias.
func (t *Tables) ObjectTypeByName(name string) (ObjectType, bool) {
	for _, o := range t.ObjectTypes {
		if o.Name == name || contains(o.Aliases, name) {
			return o, true
		}
	}
	return ObjectType{}, false
}

// DebugReportByName finds a VkDebugReportObjectTypeEXT value by its name or an alias.
func (t *Tables) DebugReportByName(name string) (DebugReportType, bool) {
	for _, d := range t.DebugReport {
		if d.Name == name || contains(d.Aliases, name) {
			return d, true
		}
	}
	return DebugReportType{}, false
}

// Unmapped lists the debug-report values the naming rule could not resolve.
func (t *Tables) Unmapped() []DebugReportType {
	var out []DebugReportType
	for _, d := range t.DebugReport {
		if d.ObjectType == "" {
			out = append(out, d)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func findEnum(r *registry.Registry, name string) *registry.Enum {
	for _, e := range r.Enums {
		if e != nil && e.Name == name {
			return e
		}
	}
	return nil
}

type value struct {
	name    string
	value   int64
	aliases []string
	addedBy string
}

// values returns the non-alias values of e ascending, aliases attached.
// Two non-alias names with one value are an error: the generated String
// switch would not compile, and the registry should have declared an alias.
func values(r *registry.Registry, e *registry.Enum) ([]value, error) {
	if e == nil {
		return nil, nil
	}
	base := typeOwner(r, e.Name)
	var out []value
	idx := map[string]int{}
	byValue := map[int64]string{}
	for _, v := range e.Values {
		if v == nil || v.Alias != "" {
			continue
		}
		if _, dup := idx[v.Name]; dup {
			continue // the same enumerant required twice
		}
		if other, dup := byValue[v.Value]; dup {
			return nil, fmt.Errorf("%s: %s and %s share value %d without an alias", e.Name, other, v.Name, v.Value)
		}
		byValue[v.Value] = v.Name
		idx[v.Name] = len(out)
		added := v.RequiredBy
		if added == "" {
			added = base
		}
		out = append(out, value{name: v.Name, value: v.Value, addedBy: added})
	}
	for _, v := range e.Values {
		if v == nil || v.Alias == "" {
			continue
		}
		target := v.Alias
		for hops := 0; hops < 8; hops++ { // alias of an alias
			if _, ok := idx[target]; ok {
				break
			}
			next := ""
			for _, w := range e.Values {
				if w != nil && w.Name == target {
					next = w.Alias
				}
			}
			if next == "" {
				break
			}
			target = next
		}
		if i, ok := idx[target]; ok && !contains(out[i].aliases, v.Name) {
			out[i].aliases = append(out[i].aliases, v.Name)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].value < out[j].value })
	return out, nil
}

// typeOwner is the first feature, else the first extension, that requires
// type name: the owner of the values of its base <enums> block, which
// carry no RequiredBy of their own.
func typeOwner(r *registry.Registry, name string) string {
	for _, f := range r.Features {
		if f != nil && contains(f.Types, name) {
			return f.Name
		}
	}
	for _, x := range r.Extensions {
		if x != nil && contains(x.Types, name) {
			return x.Name
		}
	}
	return ""
}

// Derive computes the tables of r. It fails only on registries whose enums
// contradict themselves; unresolved facts become Warnings.
func Derive(r *registry.Registry) (*Tables, error) {
	if r == nil {
		return nil, fmt.Errorf("objtypes: nil registry")
	}
	t := &Tables{HeaderVersion: r.HeaderVersion, VendorTags: vendorTags(r)}
	objs, err := values(r, findEnum(r, ObjectTypeEnum))
	if err != nil {
		return nil, err
	}
	drs, err := values(r, findEnum(r, DebugReportEnum))
	if err != nil {
		return nil, err
	}

	handles := map[string]*registry.Handle{} // by name and alias
	byObjType := map[string]*registry.Handle{}
	for _, h := range r.Handles {
		if !required(h) {
			continue
		}
		handles[h.Name] = h
		for _, a := range h.Aliases {
			handles[a] = h
		}
		if h.ObjectType != "" {
			byObjType[h.ObjectType] = h
		}
	}

	primary := map[string]string{} // VkObjectType name or alias -> primary name
	for _, o := range objs {
		primary[o.name] = o.name
		for _, a := range o.aliases {
			primary[a] = o.name
		}
		ot := ObjectType{Name: o.name, Value: o.value, Aliases: o.aliases, AddedBy: o.addedBy}
		if h := byObjType[o.name]; h != nil {
			ot.Handle, ot.Dispatchable, ot.Protect = h.Name, h.Dispatchable, h.Protect
			if len(h.Parents) > 0 {
				if p := handles[strings.TrimSpace(h.Parents[0])]; p != nil {
					ot.Parent = p.ObjectType
				}
			}
		}
		t.ObjectTypes = append(t.ObjectTypes, ot)
	}
	if len(objs) > 0 {
		for _, h := range r.Handles {
			if required(h) && primary[h.ObjectType] == "" {
				t.Warnings = append(t.Warnings, fmt.Sprintf("handle %s: object type %q is not a value of %s", h.Name, h.ObjectType, ObjectTypeEnum))
			}
		}
	}

	values := map[string]int64{}
	for _, o := range objs {
		values[o.name] = o.value
	}
	for _, d := range drs {
		dt := DebugReportType{Name: d.name, Value: d.value, Aliases: d.aliases, AddedBy: d.addedBy}
		target, ok := MapName(d.name)
		switch {
		case !ok:
			t.Warnings = append(t.Warnings, fmt.Sprintf("%s = %d: not of the form %s*%s, left unmapped", d.name, d.value, DebugReportPrefix, debugReportSuffix))
		case primary[target] == "":
			t.Warnings = append(t.Warnings, fmt.Sprintf("%s = %d: no %s named %s, left unmapped", d.name, d.value, ObjectTypeEnum, target))
		default:
			dt.ObjectType = primary[target]
			dt.ObjectTypeValue = values[dt.ObjectType]
		}
		t.DebugReport = append(t.DebugReport, dt)
	}

	if len(objs) > 0 {
		t.Destroyers, t.Warnings = destroyers(r, handles, primary, t.Warnings)
	}
	return t, nil
}

// required reports whether h belongs to the selected API: the registry
// keeps handles no feature or extension of that API requires (Vulkan SC's
// VkSemaphoreSciSyncPoolNV) with an empty RequiredBy.
func required(h *registry.Handle) bool { return h != nil && len(h.RequiredBy) > 0 }

// MapName applies the naming rule: a VkDebugReportObjectTypeEXT enumerant
// minus its prefix and final _EXT names the VkObjectType. ok is false when
// name does not have the debug-report shape.
func MapName(name string) (objectType string, ok bool) {
	mid, ok := strings.CutPrefix(name, DebugReportPrefix)
	if !ok {
		return "", false
	}
	mid, ok = strings.CutSuffix(mid, debugReportSuffix)
	if !ok || mid == "" {
		return "", false
	}
	return ObjectTypePrefix + mid, true
}

// destroyers finds the commands that end an object's life: vkDestroy* and
// vkFree*, plus vkRelease* when the rest of the name is exactly a handle
// (vkReleasePerformanceConfigurationINTEL; vkReleaseProfilingLockKHR and
// vkReleaseDisplayEXT release something other than an object's life).
// The destroyed parameter is the one whose handle type the name names, so
// vkFreeCommandBuffers picks pCommandBuffers, not commandPool, and
// vkDestroyDevice picks its own dispatchable first parameter.
func destroyers(r *registry.Registry, handles map[string]*registry.Handle, primary map[string]string, warns []string) ([]Destroyer, []string) {
	var out []Destroyer
	for _, c := range r.Commands {
		if c == nil || len(c.RequiredBy) == 0 {
			continue // not part of the selected API (e.g. Vulkan SC only)
		}
		var verb, obj string
		for _, v := range []string{"vkDestroy", "vkFree", "vkRelease"} {
			if rest, ok := strings.CutPrefix(c.Name, v); ok {
				verb, obj = v, rest
				break
			}
		}
		if verb == "" || obj == "" {
			continue
		}
		idx := -1
		for i, p := range c.Params {
			h := handles[p.Type]
			if h == nil || primary[h.ObjectType] == "" {
				continue // not a handle, or one with no VkObjectType (warned above)
			}
			if names(h.Name, obj, verb == "vkRelease") {
				idx = i
				break
			}
		}
		if idx < 0 {
			if verb != "vkRelease" {
				warns = append(warns, fmt.Sprintf("%s: no parameter holds the handle its name destroys; not listed as a destroyer", c.Name))
			}
			continue
		}
		h := handles[c.Params[idx].Type]
		count := -1
		if l, _, _ := strings.Cut(c.Params[idx].Len, ","); l != "" {
			for j, p := range c.Params {
				if p.Name == l {
					count = j
				}
			}
		}
		for _, name := range append([]string{c.Name}, c.Aliases...) {
			out = append(out, Destroyer{Command: name, ObjectType: primary[h.ObjectType], Param: idx, Count: count})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Command < out[j].Command })
	return out, warns
}

// names reports whether obj (the command name after its verb) names handle
// type h: exactly, as a plural (CommandBuffers), or as its tail (vkFreeMemory
// frees VkDeviceMemory). exact allows only the first form.
func names(h, obj string, exact bool) bool {
	base := strings.TrimPrefix(h, "Vk")
	if obj == base {
		return true
	}
	return !exact && (obj == base+"s" || strings.HasSuffix(base, obj))
}

func vendorTags(r *registry.Registry) map[string]bool {
	tags := map[string]bool{"KHR": true, "EXT": true}
	for _, x := range r.Extensions {
		if x == nil {
			continue
		}
		parts := strings.SplitN(x.Name, "_", 3)
		if len(parts) == 3 && parts[0] == "VK" && parts[1] == strings.ToUpper(parts[1]) {
			tags[parts[1]] = true
		}
	}
	return tags
}

// GoConst returns the Go constant that generated/ declares for a
// VkObjectType or VkDebugReportObjectTypeEXT enumerant (aliases included):
// VK_OBJECT_TYPE_SURFACE_KHR -> ObjectTypeSurfaceKHR,
// VK_DEBUG_REPORT_OBJECT_TYPE_BUFFER_EXT -> DebugReportObjectTypeBuffer.
// It returns "" for other names.
func (t *Tables) GoConst(enumerant string) string {
	if mid, ok := strings.CutPrefix(enumerant, DebugReportPrefix); ok {
		return "DebugReportObjectType" + t.GoName(strings.TrimSuffix(mid, debugReportSuffix))
	}
	if mid, ok := strings.CutPrefix(enumerant, ObjectTypePrefix); ok {
		return "ObjectType" + t.GoName(mid)
	}
	return ""
}

// GoName turns the part of an enumerant after its prefix into a Go
// identifier fragment: DEBUG_REPORT_CALLBACK_EXT -> DebugReportCallbackEXT.
// Vendor tags stay upper case; other words are capitalised.
func (t *Tables) GoName(part string) string {
	var b strings.Builder
	for _, w := range strings.Split(part, "_") {
		if w == "" {
			continue
		}
		if t.VendorTags[w] {
			b.WriteString(w)
			continue
		}
		b.WriteString(w[:1])
		b.WriteString(strings.ToLower(w[1:]))
	}
	return b.String()
}
