// Package audit reads hand-written mapping tables between
// VkDebugReportObjectTypeEXT and VkObjectType, in either direction, from
// C, C++, Go, Rust or Zig source, and compares them with the mapping
// gen/objtypes derives from the registry. It owns the source reader (a
// tokenizer and the recognisers of each table shape), the checks and
// their findings, and the bounded reading of audit inputs; it reads text
// only (no compiler) and never writes files.
//
// A pair of enumerants is a row only inside one of these constructs:
//
//	case D: return O;  case D1: case D2: x = O; break;   switch/case, fallthrough groups, default
//	D => O,  .d, .e => .o,                                Rust match / Zig switch arms
//	if (t == D) return O; else if (D == t) { ... }        if/else-if chains (|| of comparisons too)
//	{D, O}  (D, O)  std::make_pair(D, O)                  pairs in initialiser lists, std::map, tuples
//	[D] = O   m[D] = O;                                   designated initialisers, indexed assignments
//	VkObjectType a[VK_DEBUG_REPORT_..._RANGE_SIZE_EXT] = {O0, O1, ...}   arrays sized by the other enum, by position
//	D: O                                                  Go map literals
//
// and the same with O -> D for reverse tables. Names are C enumerants
// (VK_OBJECT_TYPE_BUFFER), Go constants (ObjectTypeBuffer, as generated/
// and vulkan-go spell them) or enum-qualified members (vk::ObjectType::eBuffer,
// vk::ObjectType::BUFFER, vk.ObjectType.buffer) and Zig inferred literals
// typed by the switch operand's declaration. Each construct is one table
// (one with a single pair is checked but not held to completeness); rows a
// macro generates (#define X(n) case VK_OBJECT_TYPE_##n:) are not visible
// and are reported as such.
package audit
