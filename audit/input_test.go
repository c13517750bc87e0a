package audit

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// zeros is an endless input, like /dev/zero on standard input.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

func TestReadSource(t *testing.T) {
	dir := t.TempDir()
	small, big, bin := filepath.Join(dir, "small.c"), filepath.Join(dir, "big.c"), filepath.Join(dir, "table.o")
	for path, text := range map[string]string{
		small: "int x;\n",
		big:   strings.Repeat("// padding\n", 100),
		bin:   "\x7fELF\x00\x01VK_OBJECT_TYPE_BUFFER",
	} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	if src, err := ReadSource(small, Options{MaxSize: 7}); err != nil || string(src) != "int x;\n" {
		t.Errorf("exactly at the limit: %q %v", src, err)
	}
	cases := []struct {
		path string
		opt  Options
		want string // in the error, beside the path
	}{
		{big, Options{MaxSize: 1000}, "larger than the 1000-byte limit for an audit input; raise it with --max-size"},
		{bin, Options{}, "binary file (NUL byte at offset 4)"},
		{dir, Options{}, "is a directory"},
		{filepath.Join(dir, "nope.c"), Options{}, "no such file"},
		{"-", Options{}, "standard input is not available"},
		{"-", Options{Stdin: zeros{}, MaxSize: 1 << 16}, "larger than the 65536-byte limit"},
	}
	if runtime.GOOS == "linux" {
		cases = append(cases, struct {
			path string
			opt  Options
			want string
		}{"/dev/zero", Options{}, "not a regular file (a character device)"})
	}
	// A FIFO with no writer would block a plain open for ever.
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err == nil {
		cases = append(cases, struct {
			path string
			opt  Options
			want string
		}{fifo, Options{}, "not a regular file (a named pipe)"})
	}
	for _, c := range cases {
		_, err := ReadSource(c.path, c.opt)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.path) {
			t.Errorf("%s: %v, want %q naming the file", c.path, err, c.want)
		}
	}
	if src, err := ReadSource("-", Options{Stdin: bytes.NewReader([]byte("case X:"))}); err != nil || string(src) != "case X:" {
		t.Errorf("stdin: %q %v", src, err)
	}
}

// TestHugeInput: pathological inputs of 1 MiB (unclosed brackets, nested
// switches, long conditions) parse in linear time and memory. There is no
// timing assertion: a quadratic parser would time the test run out.
func TestHugeInput(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	for _, unit := range []string{
		"{{{ switch (t) { case " + dr + "BUFFER_EXT: (" + ot + "IMAGE, ",
		"if (if (x == ",
		"switch (t) { .a => ",
		"case " + dr + "BUFFER_EXT: ",
		"[[[ m[x] = {(",
	} {
		src := strings.Repeat(unit, (1<<20)/len(unit))
		tabs, _ := Parse("huge.c", src)
		for _, tb := range tabs {
			for _, r := range tb.Rows {
				if r.Line != 1 {
					t.Fatalf("%q: row %+v", unit, r)
				}
			}
		}
	}
}
