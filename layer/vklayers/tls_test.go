package main

import (
	"debug/elf"
	"encoding/binary"
	"path/filepath"
	"testing"

	"github.com/vkgen/vkgen/internal/vktest"
)

// Every thread-local variable of the library is read in the initial-exec
// model (VKGEN_TLS_IE): one the general-dynamic model reaches through
// __tls_get_addr cost about 50 ns per iteration of a naming loop on the
// application's thread, where the trampolines run. Its relocations say
// which: a module id (DTPMOD) or a TLS descriptor is dynamic access.
func TestLibraryTLSIsInitialExec(t *testing.T) {
	lib := filepath.Join(vktest.Layers(t), "libVkLayer_vkgen.so")
	f, err := elf.Open(lib)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dynamic := map[elf.Machine]map[uint32]string{
		elf.EM_X86_64:  {uint32(elf.R_X86_64_DTPMOD64): "R_X86_64_DTPMOD64", uint32(elf.R_X86_64_TLSDESC): "R_X86_64_TLSDESC"},
		elf.EM_AARCH64: {uint32(elf.R_AARCH64_TLS_DTPMOD64): "R_AARCH64_TLS_DTPMOD64", uint32(elf.R_AARCH64_TLSDESC): "R_AARCH64_TLSDESC"},
	}[f.Machine]
	if dynamic == nil {
		t.Skipf("%s: machine %v", lib, f.Machine)
	}
	for _, name := range []string{".rela.dyn", ".rela.plt"} {
		s := f.Section(name)
		if s == nil {
			continue
		}
		data, err := s.Data()
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i+24 <= len(data); i += 24 { // Elf64_Rela: offset, info, addend
			info := binary.LittleEndian.Uint64(data[i+8:])
			if what, ok := dynamic[uint32(info)]; ok {
				t.Errorf("%s: %s relocation %s at %#x: a thread-local variable without VKGEN_TLS_IE",
					lib, name, what, binary.LittleEndian.Uint64(data[i:]))
			}
		}
	}
}
