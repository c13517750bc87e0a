package layerstubs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
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
	// and names the manifest VkLayer_vkgen_<symbol>.json.
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
}

// ExtensionSpec is one claimed extension.
type ExtensionSpec struct {
	Name        string `json:"name"`
	SpecVersion uint32 `json:"spec_version"`
}

var (
	symbolRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	layerRE  = regexp.MustCompile(`^VK_LAYER_[A-Za-z0-9_]+$`)
)

// LoadSpec reads and validates a spec file.
func LoadSpec(path string) (*Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := ParseSpec(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// ParseSpec decodes and validates a spec, filling defaults.
func ParseSpec(data []byte) (*Spec, error) {
	var probe map[string]json.RawMessage
	if json.Unmarshal(data, &probe) == nil {
		for _, old := range []string{"commands", "forget_hook"} {
			if _, ok := probe[old]; ok {
				return nil, fmt.Errorf("layer spec: %q is no longer declared: the layer's Go functions (pre<Cmd>, post<Cmd>, forgetNamed) say what it hooks; see docs/layers.md", old)
			}
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var s Spec
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("layer spec: %w", err)
	}
	if !layerRE.MatchString(s.Name) {
		return nil, fmt.Errorf("layer spec: name %q is not a VK_LAYER_* identifier", s.Name)
	}
	if !symbolRE.MatchString(s.Symbol) {
		return nil, fmt.Errorf("layer spec: symbol %q must be a lower-case C identifier", s.Symbol)
	}
	if s.Description == "" {
		return nil, fmt.Errorf("layer spec: description is empty")
	}
	if s.APIVersion == "" {
		s.APIVersion = "1.3.239"
	}
	if s.Library == "" {
		s.Library = "./libVkLayer_vkgen.so"
	}
	if s.Framework == "" {
		s.Framework = ".."
	}
	for _, e := range append(append([]ExtensionSpec(nil), s.InstanceExtensions...), s.DeviceExtensions...) {
		if e.Name == "" || e.SpecVersion == 0 {
			return nil, fmt.Errorf("layer spec: extension %q needs a name and a spec_version", e.Name)
		}
	}
	return &s, nil
}
