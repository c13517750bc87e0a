package settings

import (
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// guarded returns n bytes that end where an unreadable page begins: a read
// past them faults.
func guarded(t *testing.T, n int) unsafe.Pointer {
	t.Helper()
	page := syscall.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, 2*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Munmap(mem) })
	if err := syscall.Mprotect(mem[page:], syscall.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	return unsafe.Pointer(&mem[page-n])
}

// Issue 28: trace_buffer_kb as INT32 with valueCount 0x7fffffff and one
// value crashed the layer (SIGSEGV in copySetting: it read up to 1024
// values). Only the value a setting takes is read; the count is reported.
func TestHugeValueCountReadsOneValue(t *testing.T) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("FromChain read past the value: %v", r)
		}
	}()
	value := guarded(t, 4)
	*(*int32)(value) = 64
	s := layerSetting{pLayerName: cstr(layer), pSettingName: cstr("buffer_kb"), typ: apiInt32, valueCount: 0x7fffffff, pValues: value}
	ci := layerSettingsCreateInfo{sType: structureTypeLayerSettingsCreateInfo, settingCount: 1, pSettings: unsafe.Pointer(&s)}
	got := FromChain(unsafe.Pointer(&ci))
	if len(got) != 1 || got[0].Count != 0x7fffffff || len(got[0].Values) != 1 || got[0].Values[0] != int64(64) {
		t.Fatalf("FromChain = %+v", got)
	}
	v, log := resolve(t, env{}, "", got...)
	if v["buffer_kb"].V != int64(1024) || !strings.Contains(log, "buffer_kb from VkLayerSettingsCreateInfoEXT: 2147483647 values, want 1") {
		t.Errorf("buffer_kb = %v, reported %q", v["buffer_kb"], log)
	}
}

// Issue 28: a setting of type 999 was reported as "0 values, want 1"; the
// type is checked first and an unknown one named by its number, and none
// of its values is read.
func TestUnknownTypeIsReportedByNumber(t *testing.T) {
	s := layerSetting{pLayerName: cstr(layer), pSettingName: cstr("buffer_kb"), typ: 999, valueCount: 1, pValues: guarded(t, 0)}
	ci := layerSettingsCreateInfo{sType: structureTypeLayerSettingsCreateInfo, settingCount: 1, pSettings: unsafe.Pointer(&s)}
	got := FromChain(unsafe.Pointer(&ci))
	v, log := resolve(t, env{}, "", got...)
	if v["buffer_kb"].V != int64(1024) || !strings.Contains(log, "buffer_kb from VkLayerSettingsCreateInfoEXT: unknown type VkLayerSettingTypeEXT(999)") {
		t.Errorf("buffer_kb = %v, reported %q", v["buffer_kb"], log)
	}
	a := APISetting{Layer: layer, Key: "trace_file", Type: apiString, Count: 3, Values: []any{"/x"}}
	if _, log := resolve(t, env{}, "", a); !strings.Contains(log, "3 values, want 1") {
		t.Errorf("count after the type: reported %q", log)
	}
}
