// Audit fixture: a Go switch over the constants of generated/, with a
// fallthrough group, a multi-value case and a map literal.
package legacy

import "github.com/vkgen/vkgen/generated"

var names = map[generated.DebugReportObjectType]generated.ObjectType{
	generated.DebugReportObjectTypeBuffer: generated.ObjectTypeBuffer,
	generated.DebugReportObjectTypeImage:  generated.ObjectTypeImage,
}

func convert(t generated.DebugReportObjectType) generated.ObjectType {
	switch t {
	case generated.DebugReportObjectTypeInstance:
		fallthrough
	case generated.DebugReportObjectTypeDevice:
		return generated.ObjectTypeDevice // wrong for Instance (fallthrough group)
	case generated.DebugReportObjectTypeSurfaceKHR, generated.DebugReportObjectTypeSwapchainKHR:
		return generated.ObjectTypeSwapchainKHR // wrong for SurfaceKHR
	case generated.DebugReportObjectTypeCudaModuleNV:
		return generated.ObjectTypeCudaModuleNV
	case DebugReportObjectTypeObjectTableNVX:
		return generated.ObjectTypeUnknown
	}
	return generated.ObjectTypeUnknown
}

func describe(t generated.DebugReportObjectType) string {
	switch t { // not a mapping table: yields no rows
	case generated.DebugReportObjectTypeQueue:
		return "queue"
	}
	return ""
}
