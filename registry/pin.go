package registry

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
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
