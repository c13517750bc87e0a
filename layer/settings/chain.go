package settings

import "unsafe"

// structureTypeLayerSettingsCreateInfo is
// VK_STRUCTURE_TYPE_LAYER_SETTINGS_CREATE_INFO_EXT (VK_EXT_layer_settings;
// the system headers of Debian 12 predate it, so the layouts are here).
const structureTypeLayerSettingsCreateInfo = 1000496000

// Bounds on what FromChain reads of application memory: a cyclic or
// corrupt chain must not hang or exhaust vkCreateInstance. Every setting
// takes one value, so no more is read whatever valueCount says: reading
// more than a setting takes would read memory the application never
// promised (a huge valueCount with one value faulted here).
const (
	maxChain    = 256
	maxSettings = 1024
	maxValues   = 1
	maxString   = 4096
)

type baseInStructure struct {
	sType int32
	pNext unsafe.Pointer
}

type layerSettingsCreateInfo struct {
	sType        int32
	pNext        unsafe.Pointer
	settingCount uint32
	pSettings    unsafe.Pointer
}

type layerSetting struct {
	pLayerName   unsafe.Pointer
	pSettingName unsafe.Pointer
	typ          int32
	valueCount   uint32
	pValues      unsafe.Pointer
}

// FromInstanceCreateInfo is FromChain of a VkInstanceCreateInfo's pNext
// (info nil: none).
func FromInstanceCreateInfo(info unsafe.Pointer) []APISetting {
	if info == nil {
		return nil
	}
	return FromChain((*baseInStructure)(info).pNext)
}

// FromChain copies every VkLayerSettingEXT of the VkLayerSettingsCreateInfoEXT
// structures in a pNext chain (VkInstanceCreateInfo.pNext), in chain order.
// Entries with a NULL name or values are skipped; values are copied, so
// the result outlives the application's structures.
func FromChain(pNext unsafe.Pointer) []APISetting {
	var out []APISetting
	for i := 0; pNext != nil && i < maxChain; i++ {
		base := (*baseInStructure)(pNext)
		if base.sType == structureTypeLayerSettingsCreateInfo {
			ci := (*layerSettingsCreateInfo)(pNext)
			n := min(int(ci.settingCount), maxSettings)
			for j := 0; j < n && ci.pSettings != nil; j++ {
				s := (*layerSetting)(unsafe.Add(ci.pSettings, j*int(unsafe.Sizeof(layerSetting{}))))
				if a, ok := copySetting(s); ok {
					out = append(out, a)
				}
			}
		}
		pNext = base.pNext
	}
	return out
}

// copySetting copies an entry: its type is checked before its count, and
// values are read only of a known type and only as many as a setting takes.
func copySetting(s *layerSetting) (APISetting, bool) {
	if s.pLayerName == nil || s.pSettingName == nil || (s.valueCount > 0 && s.pValues == nil) {
		return APISetting{}, false
	}
	a := APISetting{Layer: cString(s.pLayerName), Key: cString(s.pSettingName), Type: s.typ, Count: s.valueCount}
	if s.typ < apiBool32 || s.typ > apiString {
		return a, true // an unknown type: reported by the caller, by number
	}
	for i := range min(int(s.valueCount), maxValues) {
		switch s.typ {
		case apiBool32:
			a.Values = append(a.Values, *(*uint32)(unsafe.Add(s.pValues, 4*i)) != 0)
		case apiInt32:
			a.Values = append(a.Values, int64(*(*int32)(unsafe.Add(s.pValues, 4*i))))
		case apiUint32:
			a.Values = append(a.Values, int64(*(*uint32)(unsafe.Add(s.pValues, 4*i))))
		case apiInt64:
			a.Values = append(a.Values, *(*int64)(unsafe.Add(s.pValues, 8*i)))
		case apiUint64:
			a.Values = append(a.Values, *(*uint64)(unsafe.Add(s.pValues, 8*i)))
		case apiFloat32:
			a.Values = append(a.Values, float64(*(*float32)(unsafe.Add(s.pValues, 4*i))))
		case apiFloat64:
			a.Values = append(a.Values, *(*float64)(unsafe.Add(s.pValues, 8*i)))
		case apiString:
			p := *(*unsafe.Pointer)(unsafe.Add(s.pValues, int(unsafe.Sizeof(uintptr(0)))*i))
			if p == nil {
				return APISetting{}, false
			}
			a.Values = append(a.Values, cString(p))
		}
	}
	return a, true
}

// cString copies a NUL-terminated string of at most maxString bytes.
func cString(p unsafe.Pointer) string {
	var b []byte
	for i := 0; i < maxString; i++ {
		c := *(*byte)(unsafe.Add(p, i))
		if c == 0 {
			break
		}
		b = append(b, c)
	}
	return string(b)
}
