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

	Platforms  []*Platform
	Handles    []*Handle  // registry order, aliases resolved into Handle.Aliases
	Enums      []*Enum    // every <enums> block of type enum or bitmask, plus API constants
	Commands   []*Command // registry order, aliases resolved into Command.Aliases
	Features   []*Feature // VK_VERSION_* in order; internal VK_*_VERSION_* merged in
	Extensions []*Extension

	// Warnings are unknown elements/attributes and tolerated oddities,
	// each with file:line:column. They never make Load fail.
	Warnings []Diagnostic
}

// Diagnostic is a message tied to a position in the input.
type Diagnostic struct {
	File         string
	Line, Column int
	Msg          string
}

// String formats "file:line:col: msg" (see diag.go).

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
	// ValueByName indexes Values and aliases.
}

type EnumValue struct {
	Name    string
	Value   int64  // numeric value (bitmask: 1<<bitpos); for aliases the target's value
	Alias   string // non-empty for alias enumerants
	Text    string // the raw value text for API constants like (~0U), else ""
	Comment string
	// RequiredBy names the feature or extension that added it ("" for the base <enums> block).
	RequiredBy string
	Protect    string
	Deprecated string
}

type CommandLevel int

const (
	LevelGlobal   CommandLevel = iota // vkCreateInstance, vkEnumerateInstance*, vkGetInstanceProcAddr(NULL,...)
	LevelInstance                     // first param VkInstance / VkPhysicalDevice (or none of the device handles)
	LevelDevice                       // first param VkDevice, VkQueue, VkCommandBuffer, VkExternalComputeQueueNV, ...
)

type Param struct {
	Name     string
	Type     string // base type name, e.g. VkBuffer, uint32_t
	Decl     string // full C declaration, e.g. "const VkAllocationCallbacks* pAllocator"
	Optional string
	Len      string
	// ExternSync string etc may be added.
}

type Command struct {
	Name       string
	Return     string // VkResult, void, PFN_vkVoidFunction...
	Params     []Param
	Aliases    []string
	Level      CommandLevel
	RequiredBy []string // VK_VERSION_1_0, VK_EXT_debug_utils, ...
	Protect    string   // platform guard when only required by platform extensions
}

type Feature struct {
	Name     string // VK_VERSION_1_1
	Number   string // "1.1"
	API      []string
	Depends  string
	Commands []string
	Types    []string
	Enums    []string
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
