package objectnames

import "github.com/vkgen/vkgen/generated"

type typeFlags uint8

const (
	// processWide: handles are unique in the process (dispatchable, or an
	// instance-level object), so the key leaves the device out.
	processWide typeFlags = 1 << iota
	// deviceOwned: the object cannot outlive its VkDevice.
	deviceOwned
)

// Core object types are small integers and looked up in an array; extension
// types (1000000000+) in a map. Both are filled once and only read after.
var (
	coreFlags [64]typeFlags
	extFlags  = map[generated.ObjectType]typeFlags{}
)

func init() {
	for _, t := range generated.ObjectTypes {
		f := classify(t)
		if t >= 0 && int(t) < len(coreFlags) {
			coreFlags[t] = f
		} else {
			extFlags[t] = f
		}
	}
}

// classify derives a registry type's flags from the generated parent chain.
func classify(t generated.ObjectType) typeFlags {
	underDevice := false
	seen := 0
	for p := t.Parent(); p != generated.ObjectTypeUnknown && seen < len(generated.ObjectTypes); p = p.Parent() {
		if p == generated.ObjectTypeDevice {
			underDevice = true
			break
		}
		seen++ // bounds the walk should the table ever hold a cycle
	}
	var f typeFlags
	if underDevice {
		f |= deviceOwned
	}
	if t.Dispatchable() || !underDevice {
		f |= processWide
	}
	return f
}

// flagsOf returns t's flags. Types unknown to the generated registry (newer
// extensions) count as device-owned and non-dispatchable: keying them by
// device can never make two objects collide.
func flagsOf(t generated.ObjectType) typeFlags {
	if t >= 0 && int(t) < len(coreFlags) {
		if f := coreFlags[t]; f != 0 { // every registry type has a flag set
			return f
		}
		return deviceOwned
	}
	if f, ok := extFlags[t]; ok {
		return f
	}
	return deviceOwned
}
