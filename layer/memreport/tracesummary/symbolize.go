package tracesummary

import (
	"fmt"
	"path"
	"strings"
	"sync"

	"github.com/vkgen/vkgen/internal/elfsym"
	"github.com/vkgen/vkgen/perfetto/decode"
)

// Call sites: where the application created an object, from the call stack
// its allocation events carry. The call site is the innermost frame outside
// the Vulkan loader and layers, named "function (file:line)" from the
// module's file, or its separate debug file (elfsym.DebugRoot), when present
// with the build id the trace recorded (its symbol table and DWARF lines,
// through internal/elfsym), else from the function name the trace carries,
// else as "module+0xoffset".

// Bounds of a Symbolizer: open files (each keeps its function symbols) and
// named addresses.
const (
	maxSymbolFiles = 64
	maxSites       = 1 << 16
)

// Symbolizer names call sites, caching files and addresses; safe for
// concurrent use by the decoding workers.
type Symbolizer struct {
	debugRoot string // separate debug files by build id (elfsym.DebugRoot)
	mu        sync.Mutex
	files     map[fileKey]*elfsym.File // nil: absent, unreadable or another build
	sites     map[siteKey]string
}

type fileKey struct{ path, buildID string }

type siteKey struct {
	fileKey
	relPC uint64
	fn    string
}

// NewSymbolizer returns an empty Symbolizer.
func NewSymbolizer() *Symbolizer {
	return &Symbolizer{debugRoot: elfsym.DebugRoot, files: map[fileKey]*elfsym.File{}, sites: map[siteKey]string{}}
}

// Close releases the files it opened.
func (s *Symbolizer) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, f := range s.files {
		if f != nil {
			f.Close()
		}
		delete(s.files, k)
	}
}

// CallSite names the call site of a stack (outermost frame first); "" when
// it has no frame outside the loader and layers.
func (s *Symbolizer) CallSite(frames []decode.Frame) string {
	for i := len(frames) - 1; i >= 0; i-- {
		if f := frames[i]; !vulkanModule(f.Mapping) {
			return s.name(f)
		}
	}
	return ""
}

// vulkanModule reports whether m is the Vulkan loader or a layer: frames
// there are the path of the call down, not the application's.
func vulkanModule(m *decode.Mapping) bool {
	if m == nil {
		return false
	}
	base := path.Base(m.Path)
	return strings.HasPrefix(base, "libvulkan.so") || strings.HasPrefix(base, "libVkLayer")
}

func (s *Symbolizer) name(f decode.Frame) string {
	if f.Mapping == nil {
		return f.Function
	}
	k := siteKey{fileKey{f.Mapping.Path, f.Mapping.BuildID}, f.RelPC, f.Function}
	s.mu.Lock()
	defer s.mu.Unlock()
	if n, ok := s.sites[k]; ok {
		return n
	}
	n := s.symbolize(f)
	if len(s.sites) < maxSites {
		s.sites[k] = n
	}
	return n
}

// symbolize names a frame: its address is a return address, so the call
// is the instruction before it.
func (s *Symbolizer) symbolize(f decode.Frame) string {
	m := f.Mapping
	fn, where := f.Function, ""
	if file := s.file(m); file != nil && f.RelPC > 0 {
		addr := f.RelPC - 1 + m.LoadBias
		if name, ok := file.Func(addr); ok && fn == "" {
			fn = name
		}
		if src, line, ok := file.Line(addr); ok {
			where = fmt.Sprintf("%s:%d", path.Base(src), line)
		}
	}
	if where == "" {
		where = fmt.Sprintf("%s+%#x", path.Base(m.Path), f.RelPC)
	}
	if fn == "" {
		return where
	}
	return fn + " (" + where + ")"
}

// file opens a mapping's file once (s.mu held).
func (s *Symbolizer) file(m *decode.Mapping) *elfsym.File {
	k := fileKey{m.Path, m.BuildID}
	if f, ok := s.files[k]; ok || len(s.files) >= maxSymbolFiles || !strings.HasPrefix(m.Path, "/") {
		return f
	}
	f, err := elfsym.OpenDebug(m.Path, []byte(m.BuildID), s.debugRoot)
	if err != nil {
		f = nil
	}
	s.files[k] = f
	return f
}
