// Package settings reads the layers' settings the way the Khronos layers do
// (Vulkan-Utility-Libraries' layer settings): for layer VK_LAYER_VKGEN_Foo and
// setting key, the sources in precedence order are
//
//  1. environment variables: VK_VKGEN_<KEY> (the compatibility namespace:
//     the variables vkgen has always read), VK_VKGEN_FOO_<KEY>,
//     VK_FOO_<KEY>, VK_<KEY> (the three names the library derives);
//  2. the settings file: vkgen_foo.<key> = value (the layer name lower-cased
//     without VK_LAYER_), or the older vkgen.<key>; the file is
//     $XDG_DATA_HOME/vulkan/settings.d/vk_layer_settings.txt (the one
//     Vulkan Configurator writes; $HOME/.local/share when XDG_DATA_HOME is
//     unset) when it exists, else $VK_LAYER_SETTINGS_PATH (a file, or a
//     folder holding vk_layer_settings.txt), else vk_layer_settings.txt in
//     the current folder;
//  3. VkLayerSettingsCreateInfoEXT structures chained by the application
//     to VkInstanceCreateInfo (VK_EXT_layer_settings);
//  4. the setting's default.
//
// A value that does not parse, a value of the wrong type, a blank value, a
// line of the file in our namespaces without "=" and an unknown key of one
// of our namespaces are reported (Sources.Warn), naming the key and the
// source (variable, file and line, create info); a bad value leaves the
// setting to the next source, as a blank one does, and in the end to its
// default. A missing or unreadable file is no error. The package knows no
// setting: their owners declare them (a layer's spec, package layer/tracing's
// settings.json) and Register them at init (Known); it never knows what a
// setting means.
package settings

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
)

// Type is a setting's type, named as in layer manifests.
type Type string

// The types the layers use; manifests declare them with these names.
const (
	Bool     Type = "BOOL"
	Int      Type = "INT"
	String   Type = "STRING"
	SaveFile Type = "SAVE_FILE"
)

// Def declares one setting: what a manifest lists for Vulkan Configurator
// and what Resolve reads.
// Settings files and layer specs write it as JSON (decl.go).
type Def struct {
	Key         string `json:"key"` // lower_snake_case, e.g. trace_file
	Label       string `json:"label"`
	Description string `json:"description"`
	Type        Type   `json:"type"`
	Default     any    `json:"default"` // bool, int64 or string, matching Type
	Min         int64  `json:"min"`     // Min and Max bound an INT when either is not 0
	Max         int64  `json:"max"`
}

// Value is a resolved setting: V is a bool, int64 or string.
type Value struct {
	V      any
	Source string // "default", "VK_VKGEN_TRACE_FILE", "/path/vk_layer_settings.txt:3", "VkLayerSettingsCreateInfoEXT"
}

// APISetting is one VkLayerSettingEXT, copied out of the application's
// create info (see FromChain).
type APISetting struct {
	Layer, Key string
	Type       int32  // VkLayerSettingTypeEXT
	Count      uint32 // valueCount as the application gave it
	Values     []any  // bool, int64, uint64, float64 or string by Type: the first min(Count, maxValues)
}

// VkLayerSettingTypeEXT values.
const (
	apiBool32  = 0
	apiInt32   = 1
	apiInt64   = 2
	apiUint32  = 3
	apiUint64  = 4
	apiFloat32 = 5
	apiFloat64 = 6
	apiString  = 7
)

// compatNamespace is the compatibility namespace: VK_VKGEN_<KEY> variables and
// vkgen.<key> file lines, read for every vkgen layer.
const compatNamespace = "vkgen"

// Sources are where Resolve looks; the zero value reads the process's
// environment and file and prints problems on stderr. Tests replace them.
type Sources struct {
	Getenv  func(string) string
	Environ func() []string
	Cwd     string
	API     []APISetting
	// Warn reports a problem once per Resolve: key names the setting
	// ("settings.trace_file"; "settings" for unknown keys and lines that do
	// not parse), message says it all ("settings: ..."). layer/tracing passes
	// its Warn, which prints each once per process and records it in traces.
	Warn func(key, message string)
}

func (s Sources) withDefaults() Sources {
	if s.Getenv == nil {
		s.Getenv = os.Getenv
	}
	if s.Environ == nil {
		s.Environ = os.Environ
	}
	if s.Cwd == "" {
		s.Cwd, _ = os.Getwd()
	}
	if s.Warn == nil {
		s.Warn = func(_, message string) { fmt.Fprintln(os.Stderr, "vkgen: "+message) }
	}
	return s
}

// Resolve returns every setting of defs, keyed by Def.Key, for the layers
// named (VK_LAYER_VKGEN_...). The vkgen layers share one library and one
// tracing setup per process, so a setting given for any of them applies:
// within each source, the compatibility name comes first, then the layers
// in the order given. A different good value that a later name of the same
// source gives (another layer's, say) is reported as not used (but for
// VK_<KEY>, which may be another tool's).
func Resolve(layers []string, defs []Def, src Sources) map[string]Value {
	src = src.withDefaults()
	file, lines := readFile(FilePath(src.Getenv, src.Cwd))
	byKey := map[string]Def{}
	for _, d := range defs {
		byKey[d.Key] = d
	}
	r := reporter{warn: src.Warn, seen: map[string]bool{}}
	for _, layer := range layers {
		r.unknownKeys(layer, byKey, src, file, lines)
	}
	out := map[string]Value{}
	for _, d := range defs {
		out[d.Key] = resolveOne(layers, d, src, file, lines, &r)
	}
	return out
}

// resolveOne takes the first source that gives d a good value: a blank or
// bad one is reported and the next source is asked.
func resolveOne(layers []string, d Def, src Sources, file string, lines []fileLine, r *reporter) Value {
	names := envNames(layers, d.Key)
	for i, name := range names {
		if v, ok := r.parse(d, src.Getenv(name), name); ok {
			for _, other := range names[i+1:] {
				if other != "VK_"+strings.ToUpper(d.Key) { // the least specific may be another tool's
					r.shadowed(d, v, src.Getenv(other), other)
				}
			}
			return v
		}
	}
	nss := append(namespaces(layers), compatNamespace)
	for i, ns := range nss {
		if l, ok := lastLine(lines, ns+"."+d.Key); ok {
			if v, ok := r.parse(d, l.value, fmt.Sprintf("%s:%d", file, l.n)); ok {
				for _, other := range nss[i+1:] {
					if l, ok := lastLine(lines, other+"."+d.Key); ok {
						r.shadowed(d, v, l.value, fmt.Sprintf("%s:%d", file, l.n))
					}
				}
				return v
			}
		}
	}
	for _, a := range src.API {
		if a.Key == d.Key && slices.Contains(layers, a.Layer) {
			if v, ok := r.fromAPI(d, a); ok {
				return v
			}
		}
	}
	return Value{V: d.Default, Source: "default"}
}

// envNames lists the variables of a key for several layers, without
// repeating the compatibility and namespace-trimmed names.
func envNames(layers []string, key string) []string {
	out := []string{"VK_" + strings.ToUpper(compatNamespace) + "_" + strings.ToUpper(key)}
	for _, layer := range layers {
		for _, n := range EnvNames(layer, key) {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	// VK_<KEY> is the least specific: after every layer's own names.
	if i := slices.Index(out, "VK_"+strings.ToUpper(key)); i >= 0 {
		out = append(slices.Delete(out, i, i+1), "VK_"+strings.ToUpper(key))
	}
	return out
}

func namespaces(layers []string) []string {
	var out []string
	for _, l := range layers {
		out = append(out, Namespace(l))
	}
	return out
}

// Namespace is the settings-file prefix of a layer: its name lower-cased
// without VK_LAYER_ (vkgen_devicememoryreport).
func Namespace(layer string) string {
	return strings.ToLower(strings.TrimPrefix(layer, "VK_LAYER_"))
}

// EnvNames are the variables read for a setting, first match wins.
func EnvNames(layer, key string) []string {
	name := strings.ToUpper(strings.TrimPrefix(layer, "VK_LAYER_"))
	k := strings.ToUpper(key)
	names := []string{"VK_" + strings.ToUpper(compatNamespace) + "_" + k, "VK_" + name + "_" + k}
	if _, vendorless, ok := strings.Cut(name, "_"); ok {
		names = append(names, "VK_"+vendorless+"_"+k)
	}
	return append(names, "VK_"+k)
}

// FilePath is the settings file the library would read (it may not exist).
func FilePath(getenv func(string) string, cwd string) string {
	data := getenv("XDG_DATA_HOME")
	if data == "" && getenv("HOME") != "" {
		data = getenv("HOME") + "/.local/share"
	}
	if data != "" {
		p := data + "/vulkan/settings.d/vk_layer_settings.txt"
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p
		}
	}
	if p := getenv("VK_LAYER_SETTINGS_PATH"); p != "" {
		if st, err := os.Stat(p); err == nil {
			if st.IsDir() {
				return p + "/vk_layer_settings.txt"
			}
			return p
		}
	}
	return cwd + "/vk_layer_settings.txt"
}

type fileLine struct {
	n          int
	key, value string
	noEquals   bool // a line that is no assignment: key is the whole line
}

// maxFile bounds what is read of a settings file (a device or a huge file
// must not stall vkCreateInstance).
const maxFile = 1 << 20

func readFile(path string) (string, []fileLine) {
	f, err := os.Open(path)
	if err != nil {
		return path, nil
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return path, nil
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFile))
	if err != nil {
		return path, nil
	}
	var out []fileLine
	for i, line := range strings.Split(string(data), "\n") {
		line, _, _ = strings.Cut(line, "#")
		k, v, ok := strings.Cut(line, "=")
		if ok || strings.TrimSpace(line) != "" {
			out = append(out, fileLine{n: i + 1, key: strings.TrimSpace(k), value: strings.TrimSpace(v), noEquals: !ok})
		}
	}
	return path, out
}

// lastLine returns the last assignment of key: the file's last line wins.
func lastLine(lines []fileLine, key string) (fileLine, bool) {
	for i := len(lines) - 1; i >= 0; i-- {
		if lines[i].key == key && !lines[i].noEquals {
			return lines[i], true
		}
	}
	return fileLine{}, false
}

// reporter reports each problem once per Resolve.
type reporter struct {
	warn func(key, message string)
	seen map[string]bool
}

func (r reporter) report(key, format string, args ...any) {
	msg := fmt.Sprintf("settings: "+format, args...)
	if !r.seen[msg] {
		r.seen[msg] = true
		r.warn(key, msg)
	}
}

// parse reads s, the value of d from source, ok false when there is none:
// s is empty (unset), blank (reported) or does not parse (reported).
func (r reporter) parse(d Def, s, source string) (Value, bool) {
	if s == "" {
		return Value{}, false
	}
	if strings.TrimSpace(s) == "" {
		r.report("settings."+d.Key, "%s from %s: %q is blank; treated as unset", d.Key, source, s)
		return Value{}, false
	}
	v, err := parseValue(d, s)
	if err != nil {
		r.report("settings."+d.Key, "%s from %s: %v; ignored", d.Key, source, err)
		return Value{}, false
	}
	return Value{V: v, Source: source}, true
}

// shadowed reports s, the value of d from source, when it is good and
// differs from v, which a source of the same kind that comes first gave:
// the layers share their settings, so a value given for one layer and
// another for the other cannot both hold.
func (r reporter) shadowed(d Def, v Value, s, source string) {
	if strings.TrimSpace(s) == "" {
		return
	}
	if w, err := parseValue(d, s); err == nil && w != v.V {
		r.report("settings."+d.Key, "%s from %s (%v) is not used: the vkgen layers share one value, and %v from %s comes first",
			d.Key, source, show(w), show(v.V), v.Source)
	}
}

// show quotes a string value.
func show(v any) any {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return v
}

func parseValue(d Def, s string) (any, error) {
	switch d.Type {
	case Bool:
		switch l := strings.ToLower(s); l {
		case "true", "on":
			return true, nil
		case "false", "off":
			return false, nil
		default:
			n, err := parseInt(l)
			if err != nil {
				return nil, fmt.Errorf("%q is not a boolean (true, false, on, off or a number)", s)
			}
			return n != 0, nil
		}
	case Int:
		n, err := parseInt(s)
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer", s)
		}
		return checkRange(d, n)
	default:
		return s, nil
	}
}

func parseInt(s string) (int64, error) {
	neg := strings.HasPrefix(s, "-")
	body := strings.TrimPrefix(s, "-")
	var n uint64
	var err error
	if h, ok := strings.CutPrefix(strings.ToLower(body), "0x"); ok {
		n, err = strconv.ParseUint(h, 16, 63)
	} else {
		n, err = strconv.ParseUint(body, 10, 63)
	}
	if err != nil {
		return 0, err
	}
	if neg {
		return -int64(n), nil
	}
	return int64(n), nil
}

func checkRange(d Def, n int64) (any, error) {
	if d.Min != 0 || d.Max != 0 {
		if n < d.Min || n > d.Max {
			return nil, fmt.Errorf("%d is outside %d..%d", n, d.Min, d.Max)
		}
	}
	return n, nil
}

// fromAPI checks a create-info entry: its type first (a type it does not
// know says nothing about its values), then its count, then its value.
func (r reporter) fromAPI(d Def, a APISetting) (Value, bool) {
	const source = "VkLayerSettingsCreateInfoEXT"
	bad := func(why string) (Value, bool) {
		r.report("settings."+d.Key, "%s from %s: %s; ignored", d.Key, source, why)
		return Value{}, false
	}
	want, wantName := []int32{apiString}, apiTypeName(apiString)
	switch d.Type {
	case Bool:
		want, wantName = []int32{apiBool32}, apiTypeName(apiBool32)
	case Int:
		want, wantName = []int32{apiInt32, apiInt64, apiUint32, apiUint64}, "an integer type"
	}
	switch {
	case a.Type < apiBool32 || a.Type > apiString:
		return bad(fmt.Sprintf("unknown type %s", apiTypeName(a.Type)))
	case !slices.Contains(want, a.Type):
		return bad(fmt.Sprintf("type %s, want %s", apiTypeName(a.Type), wantName))
	}
	if a.Count != 1 || len(a.Values) != 1 {
		return bad(fmt.Sprintf("%d values, want 1", a.Count))
	}
	switch v := a.Values[0].(type) {
	case bool:
		return Value{V: v, Source: source}, true
	case string:
		return r.parse(d, v, source)
	case int64:
		return r.checkedInt(d, v, source)
	case uint64:
		if v > 1<<63-1 {
			return bad(fmt.Sprintf("%d is too large", v))
		}
		return r.checkedInt(d, int64(v), source)
	default:
		return bad(fmt.Sprintf("value %v of type %s", v, apiTypeName(a.Type)))
	}
}

func (r reporter) checkedInt(d Def, n int64, source string) (Value, bool) {
	got, err := checkRange(d, n)
	if err != nil {
		r.report("settings."+d.Key, "%s from %s: %v; ignored", d.Key, source, err)
		return Value{}, false
	}
	return Value{V: got, Source: source}, true
}

func apiTypeName(t int32) string {
	names := []string{"BOOL32", "INT32", "INT64", "UINT32", "UINT64", "FLOAT32", "FLOAT64", "STRING"}
	if t >= 0 && int(t) < len(names) {
		return "VK_LAYER_SETTING_TYPE_" + names[t] + "_EXT"
	}
	return fmt.Sprintf("VkLayerSettingTypeEXT(%d)", t)
}

// unknownKeys reports what in our namespaces names nothing known: file
// lines (and lines there that are no assignment), create-info entries for
// this layer, VK_VKGEN_FOO_* variables, and VK_VKGEN_* variables that are
// neither a setting nor end with one (another vkgen layer's).
func (r reporter) unknownKeys(layer string, byKey map[string]Def, src Sources, file string, lines []fileLine) {
	for _, l := range lines {
		for _, prefix := range []string{Namespace(layer) + ".", compatNamespace + "."} {
			k, ok := strings.CutPrefix(l.key, prefix)
			switch _, known := byKey[k]; {
			case ok && l.noEquals:
				r.report("settings", "%s:%d: %q is not \"key = value\"; ignored", file, l.n, l.key)
			case ok && !known:
				r.report("settings", "unknown setting %s in %s:%d", l.key, file, l.n)
			}
		}
	}
	for _, a := range src.API {
		if _, known := byKey[a.Key]; a.Layer == layer && !known {
			r.report("settings", "unknown setting %s of %s in VkLayerSettingsCreateInfoEXT", a.Key, layer)
		}
	}
	envPrefix := "VK_" + strings.ToUpper(strings.TrimPrefix(layer, "VK_LAYER_")) + "_"
	compatPrefix := "VK_" + strings.ToUpper(compatNamespace) + "_"
	for _, kv := range src.Environ() {
		name, val, _ := strings.Cut(kv, "=")
		if val == "" {
			continue
		}
		if k, ok := strings.CutPrefix(name, envPrefix); ok {
			if _, known := byKey[strings.ToLower(k)]; !known {
				r.report("settings", "unknown setting variable %s", name)
			}
		} else if k, ok := strings.CutPrefix(name, compatPrefix); ok && !endsWithKey(strings.ToLower(k), byKey) {
			r.report("settings", "unknown setting variable %s", name)
		}
	}
}

// endsWithKey reports whether k is a key or ends with "_" and a key.
func endsWithKey(k string, byKey map[string]Def) bool {
	for key := range byKey {
		if k == key || strings.HasSuffix(k, "_"+key) {
			return true
		}
	}
	return false
}
