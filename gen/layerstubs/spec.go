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
	// implements: advertised for the layer, and their intercepted commands
	// are handed out even when the driver lacks them.
	InstanceExtensions []ExtensionSpec `json:"instance_extensions"`
	DeviceExtensions   []ExtensionSpec `json:"device_extensions"`
	Commands           []CommandSpec   `json:"commands"`
	// ForgetHook intercepts every command that ends an object's life (the
	// generated destroyer table; vkDestroyInstance and vkDestroyDevice are
	// the layer's own hooks) and, before the call down, calls the layer's
	//
	//	void <symbol>_forget(struct vkgen_call *, uint64_t device, int32_t objectType, uint64_t handle)
	//
	// once per ended non-null handle (device: the VkDevice of device-level
	// commands, 0 otherwise), so per-object state dies before the handle can
	// be reused. The hook is C, so a layer can filter before entering Go.
	ForgetHook bool `json:"forget_hook"`
	// TracingSettings declares that the layer reads the tracing settings
	// (settings.Tracing, through layer/tracing's Presence): its manifest
	// lists them for Vulkan Configurator (features.settings) and the layer
	// advertises VK_EXT_layer_settings, whatever the registry (the
	// extension has no commands), so applications may chain
	// VkLayerSettingsCreateInfoEXT to vkCreateInstance.
	TracingSettings bool `json:"tracing_settings"`
}

// ExtensionSpec is one claimed extension.
type ExtensionSpec struct {
	Name        string `json:"name"`
	SpecVersion uint32 `json:"spec_version"`
}

// CommandSpec is one intercepted command. With no hook it is a C-only
// forward. Hook functions the layer author writes, for vkFooBar:
//
//	go_pre:   func preFooBar(<params>)                      (Go, same package)
//	go_post:  func postFooBar(<params>, result C.<Return>)  (Go; result only for non-void)
//	c_pre:    VkResult <symbol>_pre_FooBar(struct vkgen_call *, <pointers to params>)
//	          (may replace parameters; a result other than VK_SUCCESS skips the call down)
//	c_post:   void <symbol>_post_FooBar(struct vkgen_call *, <params>[, <Return> result])
//	fallback: <Return> <symbol>_fallback_FooBar(struct vkgen_call *, <params>)
//	          (runs instead of the call down when nothing below implements the command)
type CommandSpec struct {
	Name     string `json:"name"`
	GoPre    bool   `json:"go_pre"`
	GoPost   bool   `json:"go_post"`
	CPre     bool   `json:"c_pre"`
	CPost    bool   `json:"c_post"`
	Fallback bool   `json:"fallback"`
	// NameCache puts the C object-name dedupe cache in front of the Go
	// hooks of vkSetDebugUtilsObjectNameEXT or vkDebugMarkerSetObjectNameEXT:
	// re-applying an unchanged name does not enter Go. Destroy commands are
	// then intercepted (C only) to invalidate the cache.
	NameCache bool `json:"name_cache"`
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
	seen := map[string]bool{}
	for _, c := range s.Commands {
		if seen[c.Name] {
			return nil, fmt.Errorf("layer spec: command %s listed twice", c.Name)
		}
		seen[c.Name] = true
	}
	for _, e := range append(append([]ExtensionSpec(nil), s.InstanceExtensions...), s.DeviceExtensions...) {
		if e.Name == "" || e.SpecVersion == 0 {
			return nil, fmt.Errorf("layer spec: extension %q needs a name and a spec_version", e.Name)
		}
	}
	return &s, nil
}
