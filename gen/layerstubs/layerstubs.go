// Package layerstubs generates the layer framework of one library and the
// table of each layer it hosts, from the layers' specs (vkgen-layer.json) and
// the registry model. The framework (vkgen_framework.gen.h,
// vkgen_trampolines.gen.h, vkgen_capture.gen.c) exists once and depends on
// no layer's hooks: the trampoline body, the trampolines and hook signatures
// of the commands it intercepts itself (the runtime's, the destroy
// trampolines that feed the name cache and forget hooks, the naming
// commands), and what a deferred record copies of every structure. A layer
// gets its hook table, the trampolines and signatures of its other
// commands, its deferred records (ids are given at load), its exported
// GetInstanceProcAddr / GetDeviceProcAddr / Negotiate entry points, the Go
// //export glue with panic recovery, and its loader manifest. The C runtime
// those files link against is package layer; the C text is in package
// templates. It must not read XML or import cgo packages.
package layerstubs

import (
	"encoding/json"
	"fmt"
	"go/format"
	"path"
	"strings"
	"text/template"

	"github.com/vkgen/vkgen/gen/genfile"
	"github.com/vkgen/vkgen/registry"
)

// Framework are the files written once per library into the framework's
// directory (package layer).
var Framework = []string{genfile.Name("vkgen_framework.h"), genfile.Name("vkgen_trampolines.h"), genfile.Name("vkgen_capture.c")}

// Files lists the names Generate writes into the directory of a layer with
// this symbol.
func Files(symbol string) []string {
	return []string{
		genfile.Name("vkgen_" + symbol + ".h"),
		genfile.Name("vkgen_" + symbol + ".c"),
		genfile.Name("vkgen_" + symbol + "_glue.go"),
		ManifestName(symbol),
	}
}

// ManifestName is the manifest file of a layer in its directory
// (scripts/build-layers.sh installs it without the generated-file infix).
func ManifestName(symbol string) string { return genfile.Name("VkLayer_vkgen_" + symbol + ".json") }

// Layer is one layer of the library: its spec and its package directory
// (slash-separated, relative to the output root; the last element names the
// Go package).
type Layer struct {
	Dir  string
	Spec *Spec
	Impl *Impl // what its Go package implements (Discover)
}

// Options tune how a generation treats the layers.
type Options struct {
	// Older: the registry is older than the tree's pinned one, so a hook
	// of a command, type or extension it lacks is left out with a warning
	// (else it is an error).
	Older bool
}

// Generate renders the framework into frameworkDir and every layer into its
// Dir; names are relative to the same root. The layers' mistakes are one
// Errors listing all of them; warnings name what was left out.
func Generate(r *registry.Registry, frameworkDir string, layers []Layer, opt Options) (files []genfile.File, warnings []string, err error) {
	if r == nil {
		return nil, nil, fmt.Errorf("layerstubs: nil registry")
	}
	b, err := newBuilder(r)
	if err != nil {
		return nil, nil, err
	}
	b.older = opt.Older
	files, err = b.generate(frameworkDir, layers)
	for _, w := range b.warns.sorted() {
		warnings = append(warnings, w.String())
	}
	return files, warnings, err
}

func (b *builder) generate(frameworkDir string, layers []Layer) ([]genfile.File, error) {
	src := genfile.Source(b.r)
	var files []genfile.File
	var built []*layerData // per layer, when none has a mistake
	seen := map[string]string{}
	for _, l := range layers {
		if l.Spec == nil {
			return nil, fmt.Errorf("layerstubs: %s: nil spec", l.Dir)
		}
		if other, dup := seen[l.Spec.Symbol]; dup {
			b.report(l.Spec.Pos("symbol"), fmt.Errorf("%s and %s both use symbol %q", other, l.Dir, l.Spec.Symbol))
			continue
		}
		seen[l.Spec.Symbol] = l.Dir
		d, err := b.layer(l.Spec, l.Impl, PackageName(l.Dir), src)
		if err != nil {
			b.report(l.Spec.Pos(""), err)
			continue
		}
		built = append(built, d)
	}
	if b.errs != nil {
		return nil, b.errs.sorted()
	}
	for i, d := range built {
		l := layers[i]
		fs, err := renderLayer(d)
		if err != nil {
			return nil, err
		}
		for _, f := range fs {
			files = append(files, genfile.File{Name: path.Join(l.Dir, f.Name), Data: f.Data})
		}
	}
	fw := b.framework(src)
	for i, tmpl := range []string{"framework.h.tmpl", "trampolines.h.tmpl", "capture.c.tmpl"} {
		data, err := genfile.Render(tmpl, fw, funcs)
		if err != nil {
			return nil, fmt.Errorf("layerstubs: %w", err)
		}
		files = append(files, genfile.File{Name: path.Join(frameworkDir, Framework[i]), Data: data})
	}
	return files, nil
}

func renderLayer(d *layerData) ([]genfile.File, error) {
	var files []genfile.File
	names := Files(d.Spec.Symbol)
	for i, tmpl := range []string{"layer.h.tmpl", "layer.c.tmpl", "glue.go.tmpl"} {
		b, err := genfile.Render(tmpl, d, funcs)
		if err != nil {
			return nil, fmt.Errorf("layerstubs: %w", err)
		}
		if strings.HasSuffix(names[i], ".go") {
			if b, err = format.Source(b); err != nil {
				return nil, fmt.Errorf("layerstubs: gofmt %s: %w", names[i], err)
			}
		}
		files = append(files, genfile.File{Name: names[i], Data: b})
	}
	m, err := manifest(d)
	if err != nil {
		return nil, err
	}
	return append(files, genfile.File{Name: names[3], Data: m}), nil
}

var funcs = template.FuncMap{
	"cstring": func(s string) (string, error) {
		b, err := json.Marshal(s) // a JSON string of printable text is a valid C literal
		if err != nil {
			return "", err
		}
		if strings.Contains(string(b), `\u`) {
			return "", fmt.Errorf("layerstubs: %q: use printable ASCII", s)
		}
		return string(b), nil
	},
	"join": strings.Join,
	"list": func(v ...any) []any { return v },
}

type manifestLayer struct {
	Name                  string            `json:"name"`
	Type                  string            `json:"type"`
	LibraryPath           string            `json:"library_path"`
	APIVersion            string            `json:"api_version"`
	ImplementationVersion string            `json:"implementation_version"`
	Description           string            `json:"description"`
	Functions             map[string]string `json:"functions"`
	InstanceExtensions    []extension       `json:"instance_extensions,omitempty"`
	DeviceExtensions      []extension       `json:"device_extensions,omitempty"`
	Features              *manifestFeatures `json:"features,omitempty"`
}

// manifestFeatures is what Vulkan Configurator reads of a layer's settings.
type manifestFeatures struct {
	Settings []map[string]any `json:"settings"`
}

func manifest(d *layerData) ([]byte, error) {
	s := d.Spec
	m := struct {
		Comment           string        `json:"comment"`
		FileFormatVersion string        `json:"file_format_version"`
		Layer             manifestLayer `json:"layer"`
	}{genfile.Header + " Source: " + d.Source + ".", "1.2.0", manifestLayer{
		Name: s.Name, Type: "GLOBAL", LibraryPath: s.Library, APIVersion: s.APIVersion,
		ImplementationVersion: fmt.Sprint(s.ImplementationVersion), Description: s.Description,
		Functions: map[string]string{
			"vkGetInstanceProcAddr":                  "vkgen_" + s.Symbol + "_GetInstanceProcAddr",
			"vkGetDeviceProcAddr":                    "vkgen_" + s.Symbol + "_GetDeviceProcAddr",
			"vkNegotiateLoaderLayerInterfaceVersion": "vkgen_" + s.Symbol + "_NegotiateLoaderLayerInterfaceVersion",
		},
		InstanceExtensions: d.InstanceExts, DeviceExtensions: d.DeviceExts,
	}}
	if d.Settings != nil {
		m.Layer.Features = &manifestFeatures{Settings: d.Settings}
	}
	b, err := json.MarshalIndent(m, "", "    ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// PackageName is the Go package name for a layer directory.
func PackageName(dir string) string {
	var b strings.Builder
	for _, r := range path.Base(strings.ReplaceAll(dir, "\\", "/")) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' {
			b.WriteRune(r)
		}
	}
	return b.String()
}
