// Package cabi computes the C memory layout of the registry's structs and
// unions on LP64 Linux (x86-64 and aarch64, System V ABI): size, alignment
// and member offsets, bitfields packed as GCC packs them. Generators of
// code that shares memory with C (layer/vk) take their layouts from here.
package cabi

import (
	"fmt"

	"github.com/vkgen/vkgen/registry"
)

// Layout is the layout of one struct or union.
type Layout struct {
	Name        string
	Size, Align int
	Members     []Member
}

// Member is where one member lives.
type Member struct {
	Name string
	// Offset is the byte offset of the member; for a bitfield, the offset
	// of the storage unit (its declared type) holding it.
	Offset      int
	Size, Align int // of the member's type (the storage unit for a bitfield)
	// Bit and BitWidth place a bitfield inside its storage unit (least
	// significant bit first); BitWidth is 0 for other members.
	Bit, BitWidth int
}

// scalars are the vk_platform.h types on LP64.
var scalars = map[string]int{
	"char": 1, "int8_t": 1, "uint8_t": 1, "int16_t": 2, "uint16_t": 2,
	"int32_t": 4, "uint32_t": 4, "int": 4, "float": 4,
	"int64_t": 8, "uint64_t": 8, "size_t": 8, "double": 8,
}

// externals are the platform and video types the registry uses by value,
// as their own headers define them on LP64 Linux: X11 XIDs are unsigned
// long, xcb ids, Fuchsia handles and GGP tokens uint32_t, NvSci objects
// pointers, the Vulkan Video profile and level types C enums.
var externals = map[string]int{
	"Window": 8, "VisualID": 8, "RROutput": 8,
	"xcb_window_t": 4, "xcb_visualid_t": 4, "zx_handle_t": 4,
	"GgpStreamDescriptor": 4, "GgpFrameToken": 4,
	"NvSciBufAttrList": 8, "NvSciBufObj": 8, "NvSciSyncAttrList": 8, "NvSciSyncObj": 8,
	"StdVideoH264ProfileIdc": 4, "StdVideoH264LevelIdc": 4, "StdVideoH265ProfileIdc": 4, "StdVideoH265LevelIdc": 4,
	"StdVideoVP9Profile": 4, "StdVideoVP9Level": 4, "StdVideoAV1Profile": 4, "StdVideoAV1Level": 4,
}

// ABI computes layouts from one registry, each once.
type ABI struct {
	r      *registry.Registry
	done   map[string]*Layout
	failed map[string]error
	busy   map[string]bool
}

// New returns the LP64 ABI of r's types.
func New(r *registry.Registry) *ABI {
	return &ABI{r: r, done: map[string]*Layout{}, failed: map[string]error{}, busy: map[string]bool{}}
}

// Struct returns the layout of the struct or union called name (or one of
// its aliases). It fails for types whose layout the registry does not give:
// a member of an opaque or unknown external type, or a struct containing
// itself.
func (a *ABI) Struct(name string) (*Layout, error) {
	s := a.r.Struct(name)
	if s == nil {
		return nil, fmt.Errorf("cabi: %s is not a struct or union", name)
	}
	if l := a.done[s.Name]; l != nil {
		return l, nil
	}
	if err := a.failed[s.Name]; err != nil {
		return nil, err
	}
	if a.busy[s.Name] {
		return nil, fmt.Errorf("cabi: %s contains itself", s.Name)
	}
	a.busy[s.Name] = true
	l, err := a.layout(s)
	delete(a.busy, s.Name)
	if err != nil {
		a.failed[s.Name] = err
		return nil, err
	}
	a.done[s.Name] = l
	return l, nil
}

func (a *ABI) layout(s *registry.Struct) (*Layout, error) {
	l := &Layout{Name: s.Name, Align: 1}
	bits := 0 // next free bit from the start of the struct
	for _, d := range s.Members {
		size, align, err := a.Decl(d)
		if err != nil {
			return nil, fmt.Errorf("cabi: %s.%s: %w", s.Name, d.Name, err)
		}
		m := Member{Name: d.Name, Size: size, Align: align, BitWidth: d.BitWidth}
		l.Align = max(l.Align, align)
		switch {
		case s.Union:
			l.Size = max(l.Size, size)
		case d.BitWidth > 0:
			unit := size * 8
			if d.BitWidth > unit {
				return nil, fmt.Errorf("cabi: %s.%s: %d bits do not fit in %d", s.Name, d.Name, d.BitWidth, unit)
			}
			// A bitfield never straddles a boundary of its declared type.
			if bits/unit != (bits+d.BitWidth-1)/unit {
				bits = roundUp(bits, unit)
			}
			m.Offset = bits / unit * size
			m.Bit = bits - m.Offset*8
			bits += d.BitWidth
		default:
			m.Offset = roundUp(roundUp(bits, 8)/8, align)
			bits = (m.Offset + size) * 8
		}
		l.Members = append(l.Members, m)
	}
	if !s.Union {
		l.Size = roundUp(bits, 8) / 8
	}
	l.Size = roundUp(l.Size, l.Align)
	return l, nil
}

// Decl returns the size and alignment of a member or parameter declaration.
func (a *ABI) Decl(d registry.Decl) (size, align int, err error) {
	if d.Pointers > 0 {
		size, align = 8, 8
	} else if size, align, err = a.Type(d.Type); err != nil {
		return 0, 0, err
	}
	for _, dim := range d.Array {
		if dim.Size <= 0 {
			return 0, 0, fmt.Errorf("array dimension %s has no size", dim.Const)
		}
		size *= dim.Size
	}
	return size, align, nil
}

// Type returns the size and alignment of a type name.
func (a *ABI) Type(name string) (size, align int, err error) {
	t := a.r.Type(name)
	if t == nil {
		return 0, 0, fmt.Errorf("unknown type %s", name)
	}
	switch t.Kind {
	case registry.KindScalar:
		if n, ok := scalars[t.Name]; ok {
			return n, n, nil
		}
	case registry.KindHandle, registry.KindFuncPointer:
		// Dispatchable handles are pointers; non-dispatchable ones are
		// pointers or uint64_t on 64-bit platforms: 8 bytes either way.
		return 8, 8, nil
	case registry.KindEnum:
		if e := a.r.Enum(t.Name); e != nil && e.BitWidth == 64 {
			return 8, 8, nil
		}
		return 4, 4, nil
	case registry.KindBitmask, registry.KindBaseType:
		if t.Underlying != nil {
			return a.Decl(*t.Underlying)
		}
	case registry.KindStruct, registry.KindUnion:
		l, err := a.Struct(t.Name)
		if err != nil {
			return 0, 0, err
		}
		return l.Size, l.Align, nil
	case registry.KindExternal:
		if n, ok := externals[t.Name]; ok {
			return n, n, nil
		}
	}
	return 0, 0, fmt.Errorf("%s %s has no known layout", t.Kind, t.Name)
}

func roundUp(n, to int) int { return (n + to - 1) / to * to }
