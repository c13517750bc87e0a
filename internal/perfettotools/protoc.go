package perfettotools

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/vkgen/vkgen/internal/testenv"
)

var schemas struct {
	sync.Mutex
	key  string            // checksum of the shared folder's .proto files
	sets map[string]string // proto file -> its descriptor set
}

// Protoc runs `protoc --MODE=perfetto.protos.MSG` (MODE "decode" or
// "encode") on in, against file, a path under the shared folder's
// perfetto/ (perfetto_trace.proto, protos/perfetto/ipc/producer_port.proto).
// Each file is compiled once, with its imports, into a descriptor set in
// the cache folder keyed by the checksum of the shared .proto files: parsing
// perfetto_trace.proto took 0.18 of the 0.23 CPU s of a call, and tests call
// protoc about 60 times. missing says why protoc or the shared protos are
// absent (the caller skips or logs); protoc's failure fails t.
func Protoc(t testing.TB, mode, msg, file string, in []byte) (out []byte, missing string) {
	t.Helper()
	shared, ok := testenv.SharedDir()
	root := filepath.Join(shared, "perfetto")
	if _, err := os.Stat(filepath.Join(root, file)); !ok || err != nil {
		return nil, "protoc cross-check skipped: " + filepath.Join(root, file) + " not found (set VKGEN_SHARED)"
	}
	protoc, err := exec.LookPath("protoc")
	if err != nil {
		return nil, "protoc cross-check skipped: protoc not installed (Debian package protobuf-compiler)"
	}
	set, err := descriptorSet(protoc, root, file)
	if err != nil {
		t.Fatalf("protoc --descriptor_set_out %s: %v", file, err)
	}
	cmd := exec.Command(protoc, "--"+mode+"=perfetto.protos."+msg, "--descriptor_set_in="+set)
	cmd.Env = MallocHugePages(os.Environ())
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if out, err = cmd.Output(); err != nil {
		t.Fatalf("protoc --%s=%s (%s): %v\n%s", mode, msg, file, err, stderr.String())
	}
	return out, ""
}

// descriptorSet returns the descriptor set of file under root, compiling it
// into the cache folder when it is not there.
func descriptorSet(protoc, root, file string) (string, error) {
	schemas.Lock()
	defer schemas.Unlock()
	if set, ok := schemas.sets[file]; ok {
		return set, nil
	}
	if schemas.key == "" {
		h := sha256.New()
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".proto") {
				return err
			}
			data, err := os.ReadFile(p)
			h.Write([]byte(p[len(root):] + "\x00"))
			h.Write(data)
			return err
		})
		if err != nil {
			return "", err
		}
		schemas.key = hex.EncodeToString(h.Sum(nil)[:8])
		schemas.sets = map[string]string{}
	}
	dir := filepath.Join(cacheDir(), "protos-"+schemas.key)
	set := filepath.Join(dir, strings.ReplaceAll(file, "/", "_")+".desc")
	if _, err := os.Stat(set); err != nil {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
		// a name of its own, then a rename: test binaries run in parallel
		tmp, err := os.CreateTemp(dir, "set-")
		if err != nil {
			return "", err
		}
		tmp.Close()
		defer os.Remove(tmp.Name())
		if out, err := exec.Command(protoc, "--include_imports", "--descriptor_set_out="+tmp.Name(), "-I", root, filepath.Join(root, file)).CombinedOutput(); err != nil {
			return "", fmt.Errorf("%v\n%s", err, out)
		}
		if err := os.Rename(tmp.Name(), set); err != nil {
			return "", err
		}
	}
	schemas.sets[file] = set
	return set, nil
}
