// Package generated holds Go tables that vkgen generates from the Khronos
// Vulkan registry: VkObjectType and VkDebugReportObjectTypeEXT with their
// names, handles and mapping, and the commands that destroy objects. Every
// other file here is written by `vkgen generate` and must not be edited by
// hand; see docs/generating.md. The committed files come from the pinned
// registry 1.4.359:
//
//	VK_REGISTRY=../shared/vkregistry/1.4.359/vk.xml go generate ./generated
package generated

//go:generate go run ../cmd/vkgen -C .. generate --quiet --out generated
