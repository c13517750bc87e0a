// Package describe writes the descriptor of an object that holds memory:
// one line saying what it is, built from its create info, e.g.
// "image 2D 400x300 R8G8B8A8_UNORM sampled|transfer_dst". The
// DeviceMemoryReport layer puts it in its trace (annotation "descriptor"),
// where `vkgen trace summary`, the SQL module and the HTML report show it
// for objects the application never named. Enumerant names are the
// registry's, from layer/vk's generated String methods, shortened (the
// type's prefix and _BIT cut, flag bits lowercased); values the registry
// does not know are written as numbers. It owns only this text: it must
// not import cgo or tracing, and takes plain values.
package describe

import (
	"strconv"
	"strings"

	"github.com/vkgen/vkgen/layer/vk"
)

// Image is what vkCreateImage's create info says about an image.
type Image struct {
	Type, Format, Tiling   int32
	Width, Height, Depth   uint32
	MipLevels, ArrayLayers uint32
	Samples, Usage, Flags  uint32
}

// Buffer is what vkCreateBuffer's create info says about a buffer.
type Buffer struct {
	Size  uint64
	Usage uint64
}

// Memory is what vkAllocateMemory says about an allocation (its size is
// the events' own).
type Memory struct {
	TypeIndex uint32
	Heap      uint32
	Flags     uint32 // the memory type's VkMemoryPropertyFlags
	// Dedicated is "image" or "buffer" for a dedicated allocation.
	Dedicated string
	// Imported or exported memory: "imported", "exported" or "".
	External string
}

// String is the image's descriptor: "image" then its type, extent (depth
// and array layers when not 1, mip levels when not 1, samples when not 1),
// format, tiling when not optimal, usage bits and create flags, e.g.
// "image 2D 400x300 mips=9 R8G8B8A8_UNORM sampled|transfer_dst".
func (m Image) String() string {
	b := make([]byte, 0, 96)
	b = append(b, "image "...)
	b = appendEnum(b, vk.ImageType(m.Type).String(), "VK_IMAGE_TYPE_", false)
	b = append(b, ' ')
	b = strconv.AppendUint(b, uint64(m.Width), 10)
	b = append(b, 'x')
	b = strconv.AppendUint(b, uint64(m.Height), 10)
	if m.Depth > 1 {
		b = append(b, 'x')
		b = strconv.AppendUint(b, uint64(m.Depth), 10)
	}
	for _, f := range [...]struct {
		key string
		v   uint32
	}{{" layers=", m.ArrayLayers}, {" mips=", m.MipLevels}, {" samples=", m.Samples}} {
		if f.v > 1 {
			b = strconv.AppendUint(append(b, f.key...), uint64(f.v), 10)
		}
	}
	b = appendEnum(append(b, ' '), vk.Format(m.Format).String(), "VK_FORMAT_", false)
	if m.Tiling != 0 {
		b = appendEnum(append(b, ' '), vk.ImageTiling(m.Tiling).String(), "VK_IMAGE_TILING_", true)
	}
	b = appendFlags(append(b, ' '), vk.ImageUsageFlagBits(m.Usage).String(), "VK_IMAGE_USAGE_", "")
	if m.Flags != 0 {
		b = appendFlags(append(b, " create="...), vk.ImageCreateFlagBits(m.Flags).String(), "VK_IMAGE_CREATE_", "")
	}
	return string(b)
}

// String is the buffer's descriptor: "buffer", its size and usage bits,
// e.g. "buffer 65536 vertex|transfer_dst" (a usage's _BUFFER cut: a vertex
// buffer's is "vertex").
func (m Buffer) String() string {
	b := make([]byte, 0, 64)
	b = strconv.AppendUint(append(b, "buffer "...), m.Size, 10)
	return string(appendFlags(append(b, ' '), vk.BufferUsageFlagBits(uint32(m.Usage)).String(), "VK_BUFFER_USAGE_", "_BUFFER"))
}

// String is the allocation's descriptor: "memory", the memory type and
// heap, the type's property flags, then dedicated and external when so,
// e.g. "memory type 1 heap 0 device_local|host_visible dedicated image".
func (m Memory) String() string {
	b := make([]byte, 0, 80)
	b = strconv.AppendUint(append(b, "memory type "...), uint64(m.TypeIndex), 10)
	b = strconv.AppendUint(append(b, " heap "...), uint64(m.Heap), 10)
	b = appendFlags(append(b, ' '), vk.MemoryPropertyFlagBits(m.Flags).String(), "VK_MEMORY_PROPERTY_", "")
	if m.Dedicated != "" {
		b = append(append(b, " dedicated "...), m.Dedicated...)
	}
	if m.External != "" {
		b = append(append(b, ' '), m.External...)
	}
	return string(b)
}

// appendEnum appends an enum value's registry name less prefix (lowercased
// when lower), or its number for a value the registry lacks ("Vk...(N)").
func appendEnum(b []byte, name, prefix string, lower bool) []byte {
	if n, ok := strings.CutPrefix(name, prefix); ok {
		if lower {
			n = strings.ToLower(n)
		}
		return append(b, n...)
	}
	if i := strings.IndexByte(name, '('); i >= 0 && strings.HasSuffix(name, ")") {
		return append(b, name[i+1:len(name)-1]...)
	}
	return append(b, name...)
}

// appendFlags appends a flags value's names ("A|B|0x..", as String writes
// them) shortened: each less prefix, its _BIT (a vendor suffix stays) and
// cut, lowercased; bits without a name stay one hex number.
func appendFlags(b []byte, names, prefix, cut string) []byte {
	for i, n := range strings.Split(names, "|") {
		if i > 0 {
			b = append(b, '|')
		}
		s, ok := strings.CutPrefix(n, prefix)
		if !ok {
			b = append(b, n...)
			continue
		}
		if j := strings.LastIndex(s, "_BIT"); j >= 0 && (j+4 == len(s) || s[j+4] == '_') {
			s = s[:j] + s[j+4:]
		}
		if cut != "" {
			s = strings.Replace(s, cut, "", 1)
		}
		b = append(b, strings.ToLower(s)...)
	}
	return b
}
