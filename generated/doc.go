// Package generated holds Go tables that vkgen generates from the Khronos
// Vulkan registry: VkObjectType and VkDebugReportObjectTypeEXT with their
// names, handles and mapping, and the commands that destroy objects. Every
// other file here is written by `vkgen generate` (`go generate ./...` at the
// module root) and must not be edited by hand; each records the registry it
// came from. See docs/generating.md.
package generated
