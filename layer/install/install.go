// Package install places a built layer library and its manifests where the
// Vulkan loader finds them without any environment: the library in a
// private folder, each layer's explicit manifest (enabled by name, e.g.
// VK_INSTANCE_LAYERS) and an implicit one that one variable switches on
// (VKGEN_MEMREPORT=1), as MangoHud and vkBasalt are installed. It serves a
// user-local install (prefix ~/.local), the Debian package (prefix /usr
// under a staging DestDir) and uninstalling. It reads the manifests that
// scripts/build-layers.sh puts beside the library and knows nothing of what
// the layers do.
package install

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// Library is the one layer library every manifest names.
const Library = "libVkLayer_vkgen.so"

// Options say what to install from where to where.
type Options struct {
	From    string   // build folder: Library and VkLayer_vkgen_<short>.json (scripts/build-layers.sh)
	Prefix  string   // e.g. /usr or $HOME/.local
	LibDir  string   // the library's folder; default Prefix/lib/vkgen
	DataDir string   // default Prefix/share; manifests go to DataDir/vulkan/{explicit,implicit}_layer.d
	DestDir string   // staging root written under (packaging); paths in manifests leave it out
	Layers  []string // short names (memreport, debugmarker); default every manifest in From
}

// Layer is one layer of the build folder.
type Layer struct {
	Short    string // from VkLayer_vkgen_<short>.json
	Name     string // VK_LAYER_VKGEN_...
	manifest map[string]any
}

// EnableVar is the variable that switches the implicit layer on (=1).
func (l Layer) EnableVar() string { return "VKGEN_" + strings.ToUpper(l.Short) }

// DisableVar switches the implicit layer off even when EnableVar is set, as
// the loader requires of every implicit layer (DISABLE_MANGOHUD's shape).
func (l Layer) DisableVar() string { return "DISABLE_VKGEN_" + strings.ToUpper(l.Short) }

// ManifestName is the manifest's file name in both layer folders.
func (l Layer) ManifestName() string { return "VkLayer_vkgen_" + l.Short + ".json" }

func (o Options) withDefaults() Options {
	if o.LibDir == "" {
		o.LibDir = filepath.Join(o.Prefix, "lib", "vkgen")
	}
	if o.DataDir == "" {
		o.DataDir = filepath.Join(o.Prefix, "share")
	}
	return o
}

// Plan reads the build folder's manifests and returns the layers to install,
// sorted by short name. An unknown name in o.Layers is an error.
func Plan(o Options) ([]Layer, error) {
	paths, err := filepath.Glob(filepath.Join(o.From, "VkLayer_vkgen_*.json"))
	if err != nil {
		return nil, err
	}
	all := map[string]Layer{}
	for _, p := range paths {
		l, err := readManifest(p)
		if err != nil {
			return nil, err
		}
		all[l.Short] = l
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("%s: no VkLayer_vkgen_*.json manifests (build the layers with scripts/build-layers.sh %s)", o.From, o.From)
	}
	want := o.Layers
	if len(want) == 0 {
		for s := range all {
			want = append(want, s)
		}
	}
	sort.Strings(want)
	var out []Layer
	for _, s := range want {
		l, ok := all[s]
		if !ok {
			return nil, fmt.Errorf("%s: no layer %q (have %s)", o.From, s, strings.Join(keys(all), ", "))
		}
		out = append(out, l)
	}
	return out, nil
}

func readManifest(path string) (Layer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Layer{}, err
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return Layer{}, fmt.Errorf("%s: %v", path, err)
	}
	layer, _ := m["layer"].(map[string]any)
	name, _ := layer["name"].(string)
	if name == "" {
		return Layer{}, fmt.Errorf("%s: no layer.name", path)
	}
	short := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(path), "VkLayer_vkgen_"), ".json")
	return Layer{Short: short, Name: name, manifest: m}, nil
}

// Files returns every path Install writes, as seen on the installed system
// (without DestDir), library first.
func Files(o Options, layers []Layer) []string {
	o = o.withDefaults()
	files := []string{filepath.Join(o.LibDir, Library)}
	for _, l := range layers {
		for _, kind := range []string{"explicit", "implicit"} {
			files = append(files, filepath.Join(o.DataDir, "vulkan", kind+"_layer.d", l.ManifestName()))
		}
	}
	return files
}

// Install copies the library and writes both manifests of each layer, with
// the library's absolute installed path, and returns the installed paths.
func Install(o Options) ([]string, error) {
	o = o.withDefaults()
	if !filepath.IsAbs(o.LibDir) {
		return nil, fmt.Errorf("library folder %q must be absolute: manifests name the library by its installed path", o.LibDir)
	}
	layers, err := Plan(o)
	if err != nil {
		return nil, err
	}
	lib := filepath.Join(o.LibDir, Library)
	if err := copyFile(filepath.Join(o.From, Library), filepath.Join(o.DestDir, lib), 0o755); err != nil {
		return nil, err
	}
	for _, l := range layers {
		for _, implicit := range []bool{false, true} {
			data, err := l.Manifest(lib, implicit)
			if err != nil {
				return nil, err
			}
			kind := "explicit"
			if implicit {
				kind = "implicit"
			}
			dst := filepath.Join(o.DestDir, o.DataDir, "vulkan", kind+"_layer.d", l.ManifestName())
			if err := writeFile(dst, data, 0o644); err != nil {
				return nil, err
			}
		}
	}
	return Files(o, layers), nil
}

// Manifest returns the layer's manifest naming lib; the implicit one adds
// the enable and disable variables and lists no instance extension: an
// implicit layer's extensions are offered to every application, and
// programs that enable every one offered (vulkaninfo) then fail
// vkCreateInstance on loaders older than VK_EXT_layer_settings (Debian 12's
// 1.3.239 refuses extensions it does not know). The layer reads
// VkLayerSettingsCreateInfoEXT whether or not the extension was enabled.
func (l Layer) Manifest(lib string, implicit bool) ([]byte, error) {
	m := map[string]any{}
	for k, v := range l.manifest {
		m[k] = v
	}
	layer := map[string]any{}
	for k, v := range l.manifest["layer"].(map[string]any) {
		layer[k] = v
	}
	layer["library_path"] = lib
	if implicit {
		layer["enable_environment"] = map[string]string{l.EnableVar(): "1"}
		layer["disable_environment"] = map[string]string{l.DisableVar(): "1"}
		delete(layer, "instance_extensions")
	}
	m["layer"] = layer
	data, err := json.MarshalIndent(m, "", "    ")
	return append(data, '\n'), err
}

// Uninstall removes what Install would write for o, and the library folder
// when it is left empty; files already gone are not an error.
func Uninstall(o Options) ([]string, error) {
	o = o.withDefaults()
	layers, err := Plan(o)
	if err != nil {
		return nil, err
	}
	files := Files(o, layers)
	var errs []error
	for _, f := range files {
		if err := os.Remove(filepath.Join(o.DestDir, f)); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	if err := os.Remove(filepath.Join(o.DestDir, o.LibDir)); err != nil && !errors.Is(err, os.ErrNotExist) && !errors.Is(err, syscall.ENOTEMPTY) {
		errs = append(errs, err)
	}
	return files, errors.Join(errs...)
}

func copyFile(src, dst string, mode os.FileMode) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return writeFile(dst, data, mode)
}

// writeFile replaces dst through a rename, so a running application that
// has the old library mapped keeps it intact.
func writeFile(dst string, data []byte, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".vkgen-install-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), dst)
}

func keys(m map[string]Layer) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
