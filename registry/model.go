// Package registry reads the Khronos Vulkan API registry (vk.xml) into a typed
// model. It owns parsing, API selection (vulkan / vulkansc / ...), feature and
// extension bookkeeping and the derived facts (command levels, handle object
// types). It knows nothing about any output format: generators consume the
// model and never see XML.
package registry

// Registry is one parsed vk.xml, already filtered to a single API.
type Registry struct {
	Path          string // file it was read from ("" for readers)
	API           string // the API selected, "vulkan" by default
	HeaderVersion int    // VK_HEADER_VERSION, 0 when the registry has none
	// APIVersion is the newest VK_VERSION_x_y feature, e.g. "1.4".
	APIVersion string
	// SHA256 is the hex SHA-256 of the vk.xml bytes read (vkregistry.pin's).
	SHA256 string

	Platforms  []*Platform
	Handles    []*Handle  // registry order, aliases resolved into Handle.Aliases
	Enums      []*Enum    // every <enums> block of type enum or bitmask, plus API constants
	Commands   []*Command // registry order, aliases resolved into Command.Aliases
	Features   []*Feature // VK_VERSION_* in order; internal VK_*_VERSION_* merged in
	Extensions []*Extension
	// FuncPointers are the PFN_* typedefs, both registry syntaxes normalised.
	FuncPointers []*FuncPointer
	Structs      []*Struct // structs and unions, registry order, aliases in Struct.Aliases
	// Types are every type name the registry defines, with its kind
	// (aliases are not listed; Registry.Type resolves them).
	Types []*Type

	// Warnings are unknown elements/attributes and tolerated oddities,
	// each with file:line:column, the first MaxWarnings of them; the
	// others are counted in MoreWarnings. They never make Load fail.
	Warnings     []Diagnostic
	MoreWarnings int

	// Lookup indexes, built once by the parser (see lookup.go).
	handleByName  map[string]*Handle
	enumByName    map[string]*Enum
	valueByName   map[string]*EnumValue
	valueEnum     map[string]*Enum
	commandByName map[string]*Command
	featureByName map[string]*Feature
	extByName     map[string]*Extension
	structByName  map[string]*Struct
	typeByName    map[string]*Type
}

// Diagnostic is a message tied to a position in the input.
type Diagnostic struct {
	File         string
	Line, Column int
	Msg          string
}

type Platform struct{ Name, Protect, Comment string }

type Handle struct {
	Name         string   // VkBuffer
	ObjectType   string   // VK_OBJECT_TYPE_BUFFER (objtypeenum, or derived for registries before 1.2.163)
	Parents      []string // parent handle names, may be empty
	Dispatchable bool     // VK_DEFINE_HANDLE vs VK_DEFINE_NON_DISPATCHABLE_HANDLE
	Aliases      []string // VkDescriptorUpdateTemplateKHR, ...
	Protect      string   // platform guard macro, "" for none
	RequiredBy   []string // features/extensions that require it
}

type EnumKind int

const (
	EnumKindEnum EnumKind = iota
	EnumKindBitmask
	EnumKindConstants // API Constants
)

type Enum struct {
	Name     string // VkObjectType
	Kind     EnumKind
	BitWidth int // 32, or 64 for 64-bit flags
	Values   []*EnumValue
	// ValueByName indexes Values (alias enumerants are Values too).
	ValueByName map[string]*EnumValue
	// Aliases are type aliases of the enum (VkPointClippingBehaviorKHR).
	Aliases []string
}

type EnumValue struct {
	Name    string
	Value   int64  // numeric value (bitmask: 1<<bitpos); for aliases the target's value
	Alias   string // non-empty for alias enumerants
	Text    string // the raw value text for API constants like (~0U), else ""
	Type    string // C type of an API constant (uint32_t, uint64_t, float), "" elsewhere and before 1.2.176
	Comment string
	// RequiredBy names the feature or extension that added it ("" for the base <enums> block).
	RequiredBy string
	Protect    string
	Deprecated string
}

type CommandLevel int

const (
	LevelGlobal CommandLevel = iota // vkCreateInstance, vkEnumerateInstanceVersion/ExtensionProperties/LayerProperties
	// LevelInstance also covers vkGetInstanceProcAddr: the loader answers a
	// NULL instance itself, and layers dispatch it through the instance chain.
	LevelInstance // first param VkInstance / VkPhysicalDevice (or none of the device handles)
	LevelDevice   // first param VkDevice, VkQueue, VkCommandBuffer, VkExternalComputeQueueNV, ...
)

// Global, Instance and Device say which level l is (for templates).
func (l CommandLevel) Global() bool   { return l == LevelGlobal }
func (l CommandLevel) Instance() bool { return l == LevelInstance }
func (l CommandLevel) Device() bool   { return l == LevelDevice }

// Valid reports whether l is one of the three levels.
func (l CommandLevel) Valid() bool { return l >= LevelGlobal && l <= LevelDevice }

type Command struct {
	Name       string
	Return     string // VkResult, void, PFN_vkVoidFunction...
	Params     []Decl
	Aliases    []string
	Level      CommandLevel
	RequiredBy []string // VK_VERSION_1_0, VK_EXT_debug_utils, ... (requiring this name)
	Protect    string   // platform guard when only required by platform extensions
	// AliasRequiredBy lists, per alias name, who requires it under that name
	// (vkCmdDrawIndirectCountKHR -> VK_KHR_draw_indirect_count). Aliases no
	// selected feature or extension requires are absent.
	AliasRequiredBy map[string][]string
}

// FuncPointer is a PFN_* typedef.
type FuncPointer struct {
	Name   string // PFN_vkAllocationFunction
	Return string // void*
	Params []Decl // Optional/Len are not given for funcpointer params
}

type Feature struct {
	Name     string // VK_VERSION_1_1
	Number   string // "1.1"
	API      []string
	Depends  string
	Commands []string
	Types    []string
	Enums    []string
	// Merged names the internal features (VK_BASE_VERSION_1_0, ...) whose
	// requirements were folded into this one.
	Merged []string
}

type Extension struct {
	Name         string
	Number       int
	Type         string // "instance" or "device"
	Supported    []string
	Provisional  bool
	Platform     string
	Protect      string
	Depends      string // normalised depends expression (requires= converted for old registries)
	PromotedTo   string
	DeprecatedBy string
	ObsoletedBy  string
	Commands     []string
	Types        []string
	Enums        []string
}
