package settings

import (
	"os"
	"path/filepath"
	"testing"
	"unsafe"
)

// FuzzSettings feeds arbitrary vk_layer_settings.txt text, an arbitrary
// environment value and an arbitrary VkLayerSettingEXT (type, count, value
// bytes) to the reader: it must never panic or fault, every value it
// returns must have its setting's type and range, and it reads no more of
// the entry's values than a setting takes.
func FuzzSettings(f *testing.F) {
	f.Add("vkgen.trace_file = /tmp/x\nvkgen_devicememoryreport.buffer_kb = 0x40\n", "12", int32(apiInt32), uint32(1), []byte{64, 0, 0, 0})
	f.Add("# c\nvkgen.perfetto_system maybe\n=\n\x00", " ", int32(999), uint32(0x7fffffff), []byte{1})
	f.Add("vkgen.buffer_kb = -9223372036854775808\n", "on", int32(apiUint64), uint32(1), []byte{255, 255, 255, 255, 255, 255, 255, 255})
	f.Fuzz(func(t *testing.T, file, value string, typ int32, count uint32, raw []byte) {
		cwd := t.TempDir()
		if err := os.WriteFile(filepath.Join(cwd, "vk_layer_settings.txt"), []byte(file), 0o600); err != nil {
			t.Fatal(err)
		}
		// The value: 8 bytes for numbers, a pointer to a C string for STRING.
		val := make([]byte, 8)
		copy(val, raw)
		str := append([]byte(value), 0)
		ptr := unsafe.Pointer(&val[0])
		if typ == apiString {
			ptr = unsafe.Pointer(&[]unsafe.Pointer{unsafe.Pointer(&str[0])}[0])
		}
		s := layerSetting{pLayerName: cstr(layer), pSettingName: cstr("buffer_kb"), typ: typ, valueCount: count, pValues: ptr}
		ci := layerSettingsCreateInfo{sType: structureTypeLayerSettingsCreateInfo, settingCount: 1, pSettings: unsafe.Pointer(&s)}
		api := FromChain(unsafe.Pointer(&ci))
		for _, a := range api {
			if len(a.Values) > maxValues {
				t.Fatalf("read %d values", len(a.Values))
			}
		}
		e := env{"VK_VKGEN_BUFFER_KB": value, "VK_VKGEN_PERFETTO_SYSTEM": value, "VK_VKGEN_TRACE_FILE": value}
		v, _ := resolve(t, e, cwd, api...)
		for _, d := range defs {
			got := v[d.Key]
			switch d.Type {
			case Bool:
				_, ok := got.V.(bool)
				if !ok {
					t.Fatalf("%s = %#v", d.Key, got)
				}
			case Int:
				n, ok := got.V.(int64)
				if !ok || n < d.Min || n > d.Max {
					t.Fatalf("%s = %#v, want an int64 in %d..%d", d.Key, got, d.Min, d.Max)
				}
			default:
				if _, ok := got.V.(string); !ok {
					t.Fatalf("%s = %#v", d.Key, got)
				}
			}
		}
	})
}

// FuzzDecode: a settings file of any text decodes to checked Defs or an
// error, never a panic.
func FuzzDecode(f *testing.F) {
	f.Add(`{"settings": [{"key": "a", "label": "A", "description": "d", "type": "INT", "default": 3, "min": 1, "max": 4}]}`)
	f.Add(`{"settings": [{"key": "b", "label": "B", "description": "d", "type": "BOOL", "default": 1}, 7, null]}`)
	f.Add(`{"settings": null}`)
	f.Fuzz(func(t *testing.T, text string) {
		defs, err := Decode([]byte(text))
		for _, d := range defs {
			if field, cerr := d.Check(); err == nil && cerr != nil {
				t.Fatalf("Decode returned %+v: %s: %v", d, field, cerr)
			}
		}
	})
}
