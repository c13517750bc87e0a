package registry

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/beevik/etree"
	"github.com/vkgen/vkgen/internal/fileinput"
)

// Option configures Load and Parse.
type Option func(*options)

type options struct {
	api     string
	maxSize int64
}

func makeOptions(opts []Option) options {
	o := options{api: "vulkan", maxSize: DefaultMaxSize}
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// WithAPI selects the API the model is filtered to: "vulkan" (the default),
// "vulkansc", "vulkanbase". Matching is on whole comma-separated list items.
func WithAPI(api string) Option { return func(o *options) { o.api = api } }

// DefaultMaxSize is the largest registry Load and Parse accept unless
// WithMaxSize says otherwise: ten times Vulkan 1.4's vk.xml (3.3 MB). The
// XML is parsed into a DOM of about 15 times its size, so the limit is
// what bounds the memory a wrong or hostile input can take.
const DefaultMaxSize = 32 << 20

// WithMaxSize sets the largest registry, in bytes, that Load and Parse
// accept (a larger one is a *SizeError).
func WithMaxSize(n int64) Option { return func(o *options) { o.maxSize = n } }

// SizeError is the error for a registry larger than the limit.
type SizeError struct {
	File  string
	Size  int64 // the file's size; -1 when read from a stream and cut off
	Limit int64
}

func (e *SizeError) Error() string {
	size := ""
	if e.Size >= 0 {
		size = fmt.Sprintf("%d bytes, ", e.Size)
	}
	return fmt.Sprintf("registry: %s: %slarger than the registry size limit of %d bytes (%.1f MiB)", e.File, size, e.Limit, float64(e.Limit)/(1<<20))
}

// Load reads and parses the registry at path: a regular file or a pipe (a
// FIFO, /dev/stdin, a shell's <(...)); devices and directories are refused
// before reading anything.
func Load(path string, opts ...Option) (*Registry, error) {
	o := makeOptions(opts)
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("registry: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("registry: %w", err)
	}
	switch mode := st.Mode(); {
	case mode.IsRegular() && st.Size() > o.maxSize:
		return nil, &SizeError{File: path, Size: st.Size(), Limit: o.maxSize}
	case mode.IsRegular(), mode&fs.ModeNamedPipe != 0:
	case mode.IsDir():
		return nil, fmt.Errorf("registry: %s is a directory, want the vk.xml file", path)
	default:
		return nil, fmt.Errorf("registry: %s is %s, want the vk.xml file (a file or a pipe)", path, fileinput.Kind(mode))
	}
	src, err := readLimited(f, path, o.maxSize)
	if err != nil {
		return nil, err
	}
	reg, err := parseBytes(src, path, o)
	if reg != nil {
		reg.Path = path
	}
	return reg, err
}

// Parse reads a registry from r; name is used in diagnostics only.
func Parse(r io.Reader, name string, opts ...Option) (*Registry, error) {
	o := makeOptions(opts)
	src, err := readLimited(r, name, o.maxSize)
	if err != nil {
		return nil, err
	}
	return parseBytes(src, name, o)
}

// readLimited reads r to its end, or fails once it passes limit bytes.
func readLimited(r io.Reader, name string, limit int64) ([]byte, error) {
	src, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("registry: reading %s: %w", name, err)
	}
	if int64(len(src)) > limit {
		return nil, &SizeError{File: name, Size: -1, Limit: limit}
	}
	return src, nil
}

func parseBytes(src []byte, name string, o options) (*Registry, error) {
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
	reg, err := b.build()
	if reg != nil {
		sum := sha256.Sum256(src)
		reg.SHA256 = hex.EncodeToString(sum[:])
	}
	return reg, err
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
// locations whose content has the pinned checksum. With a pin and no copy of
// it the result is a *PinnedMissingError, never another registry: a tree's
// generated files come from its pinned registry unless asked otherwise.
// Without a pin, the SDK and system locations as Find.
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
			ok, _ := try(c, "")
			if ok && pin.Matches(c) {
				return c, searched, nil
			}
			if ok {
				searched[len(searched)-1] += " (another registry)"
			}
		}
		return "", searched, &PinnedMissingError{Pin: *pin, Searched: searched}
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
