package layerstubs

import (
	"encoding/json"
	"errors"
	"fmt"
	"go/token"
	"os"
	"regexp"
	"strings"
)

// SpecFile is the name of the declarative layer spec in a layer's package.
const SpecFile = "vkgen-layer.json"

// Spec declares one layer. It is read from SpecFile (JSON; unknown fields
// are errors so typos do not silently drop hooks).
type Spec struct {
	// Name is the layer name the loader sees, e.g. VK_LAYER_VKGEN_example.
	Name string `json:"name"`
	// Symbol is the C identifier prefix of everything generated for the
	// layer (vkgen_<symbol>_GetInstanceProcAddr, <symbol>_pre_<Cmd>, ...)
	// and names the manifest VkLayer_vkgen_<symbol>.gen.json.
	Symbol      string `json:"symbol"`
	Description string `json:"description"`
	// ImplementationVersion is the layer's own version number.
	ImplementationVersion uint32 `json:"implementation_version"`
	// APIVersion is the Vulkan version the manifest advertises ("1.3.239").
	APIVersion string `json:"api_version"`
	// Library is the manifest's library_path (default ./libVkLayer_vkgen.so).
	Library string `json:"library"`
	// Framework is the directory of package layer relative to the layer's
	// package, for the C include path (default "..").
	Framework string `json:"framework"`
	// InstanceExtensions and DeviceExtensions are extensions the layer itself
	// implements: advertised for the layer, and all their commands are
	// intercepted and handed out even when the driver lacks them. Which
	// other commands the layer hooks follows from its Go functions
	// (discover.go), so a spec lists no commands.
	InstanceExtensions []ExtensionSpec `json:"instance_extensions"`
	DeviceExtensions   []ExtensionSpec `json:"device_extensions"`
	// TracingSettings declares that the layer reads the tracing settings
	// (settings.Tracing, through layer/tracing's Presence): its manifest
	// lists them for Vulkan Configurator (features.settings) and the layer
	// advertises VK_EXT_layer_settings, whatever the registry (the
	// extension has no commands), so applications may chain
	// VkLayerSettingsCreateInfoEXT to vkCreateInstance.
	TracingSettings bool `json:"tracing_settings"`
	// ObjectNames declares that the layer reads object names: the framework
	// records the application's naming calls (vkSetDebugUtilsObjectNameEXT,
	// vkDebugMarkerSetObjectNameEXT) into objectnames.Shared(), durably, and
	// forgets the names of ended objects there, once per device chain
	// however many such layers it holds. Such a layer hooks neither naming
	// command nor declares forgetNamed.
	ObjectNames bool `json:"object_names"`
	// CallStacks declares that the layer reads the application's call
	// stacks (layer.CallStack) in its deferred after<Cmd> hooks of the
	// commands that create objects holding memory (objtypes.MemoryCreators):
	// their records carry the caller's return addresses, up to the depth
	// layer.SetCallStackDepth sets.
	CallStacks bool `json:"call_stacks"`

	file string           // the spec file, for positions
	data []byte           // its text
	pos  map[string]int64 // the offset of every key's value (walkSpec)
}

// ExtensionSpec is one claimed extension.
type ExtensionSpec struct {
	Name        string `json:"name"`
	SpecVersion uint32 `json:"spec_version"`
}

var (
	symbolRE  = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	layerRE   = regexp.MustCompile(`^VK_LAYER_[A-Za-z0-9_]+$`)
	versionRE = regexp.MustCompile(`^[0-9]+\.[0-9]+(\.[0-9]+)?$`)
)

// LoadSpec reads and validates a spec file; its mistakes are Errors at
// their line:col in it.
func LoadSpec(path string) (*Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseSpec(data, path)
}

// ParseSpec decodes and validates a spec, filling defaults.
func ParseSpec(data []byte) (*Spec, error) { return parseSpec(data, SpecFile) }

func parseSpec(data []byte, file string) (*Spec, error) {
	s := &Spec{file: file, data: data}
	var errs Errors
	fail := func(key, format string, args ...any) {
		errs = append(errs, Diag{s.Pos(key), fmt.Sprintf(format, args...)})
	}
	type unknownKey struct {
		key   string
		known []string
	}
	var unknown []unknownKey
	pos, err := walkSpec(data, func(key string, known []string) { unknown = append(unknown, unknownKey{key, known}) })
	s.pos = pos
	if err != nil {
		return nil, Errors{{s.at(err.off), err.msg}}
	}
	for _, u := range unknown {
		field := u.key[strings.LastIndexAny(u.key, ".]")+1:]
		if field == "commands" || field == "forget_hook" {
			fail(u.key, "%q is no longer declared: the layer's Go functions (pre<Cmd>, post<Cmd>, forgetNamed) say what it hooks; see docs/layers.md", field)
			continue
		}
		fail(u.key, "unknown field %q%s", field, didYouMean(closest(field, u.known, 3)))
	}
	if err := json.Unmarshal(data, s); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, Errors{{s.Pos(te.Field), fmt.Sprintf("%s: want a JSON %s, not %s", te.Field, te.Type.Kind(), te.Value)}}
		}
		return nil, Errors{{s.at(0), err.Error()}}
	}
	if !layerRE.MatchString(s.Name) {
		fail("name", "name %q is not a VK_LAYER_* identifier", s.Name)
	}
	if !symbolRE.MatchString(s.Symbol) {
		fail("symbol", "symbol %q must be a lower-case C identifier", s.Symbol)
	}
	if s.Description == "" {
		fail("description", "description is empty")
	} else if strings.IndexFunc(s.Description, func(r rune) bool { return r < ' ' || r > '~' }) >= 0 {
		fail("description", "description %q: use printable ASCII (it becomes a C string)", s.Description)
	}
	if s.APIVersion == "" {
		s.APIVersion = "1.3.239"
	} else if !versionRE.MatchString(s.APIVersion) {
		fail("api_version", "api_version %q is not major.minor[.patch]", s.APIVersion)
	}
	if s.Library == "" {
		s.Library = "./libVkLayer_vkgen.so"
	}
	if s.Framework == "" {
		s.Framework = ".."
	}
	for _, list := range []struct {
		key  string
		exts []ExtensionSpec
	}{{"instance_extensions", s.InstanceExtensions}, {"device_extensions", s.DeviceExtensions}} {
		for i, e := range list.exts {
			if e.Name == "" || e.SpecVersion == 0 {
				fail(fmt.Sprintf("%s[%d]", list.key, i), "extension %q needs a name and a spec_version", e.Name)
			}
		}
	}
	if errs != nil {
		return nil, errs.sorted()
	}
	return s, nil
}

// Pos is the position in the spec file of the value of key ("name",
// "device_extensions[1].name"), of the enclosing object when the key is
// absent, else of the file's start.
func (s *Spec) Pos(key string) token.Position {
	for key != "" {
		if off, ok := s.pos[key]; ok {
			return s.at(off)
		}
		key = key[:max(strings.LastIndexAny(key, ".["), 0)]
	}
	return s.at(0)
}

// at is the position of byte offset off of the spec file.
func (s *Spec) at(off int64) token.Position {
	p := token.Position{Filename: s.file, Offset: int(off), Line: 1, Column: 1}
	for _, c := range s.data[:min(int(off), len(s.data))] {
		if c == '\n' {
			p.Line, p.Column = p.Line+1, 1
		} else {
			p.Column++
		}
	}
	return p
}
