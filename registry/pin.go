package registry

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// PinFile is the file, at the root of a source tree, that records the
// registry the tree's committed generated files come from.
const PinFile = "vkregistry.pin"

// Pin is a registry version and the SHA-256 of its vk.xml.
type Pin struct {
	Version string // e.g. "1.4.359"
	SHA256  string // hex
}

// ReadPin reads a PinFile: "version V" and "sha256 HEX" lines; blank lines
// and lines starting with # are ignored.
func ReadPin(path string) (*Pin, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	p := &Pin{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, _ := strings.Cut(line, " ")
		switch k {
		case "version":
			p.Version = strings.TrimSpace(v)
		case "sha256":
			p.SHA256 = strings.ToLower(strings.TrimSpace(v))
		default:
			return nil, fmt.Errorf("%s:%d: unknown key %q (want version or sha256)", path, n, k)
		}
	}
	if p.Version == "" || len(p.SHA256) != 64 {
		return nil, fmt.Errorf("%s: want a version line and a sha256 line of 64 hex digits", path)
	}
	return p, nil
}

// Candidates are the places a pinned copy is looked for, in order: for
// every directory D of $VKGEN_REGISTRY_PATH (a list like $PATH),
// D/<version>/vk.xml and D/vk.xml.
func (p *Pin) Candidates() []string {
	var out []string
	for _, d := range filepath.SplitList(os.Getenv("VKGEN_REGISTRY_PATH")) {
		if d != "" {
			out = append(out, filepath.Join(d, p.Version, "vk.xml"), filepath.Join(d, "vk.xml"))
		}
	}
	return out
}

// Matches reports whether the file at path has the pinned checksum.
func (p *Pin) Matches(path string) bool {
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]) == p.SHA256
}

// Version is the registry's version as a pin records it, APIVersion and
// VK_HEADER_VERSION ("1.4.359"); "" when the registry lacks either.
func (r *Registry) Version() string {
	if r.APIVersion == "" || r.HeaderVersion == 0 {
		return ""
	}
	return fmt.Sprintf("%s.%d", r.APIVersion, r.HeaderVersion)
}

// Older reports whether r is older than the pinned registry: a lower
// major.minor, or the same with a lower VK_HEADER_VERSION. A registry
// without a version is older.
func (p *Pin) Older(r *Registry) bool {
	want, ok1 := versionParts(p.Version)
	got, ok2 := versionParts(r.Version())
	if !ok1 {
		return false
	}
	if !ok2 {
		return true
	}
	for i := range want {
		if got[i] != want[i] {
			return got[i] < want[i]
		}
	}
	return false
}

// versionParts splits "1.4.359" into its three numbers.
func versionParts(v string) ([3]int, bool) {
	var out [3]int
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		return out, false
	}
	for i, s := range parts {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return out, false
		}
		out[i] = n
	}
	return out, true
}

// WritePin records r as the pinned registry of the tree whose pin file is
// path: its version and checksum, with the comment every pin file carries.
func WritePin(path string, r *Registry) error {
	if r.Version() == "" || len(r.SHA256) != 64 {
		return fmt.Errorf("registry: %s has no VK_HEADER_VERSION or no checksum to pin", r.Path)
	}
	text := pinComment + "version " + r.Version() + "\nsha256 " + r.SHA256 + "\n"
	return os.WriteFile(path, []byte(text), 0o644)
}

// pinComment heads every pin file WritePin writes.
const pinComment = `# The Vulkan registry the committed generated files come from. With no
# --registry and no $VK_REGISTRY, vkgen uses a vk.xml with this sha256 found
# in $VKGEN_REGISTRY_PATH, $VULKAN_SDK or the system locations, and stops
# when there is none (docs/generating.md). Change it with
# vkgen generate --registry PATH --repin.
`

// PinnedMissingError is FindPinned's answer when no copy of the pinned
// registry is found: it says where it looked and how to go on.
type PinnedMissingError struct {
	Pin      Pin
	Searched []string
}

func (e *PinnedMissingError) Error() string {
	where := "nowhere ($VKGEN_REGISTRY_PATH is unset and no SDK or system registry exists)"
	if len(e.Searched) > 0 {
		where = strings.Join(e.Searched, ", ")
	}
	v := e.Pin.Version
	return fmt.Sprintf("no copy of the pinned registry %s (%s, sha256 %s) found; searched %s.\n"+
		"Get it: Khronos's Vulkan-Headers, tag v%s, file registry/vk.xml "+
		"(https://raw.githubusercontent.com/KhronosGroup/Vulkan-Headers/v%s/registry/vk.xml), "+
		"saved as DIR/%s/vk.xml with DIR in $VKGEN_REGISTRY_PATH.\n"+
		"Or generate from another registry: --registry PATH or $VK_REGISTRY (the output then differs from the committed files); "+
		"or make another registry the pinned one: vkgen generate --registry PATH --repin",
		v, PinFile, e.Pin.SHA256[:16], where, v, v, v)
}
