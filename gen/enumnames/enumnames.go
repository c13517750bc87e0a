// Package enumnames renders the short names of the Vulkan enumerants the
// DeviceMemoryReport layer writes into its object descriptors (formats,
// image types and tilings, buffer, image and memory property flag bits) as
// sorted Go tables, with dave/jennifer, from the registry model. It produces
// bytes only; it must not read XML.
package enumnames

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/vkgen/vkgen/gen/genfile"
	"github.com/vkgen/vkgen/registry"
)

// File is the name of the rendered file, relative to its package directory.
const File = "names.go"

// table is one rendered table: the enum, its prefix cut from every
// enumerant, and whether names are lowercased (flag bits read as
// "sampled|transfer_dst", formats stay "R8G8B8A8_UNORM").
type table struct {
	enum, prefix, goName, doc string
	lower                     bool
}

var tables = []table{
	{"VkFormat", "VK_FORMAT_", "formats", "VkFormat values, e.g. R8G8B8A8_UNORM", false},
	{"VkImageType", "VK_IMAGE_TYPE_", "imageTypes", "VkImageType values, e.g. 2D", false},
	{"VkImageTiling", "VK_IMAGE_TILING_", "tilings", "VkImageTiling values, e.g. optimal", true},
	{"VkBufferUsageFlagBits", "VK_BUFFER_USAGE_", "bufferUsage", "VkBufferUsageFlagBits, e.g. vertex (_BUFFER cut too)", true},
	{"VkImageUsageFlagBits", "VK_IMAGE_USAGE_", "imageUsage", "VkImageUsageFlagBits, e.g. color_attachment", true},
	{"VkImageCreateFlagBits", "VK_IMAGE_CREATE_", "imageCreate", "VkImageCreateFlagBits, e.g. cube_compatible", true},
	{"VkMemoryPropertyFlagBits", "VK_MEMORY_PROPERTY_", "memoryProperty", "VkMemoryPropertyFlagBits, e.g. device_local", true},
}

// Generate renders the tables of r as package pkg.
func Generate(r *registry.Registry, pkg string) (genfile.File, error) {
	f := jen.NewFile(pkg)
	f.HeaderComment(genfile.Header)
	f.HeaderComment("Source: " + genfile.Source(r) + ".")
	for _, t := range tables {
		e := r.Enum(t.enum)
		if e == nil {
			return genfile.File{}, fmt.Errorf("enumnames: the registry has no %s", t.enum)
		}
		vals := entries(e, t)
		f.Commentf("%s holds the %s, by value.", t.goName, t.doc)
		f.Var().Id(t.goName).Op("=").Index().Id("name").ValuesFunc(func(g *jen.Group) {
			for _, v := range vals {
				g.Line().Values(jen.Op(strconv.FormatInt(v.value, 10)), jen.Lit(v.name))
			}
			g.Line()
		})
	}
	var buf bytes.Buffer
	if err := f.Render(&buf); err != nil {
		return genfile.File{}, fmt.Errorf("enumnames: %w", err)
	}
	return genfile.File{Name: File, Data: buf.Bytes()}, nil
}

type entry struct {
	value int64
	name  string
}

// entries are e's values, each once (an alias never replaces its target's
// name), sorted by value.
func entries(e *registry.Enum, t table) []entry {
	var out []entry
	seen := map[int64]bool{}
	for _, v := range e.Values {
		if v.Alias != "" || seen[v.Value] || !strings.HasPrefix(v.Name, t.prefix) {
			continue
		}
		seen[v.Value] = true
		out = append(out, entry{v.Value, short(v.Name, t)})
	}
	slices.SortFunc(out, func(a, b entry) int { return int(min(max(a.value-b.value, -1), 1)) })
	return out
}

// short cuts the prefix, the _BIT of a flag bit (a vendor suffix stays) and
// a buffer usage's _BUFFER ("VERTEX_BUFFER" is a vertex buffer's usage).
func short(name string, t table) string {
	s := strings.TrimPrefix(name, t.prefix)
	if i := strings.LastIndex(s, "_BIT"); i >= 0 && (i+4 == len(s) || s[i+4] == '_') {
		s = s[:i] + s[i+4:]
	}
	if t.enum == "VkBufferUsageFlagBits" {
		s = strings.Replace(s, "_BUFFER", "", 1)
	}
	if t.lower {
		s = strings.ToLower(s)
	}
	return s
}
