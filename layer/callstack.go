package layer

/*
#include "vkgen_callstack.h"
#include "vkgen_ring.h"
*/
import "C"

import (
	"os"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Call stacks: a deferred hook's record carries the application's return
// addresses when its command creates an object that holds memory and its
// layer declares call_stacks (vkgen_callstack.c captures them on the
// application's thread). Mapping them to modules happens here, in Go, when a
// hook asks.

// MaxCallStackDepth is the most frames a record carries.
const MaxCallStackDepth = C.VKGEN_STACK_MAX

// SetCallStackDepth sets how many frames records capture (0: none; clamped
// to MaxCallStackDepth). Library-wide: the layers declaring call_stacks
// share it.
func SetCallStackDepth(n int) {
	n = max(0, min(n, MaxCallStackDepth))
	atomic.StoreInt32((*int32)(unsafe.Pointer(&C.vkgen_stack_depth)), int32(n))
}

// CallStack is the running deferred hook's call stack: return addresses,
// innermost first, the framework's own frames left out; nil in other hooks
// and for records without one. Valid only while the hook runs.
func CallStack() []uint64 {
	r := current
	if r == nil || r.rec.nframes == 0 {
		return nil
	}
	n := int(r.rec.nframes)
	at := unsafe.Add(unsafe.Pointer(r.rec), uintptr(r.rec.size)-uintptr(8*n))
	return unsafe.Slice((*uint64)(at), n)
}

// Module is one loaded ELF module: its runtime range [Start, End), its load
// bias (runtime address = ELF virtual address + Bias), its GNU build id (nil
// when it has none) and its path (the program's own for the main program).
type Module struct {
	Start, End, Bias uint64
	BuildID          []byte
	Path             string
}

var modules struct {
	sync.Mutex
	gen    uint64
	list   []Module // sorted by Start
	byLoad []Module // as the dynamic linker lists them: the program first
}

// Modules lists the loaded modules, the program first.
func Modules() []Module {
	modules.Lock()
	defer modules.Unlock()
	if g := uint64(C.vkgen_modules_generation()); g != modules.gen || modules.list == nil {
		readModules(g)
	}
	return slices.Clone(modules.byLoad)
}

// ModuleOf finds the module holding pc. The list is read again (from the
// dynamic linker, dl_iterate_phdr) when a module was loaded or unloaded since
// it was last read, or when pc is in none of it.
func ModuleOf(pc uint64) (Module, bool) {
	modules.Lock()
	defer modules.Unlock()
	g := uint64(C.vkgen_modules_generation())
	if m, ok := findModule(pc); ok && g == modules.gen {
		return m, true
	}
	readModules(g)
	return findModule(pc)
}

func findModule(pc uint64) (Module, bool) {
	l := modules.list
	i := sort.Search(len(l), func(i int) bool { return l[i].End > pc })
	if i < len(l) && l[i].Start <= pc {
		return l[i], true
	}
	return Module{}, false
}

func readModules(g uint64) {
	buf := make([]C.struct_vkgen_module, 64)
	for {
		n := int(C.vkgen_modules(&buf[0], C.uint32_t(len(buf))))
		if n <= len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]C.struct_vkgen_module, n+16)
	}
	exe, _ := os.Executable()
	list := make([]Module, 0, len(buf))
	for i := range buf {
		c := &buf[i]
		m := Module{Start: uint64(c.start), End: uint64(c.end), Bias: uint64(c.bias), Path: C.GoString(&c.path[0])}
		if c.build_id_len > 0 {
			m.BuildID = C.GoBytes(unsafe.Pointer(&c.build_id[0]), C.int(c.build_id_len))
		}
		if i == 0 && m.Path == "" {
			m.Path = exe // the dynamic linker lists the program first, unnamed
		}
		if m.End > m.Start {
			list = append(list, m)
		}
	}
	modules.byLoad = slices.Clone(list)
	sort.Slice(list, func(i, j int) bool { return list[i].Start < list[j].Start })
	modules.list, modules.gen = list, g
}
