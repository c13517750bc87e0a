package memreport

import (
	"path"
	"strings"
	"sync"
	"unsafe"

	"github.com/vkgen/vkgen/internal/elfsym"
	"github.com/vkgen/vkgen/internal/hashmap"
	"github.com/vkgen/vkgen/layer"
	"github.com/vkgen/vkgen/layer/tracing"
	"github.com/vkgen/vkgen/perfetto"
)

// Where each memory object was made: the records of vkAllocateMemory,
// vkCreateBuffer, vkCreateImage and vkCreateVideoSessionKHR carry the
// application's call stack (the spec declares call_stacks; the framework
// captures it on the application's thread, up to call_stack_depth frames).
// Here, on the drain, a stack becomes a Perfetto callstack (modules as
// mappings with their build ids, function names from the modules' symbol
// tables), which the engine keeps in the object's record
// (accounting.AllocationEvent.Site): its VulkanMemoryAllocation and
// VulkanMemoryLeak events and its lifetime slices carry it. The trace
// summary names the call site from it (tracesummary/symbolize.go).

// Bounds: distinct stacks cached by their addresses, and modules whose
// symbol tables are open.
const (
	maxCachedStacks = 1 << 16
	maxOpenModules  = 64
)

// moduleKey is a loaded module (a later one may load where an unloaded one
// was).
type moduleKey struct {
	start uint64
	path  string
}

type callSites struct {
	mu      sync.Mutex
	byStack map[string]perfetto.Callstack // by the raw return addresses
	// recent holds stacks found last, by their innermost and outermost
	// addresses: a program creates most objects from a few places, found
	// here without hashing the whole stack.
	recent   [8]recentStack
	mappings map[moduleKey]perfetto.Mapping
	files    map[string]*elfsym.File // by path; nil: unreadable, or another build
	frames   []perfetto.Frame        // scratch
	warmOnce sync.Once
}

type recentStack struct {
	raw string
	cs  perfetto.Callstack
}

var sites = &callSites{byStack: map[string]perfetto.Callstack{},
	mappings: map[moduleKey]perfetto.Mapping{}, files: map[string]*elfsym.File{}}

// configureCallStacks applies call_stack_depth (0: no capture) and, the
// first time it is on, reads the modules and the symbols of those most
// stacks pass through in the background: the first stack would otherwise
// hold the drain for a millisecond or so, and what it runs (budget samples)
// would lag the calls.
func configureCallStacks() {
	v, _ := tracing.Setting("call_stack_depth").V.(int64)
	layer.SetCallStackDepth(int(v))
	if v > 0 {
		sites.warmOnce.Do(func() { layer.Go(layerName, "call-stack symbols", sites.warm) })
	}
}

// warm opens the program's, libc's and the loader's symbols.
func (c *callSites) warm() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, m := range layer.Modules() {
		if base := path.Base(m.Path); i == 0 || strings.HasPrefix(base, "libc.so") || strings.HasPrefix(base, "libvulkan.so") {
			c.mappingLocked(m)
			c.fileLocked(m)
		}
	}
}

// current is the running hook's call stack (0: none), as the engine keeps
// it (accounting.AllocationEvent.Site).
func (c *callSites) current() uint32 {
	pcs := layer.CallStack()
	if len(pcs) == 0 {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return uint32(c.stackLocked(pcs))
}

// stackLocked registers the stack of return addresses pcs (innermost
// first), once per distinct stack.
func (c *callSites) stackLocked(pcs []uint64) perfetto.Callstack {
	raw := unsafe.String((*byte)(unsafe.Pointer(&pcs[0])), 8*len(pcs))
	r := &c.recent[hashmap.Mix(pcs[0]^pcs[len(pcs)-1]<<1)%uint64(len(c.recent))]
	if r.raw == raw {
		return r.cs
	}
	cs, ok := c.byStack[raw]
	if !ok {
		cs = c.newStackLocked(pcs, raw)
	}
	*r = recentStack{strings.Clone(raw), cs}
	return cs
}

// newStackLocked registers a stack not seen before.
func (c *callSites) newStackLocked(pcs []uint64, raw string) perfetto.Callstack {
	c.frames = c.frames[:0]
	for i := len(pcs) - 1; i >= 0; i-- { // Perfetto lists the outermost frame first
		c.frames = append(c.frames, c.frameLocked(pcs[i]))
	}
	cs := perfetto.NewCallstack(c.frames)
	if len(c.byStack) < maxCachedStacks {
		c.byStack[string([]byte(raw))] = cs
	}
	return cs
}

// frameLocked maps a return address to its module's mapping, the offset in
// it and the name of the function holding the call (pc-1).
func (c *callSites) frameLocked(pc uint64) perfetto.Frame {
	m, ok := layer.ModuleOf(pc)
	if !ok {
		return perfetto.Frame{Mapping: c.mappingLocked(layer.Module{Path: "[unknown]", End: ^uint64(0)}), RelPC: pc}
	}
	f := perfetto.Frame{Mapping: c.mappingLocked(m), RelPC: pc - m.Start}
	if file := c.fileLocked(m); file != nil {
		f.Function, _ = file.Func(pc - 1 - m.Bias)
	}
	return f
}

// mappingLocked registers a module: rel_pc is relative to its start, and
// its load bias is the ELF address there (rel_pc + load_bias is the
// address in the file's symbols and DWARF).
func (c *callSites) mappingLocked(m layer.Module) perfetto.Mapping {
	k := moduleKey{m.Start, m.Path}
	if id, ok := c.mappings[k]; ok {
		return id
	}
	id := perfetto.NewMapping(perfetto.MappingInfo{BuildID: m.BuildID, Path: m.Path, Start: m.Start, End: m.End,
		LoadBias: m.Start - m.Bias})
	c.mappings[k] = id
	return id
}

// fileLocked opens a module's file for its function names, once.
func (c *callSites) fileLocked(m layer.Module) *elfsym.File {
	if f, ok := c.files[m.Path]; ok || len(c.files) >= maxOpenModules {
		return f
	}
	f, err := elfsym.Open(m.Path, m.BuildID)
	if err != nil {
		f = nil
	}
	c.files[m.Path] = f
	return f
}
