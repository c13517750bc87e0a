// Package elfsym names code addresses of an ELF file: the function from its
// symbol table and, on request, the source file and line from its DWARF
// line tables (debug/elf, debug/dwarf). It reads only what a lookup needs
// and keeps memory bounded: function symbols as 16-byte entries (names are
// read from the string table when asked for), DWARF only under MaxDWARF
// bytes. It is shared by the memory report layer (function names of its
// call stacks, at run time) and the trace summary (function, file and line).
package elfsym

import (
	"bytes"
	"debug/dwarf"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ianlancetaylor/demangle"
)

// Bounds on what a File keeps.
const (
	MaxSymbols = 4 << 20   // function symbols kept (64 MiB); the rest are not named
	MaxDWARF   = 512 << 20 // debug sections read for lines; a bigger file gives functions only
	maxName    = 4096
)

// ErrBuildID is returned by Open when the file's build id is not the one
// asked for (a rebuilt or different file at the path).
var ErrBuildID = errors.New("build id differs")

// File is an opened ELF file. Not safe for concurrent use.
type File struct {
	path    string
	os      *os.File
	elf     *elf.File
	syms    []sym
	strtab  io.ReaderAt
	BuildID []byte

	dwarfDone bool
	dwarf     *dwarf.Data
	dwarfErr  error
}

type sym struct {
	value uint64
	size  uint32
	name  uint32 // offset in the string table
}

// Open opens path; with a non-empty buildID, a file whose GNU build id
// differs is refused (ErrBuildID).
func Open(path string, buildID []byte) (*File, error) {
	of, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	ef, err := elf.NewFile(of)
	if err != nil {
		of.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	f := &File{path: path, os: of, elf: ef, BuildID: readBuildID(ef)}
	if len(buildID) > 0 && len(f.BuildID) > 0 && !bytes.Equal(buildID, f.BuildID) {
		f.Close()
		return nil, fmt.Errorf("%s: %w (%x, want %x)", path, ErrBuildID, f.BuildID, buildID)
	}
	if err := f.readSymbols(); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// DebugRoot is where distributions install separate debug files, by build
// id (Debian's -dbgsym packages: .build-id/ab/cdef....debug).
const DebugRoot = "/usr/lib/debug"

// OpenDebug opens the separate debug file of buildID under root when there
// is one (a stripped program or library then still has its symbols and
// lines), else path as Open does.
func OpenDebug(path string, buildID []byte, root string) (*File, error) {
	if len(buildID) >= 2 && root != "" {
		h := fmt.Sprintf("%x", buildID)
		if f, err := Open(filepath.Join(root, ".build-id", h[:2], h[2:]+".debug"), buildID); err == nil {
			return f, nil
		}
	}
	return Open(path, buildID)
}

// Close releases the file.
func (f *File) Close() error { return f.os.Close() }

// readBuildID finds the NT_GNU_BUILD_ID note (nil when there is none).
func readBuildID(ef *elf.File) []byte {
	for _, s := range ef.Sections {
		if s.Type != elf.SHT_NOTE || s.Size > 1<<16 {
			continue
		}
		data, err := s.Data()
		if err != nil {
			continue
		}
		for len(data) >= 12 {
			nameSz, descSz, typ := ef.ByteOrder.Uint32(data), ef.ByteOrder.Uint32(data[4:]), ef.ByteOrder.Uint32(data[8:])
			nameEnd := 12 + (uint64(nameSz)+3)&^3
			descEnd := nameEnd + (uint64(descSz)+3)&^3
			if descEnd > uint64(len(data)) {
				break
			}
			if typ == 3 && nameSz == 4 && string(data[12:15]) == "GNU" {
				return append([]byte(nil), data[nameEnd:nameEnd+uint64(descSz)]...)
			}
			data = data[descEnd:]
		}
	}
	return nil
}

// readSymbols keeps the function symbols of .symtab, else .dynsym, sorted
// by address, streaming the table.
func (f *File) readSymbols() error {
	tab := f.elf.Section(".symtab")
	if tab == nil || tab.Type == elf.SHT_NOBITS {
		tab = f.elf.Section(".dynsym")
	}
	if tab == nil || tab.Link >= uint32(len(f.elf.Sections)) {
		return nil // nothing to name functions with: lookups fail
	}
	f.strtab = f.elf.Sections[tab.Link]
	entSize := 24
	if f.elf.Class == elf.ELFCLASS32 {
		entSize = 16
	}
	r := tab.Open()
	buf := make([]byte, entSize*1024)
	bo := f.elf.ByteOrder
	for {
		n, err := io.ReadFull(r, buf)
		for off := 0; off+entSize <= n; off += entSize {
			e := buf[off : off+entSize]
			var s sym
			var info byte
			if entSize == 24 {
				s = sym{value: bo.Uint64(e[8:]), size: uint32(min(bo.Uint64(e[16:]), 1<<32-1)), name: bo.Uint32(e)}
				info = e[4]
			} else {
				s = sym{value: uint64(bo.Uint32(e[4:])), size: bo.Uint32(e[8:]), name: bo.Uint32(e)}
				info = e[12]
			}
			t := elf.SymType(info & 0xf)
			if (t == elf.STT_FUNC || t == elf.STT_GNU_IFUNC) && s.value != 0 && s.size != 0 && len(f.syms) < MaxSymbols {
				f.syms = append(f.syms, s)
			}
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return err
		}
	}
	sort.Slice(f.syms, func(i, j int) bool { return f.syms[i].value < f.syms[j].value })
	return nil
}

// Func names the function holding vaddr (an ELF virtual address), C++
// and Rust names demangled without their parameters
// ("TextureLoader::load").
func (f *File) Func(vaddr uint64) (string, bool) {
	i := sort.Search(len(f.syms), func(i int) bool { return f.syms[i].value > vaddr }) - 1
	// Symbols may nest (aliases, a function's parts): the nearest of the
	// few below that covers vaddr.
	for n := 0; i >= 0 && n < 16; i, n = i-1, n+1 {
		if s := f.syms[i]; vaddr < s.value+uint64(s.size) {
			name, ok := f.name(s.name)
			return demangle.Filter(name, demangle.NoParams, demangle.NoClones), ok
		}
	}
	return "", false
}

// name reads a NUL-terminated string of the string table.
func (f *File) name(off uint32) (string, bool) {
	var b strings.Builder
	var chunk [128]byte
	for at := int64(off); b.Len() < maxName; at += int64(len(chunk)) {
		n, err := f.strtab.ReadAt(chunk[:], at)
		if i := bytes.IndexByte(chunk[:n], 0); i >= 0 {
			b.Write(chunk[:i])
			return b.String(), b.Len() > 0
		}
		b.Write(chunk[:n])
		if err != nil {
			break
		}
	}
	return b.String(), b.Len() > 0
}

// Line gives the source file and line of vaddr from the DWARF line tables
// (false when the file has none, or too much of them).
func (f *File) Line(vaddr uint64) (file string, line int, ok bool) {
	d := f.debug()
	if d == nil {
		return "", 0, false
	}
	r := d.Reader()
	cu, err := r.SeekPC(vaddr)
	if err != nil || cu == nil {
		return "", 0, false
	}
	lr, err := d.LineReader(cu)
	if err != nil || lr == nil {
		return "", 0, false
	}
	var e dwarf.LineEntry
	if err := lr.SeekPC(vaddr, &e); err != nil || e.File == nil {
		return "", 0, false
	}
	return e.File.Name, e.Line, true
}

// debug loads the DWARF data once, when its sections are under MaxDWARF.
func (f *File) debug() *dwarf.Data {
	if f.dwarfDone {
		return f.dwarf
	}
	f.dwarfDone = true
	var total uint64
	for _, s := range f.elf.Sections {
		if strings.HasPrefix(s.Name, ".debug_") || strings.HasPrefix(s.Name, ".zdebug_") {
			total += s.Size
		}
	}
	if total == 0 {
		return nil
	}
	if total > MaxDWARF {
		f.dwarfErr = fmt.Errorf("%s: %d bytes of DWARF, over %d: functions only", f.path, total, MaxDWARF)
		return nil
	}
	f.dwarf, f.dwarfErr = f.elf.DWARF()
	return f.dwarf
}

// DWARFErr says why Line found nothing for a file with debug sections
// (nil when it had none or they were read).
func (f *File) DWARFErr() error { return f.dwarfErr }
