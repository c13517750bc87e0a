package objectnames

import (
	"fmt"
	"unsafe"

	"github.com/vkgen/vkgen/generated"
)

// DebugUtilsObjectNameInfo mirrors VkDebugUtilsObjectNameInfoEXT.
// ObjectName is borrowed for the call (it may be an unsafe.String view of
// pObjectName); a NULL pObjectName is the empty string.
type DebugUtilsObjectNameInfo struct {
	ObjectType   generated.ObjectType
	ObjectHandle uint64
	ObjectName   string
}

// DebugMarkerObjectNameInfo mirrors VkDebugMarkerObjectNameInfoEXT, whose
// object type is the legacy VkDebugReportObjectTypeEXT. ObjectName is
// borrowed as in DebugUtilsObjectNameInfo.
type DebugMarkerObjectNameInfo struct {
	ObjectType generated.DebugReportObjectType
	Object     uint64
	ObjectName string
}

// SetDebugUtilsObjectName applies vkSetDebugUtilsObjectNameEXT(device, info).
// A nil info is ignored.
func (s *Store) SetDebugUtilsObjectName(device uint64, info *DebugUtilsObjectNameInfo) error {
	if info == nil {
		return nil
	}
	return s.SetName(device, info.ObjectType, info.ObjectHandle, info.ObjectName)
}

// SetDebugMarkerObjectName applies vkDebugMarkerSetObjectNameEXT(device, info),
// mapping the legacy type through the generated table. A nil info is
// ignored; a legacy type with no VkObjectType is rejected with
// ErrUnmappedLegacyType and stores nothing.
func (s *Store) SetDebugMarkerObjectName(device uint64, info *DebugMarkerObjectNameInfo) error {
	if info == nil {
		return nil
	}
	t, ok := info.ObjectType.ObjectType()
	if !ok {
		return fmt.Errorf("%w: %v (value %d) is not a registry value with a VkObjectType counterpart",
			ErrUnmappedLegacyType, info.ObjectType, int32(info.ObjectType))
	}
	return s.SetName(device, t, info.Object, info.ObjectName)
}

// SetNameBytes is SetName for a name held in bytes, typically
// unsafe.Slice over a C string: the bytes are compared in place and copied
// only when the name changes, so re-applying a name allocates nothing. A nil
// or empty slice removes the name. The store does not retain name.
func (s *Store) SetNameBytes(device uint64, t generated.ObjectType, handle uint64, name []byte) error {
	return s.SetName(device, t, handle, unsafe.String(unsafe.SliceData(name), len(name)))
}
