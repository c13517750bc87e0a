package vktest

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/vkgen/vkgen/internal/testenv"
)

// FixedDir returns an empty folder whose path is the same on every run of
// the test name from this checkout, for builds in a copy of the repository:
// a cgo package's Go build cache key holds its #cgo flags after ${SRCDIR}
// became its absolute folder (-trimpath or not), so a copy in a new
// temporary folder each run rebuilt the layer library's cgo packages and
// everything above them (20 of docs' TestDocCommands' 47 CPU s). The folder
// is in the cache folder (cache.go), held under an exclusive lock until t
// ends, then removed; while another process holds it, t gets a temporary
// folder instead, whose builds miss the cache.
func FixedDir(t testing.TB, name string) string {
	t.Helper()
	root, err := cacheRoot()
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(testenv.Root() + "\x00" + name))
	dir := filepath.Join(root, "work-"+name+"-"+hex.EncodeToString(sum[:6]))
	lock, err := os.OpenFile(dir+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lock.Close()
		t.Logf("%s is in use by another test process; this one builds in a temporary folder, without the build cache's cgo packages", dir)
		return t.TempDir()
	}
	t.Cleanup(func() {
		if err := os.RemoveAll(dir); err != nil {
			t.Error(err)
		}
		lock.Close() // unlocks
	})
	// what a killed run left
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}
