package registry

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/beevik/etree"
)

// Option configures Load and Parse.
type Option func(*options)

type options struct{ api string }

// WithAPI selects the API the model is filtered to: "vulkan" (the default),
// "vulkansc", "vulkanbase". Matching is on whole comma-separated list items.
func WithAPI(api string) Option { return func(o *options) { o.api = api } }

// Load reads and parses the registry at path.
func Load(path string, opts ...Option) (*Registry, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("registry: %w", err)
	}
	reg, err := parseBytes(src, path, opts)
	if reg != nil {
		reg.Path = path
	}
	return reg, err
}

// Parse reads a registry from r; name is used in diagnostics only.
func Parse(r io.Reader, name string, opts ...Option) (*Registry, error) {
	src, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("registry: reading %s: %w", name, err)
	}
	return parseBytes(src, name, opts)
}

func parseBytes(src []byte, name string, opts []Option) (*Registry, error) {
	o := options{api: "vulkan"}
	for _, opt := range opts {
		opt(&o)
	}
	doc := etree.NewDocument()
	if err := doc.ReadFromBytes(src); err != nil {
		return nil, syntaxError(name, src, err)
	}
	root := doc.Root()
	if root == nil {
		if err := syntaxError(name, src, nil); err != nil {
			return nil, err
		}
		return nil, &Error{Diagnostic{File: name, Msg: "no root element, want <registry>"}}
	}
	b := newBuilder(name, src, root, o.api)
	if root.Tag != "registry" || root.Space != "" {
		return nil, b.errorf(root, "root element is <%s>, want <registry>", root.FullTag())
	}
	return b.build()
}

// systemRegistries are the fixed locations Find tries last: Debian's
// libvulkan-dev and a from-source install. A variable so tests can stand in
// for a machine without either.
var systemRegistries = []string{"/usr/share/vulkan/registry/vk.xml", "/usr/local/share/vulkan/registry/vk.xml"}

// Find locates vk.xml. The search order is: explicit (when not empty),
// $VK_REGISTRY, $VULKAN_SDK/share/vulkan/registry/vk.xml,
// /usr/share/vulkan/registry/vk.xml, /usr/local/share/vulkan/registry/vk.xml.
// searched lists every candidate tried, in order. An explicit path or
// $VK_REGISTRY that does not exist is an error rather than a fall-through, so
// a typo never silently selects another registry.
func Find(explicit string) (path string, searched []string, err error) {
	return FindPinned(explicit, nil)
}

// FindPinned is Find with a pinned registry (nil for none) tried after
// $VK_REGISTRY: the first of pin.Candidates() and the SDK and system
// locations whose content has the pinned checksum; then the SDK and system
// locations as Find.
func FindPinned(explicit string, pin *Pin) (path string, searched []string, err error) {
	try := func(p, from string) (bool, error) {
		searched = append(searched, p)
		st, err := os.Stat(p)
		switch {
		case err == nil && !st.IsDir():
			return true, nil
		case err == nil:
			return false, fmt.Errorf("registry: %s (%s) is a directory, want the vk.xml file", p, from)
		case from != "" && errors.Is(err, os.ErrNotExist):
			return false, fmt.Errorf("registry: %s (%s) does not exist", p, from)
		case from != "":
			return false, fmt.Errorf("registry: %s (%s): %w", p, from, err)
		}
		return false, nil
	}
	if explicit != "" {
		ok, err := try(explicit, "given explicitly")
		if ok || err != nil {
			return explicit, searched, err
		}
	}
	if env := os.Getenv("VK_REGISTRY"); env != "" {
		ok, err := try(env, "$VK_REGISTRY")
		if ok || err != nil {
			return env, searched, err
		}
	}
	var candidates []string
	if sdk := os.Getenv("VULKAN_SDK"); sdk != "" {
		candidates = append(candidates, filepath.Join(sdk, "share", "vulkan", "registry", "vk.xml"))
	}
	candidates = append(candidates, systemRegistries...)
	if pin != nil {
		for _, c := range append(pin.Candidates(), candidates...) {
			if ok, _ := try(c, ""); ok && pin.Matches(c) {
				return c, searched, nil
			}
		}
	}
	for _, c := range candidates {
		if ok, _ := try(c, ""); ok {
			return c, searched, nil
		}
	}
	return "", searched, fmt.Errorf("registry: vk.xml not found; searched %s. "+
		"Install Debian's libvulkan-dev package or the LunarG Vulkan SDK (which set $VULKAN_SDK), "+
		"or point $VK_REGISTRY or the explicit path at a vk.xml", strings.Join(searched, ", "))
}
