package vktest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/vkgen/vkgen/internal/testenv"
)

// What the harness builds is shared by every test process, so the layer
// library and each program are built once per content rather than once per
// test binary: each lives in a folder of the cache named by the hash of its
// inputs (sources, build script, toolchain and target), written by one
// process under an exclusive lock while the others wait, then renamed into
// place and made read-only (a test writing into it fails loudly instead of
// changing what another test runs). Folders unused for a week are removed.

// cacheRoot is $VKGEN_TEST_CACHE, else vkgen/test-builds in the user's
// cache folder, else the temporary folder.
func cacheRoot() (string, error) {
	root := os.Getenv("VKGEN_TEST_CACHE")
	if root == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			dir = os.TempDir()
		}
		root = filepath.Join(dir, "vkgen", "test-builds")
	}
	return root, os.MkdirAll(root, 0o755)
}

// cacheTTL is how long a folder nobody used is kept.
const cacheTTL = 7 * 24 * time.Hour

// cached returns the folder of key, running build into a fresh folder first
// when no process has built it yet.
func cached(key string, build func(dir string) error) (string, error) {
	root, err := cacheRoot()
	if err != nil {
		return "", err
	}
	final := filepath.Join(root, key)
	if _, err := os.Stat(final); err == nil {
		touch(final)
		return final, nil
	}
	lock, err := os.OpenFile(final+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", fmt.Errorf("lock %s: %w", lock.Name(), err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	if _, err := os.Stat(final); err == nil { // built while this one waited
		touch(final)
		return final, nil
	}
	tmp, err := os.MkdirTemp(root, key+".tmp-")
	if err != nil {
		return "", err
	}
	if err := build(tmp); err != nil {
		os.RemoveAll(tmp)
		return "", err
	}
	if err := readOnly(tmp); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, final); err != nil {
		return "", err
	}
	evict(root, key)
	return final, nil
}

func touch(dir string) {
	now := time.Now()
	_ = os.Chtimes(dir, now, now)
}

// readOnly takes the write permission off dir and everything in it.
func readOnly(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return os.Chmod(p, info.Mode().Perm()&^0o222)
	})
}

// evict removes the folders (and failed builds' leftovers) of root unused
// for cacheTTL, except keep's.
func evict(root, keep string) {
	ents, _ := os.ReadDir(root)
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, keep) {
			continue
		}
		// a lock goes with its folder, and only when that folder is unused
		info, err := os.Stat(filepath.Join(root, strings.TrimSuffix(name, ".lock")))
		if err != nil {
			info, err = e.Info()
		}
		if err != nil || time.Since(info.ModTime()) < cacheTTL {
			continue
		}
		p := filepath.Join(root, name)
		_ = filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				_ = os.Chmod(q, 0o755)
			}
			return nil
		})
		_ = os.RemoveAll(p)
	}
}

// inputs hashes what a build reads: the toolchain's settings for the test
// binary's target, the C compiler's version, the system's Vulkan headers, the
// named extra strings, then (its methods) the sources.
type inputs struct{ h io.Writer }

func newInputs(extra ...string) (inputs, func() string, error) {
	id, err := toolchainID()
	if err != nil {
		return inputs{}, nil, err
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%q\x00", id, extra)
	return inputs{h}, func() string { return hex.EncodeToString(h.Sum(nil))[:24] }, nil
}

// toolchainID identifies the toolchain's settings for the test binary's
// target, the C compiler's version and the system's Vulkan headers; found
// once per test binary (a go env and a C compiler run each cost about 0.1
// CPU s, and a binary builds several programs).
var toolchainID = sync.OnceValues(func() (string, error) {
	env := exec.Command("go", "env", "GOVERSION", "GOARCH", "GOFLAGS", "CGO_CFLAGS", "CGO_LDFLAGS")
	env.Env = GoEnv()
	out, err := env.Output()
	if err != nil {
		return "", fmt.Errorf("go env: %w", err)
	}
	id := fmt.Sprintf("%s\x00%s\x00", out, CC)
	// the C compiler and the system's Vulkan headers: a package update
	// rebuilds
	cc, err := exec.Command(CC, "-dumpfullversion").Output()
	if err != nil {
		return "", fmt.Errorf("%s -dumpfullversion: %w", CC, err)
	}
	id += string(cc)
	if st, err := os.Stat("/usr/include/vulkan/vulkan_core.h"); err == nil {
		id += fmt.Sprintf("%d %d\x00", st.Size(), st.ModTime().UnixNano())
	}
	return id, nil
})

// dir adds every regular file directly in the folder rel of the repository
// but the tests (a package's or a program's sources, headers, manifests and
// linker scripts).
func (in inputs) dir(rel string) error {
	ents, err := os.ReadDir(filepath.Join(testenv.Root(), rel))
	if err != nil {
		return err
	}
	for _, e := range ents {
		if !e.Type().IsRegular() || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		if err := in.file(filepath.Join(rel, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// file adds the file rel of the repository, by name and content.
func (in inputs) file(rel string) error {
	b, err := os.ReadFile(filepath.Join(testenv.Root(), rel))
	if err != nil {
		return err
	}
	fmt.Fprintf(in.h, "%s\x00%d\x00", rel, len(b))
	_, err = in.h.Write(b)
	return err
}

// goDeps adds the folders of every package pkg builds from (those outside
// the module are named by their versioned module path) and the module's
// go.mod and go.sum.
func (in inputs) goDeps(pkgs ...string) error {
	root := testenv.Root()
	list := exec.Command("go", append([]string{"list", "-deps", "-f", "{{if not .Standard}}{{.Dir}}{{end}}"}, pkgs...)...)
	list.Dir = root
	list.Env = GoEnv()
	out, err := list.Output()
	if err != nil {
		return fmt.Errorf("go list %s: %w", strings.Join(pkgs, " "), err)
	}
	dirs := strings.Fields(string(out))
	slices.Sort(dirs)
	for _, d := range slices.Compact(dirs) {
		rel, err := filepath.Rel(root, d)
		if err != nil || strings.HasPrefix(rel, "..") {
			fmt.Fprintf(in.h, "%s\x00", d) // a module cache folder: versioned, read-only
			continue
		}
		if err := in.dir(rel); err != nil {
			return err
		}
	}
	for _, f := range []string{"go.mod", "go.sum"} {
		if err := in.file(f); err != nil {
			return err
		}
	}
	return nil
}
