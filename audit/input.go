package audit

import (
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	"github.com/vkgen/vkgen/internal/fileinput"
)

// DefaultMaxSize bounds one audit input: the largest files that hold such
// tables (generated enum helpers, vulkan.hpp's enum header) are under 1 MiB.
// Parsing costs up to about 13 bytes of memory per input byte (a file of
// nothing but unclosed brackets: an 8-byte token and a 4-byte open
// bracket per byte); vkgen audit --max-size raises the limit.
const DefaultMaxSize = 4 << 20

// ReadSource reads one audit input with a bound on its size: "-" is
// standard input, anything else must be a regular file. Devices, FIFOs and
// sockets are refused without blocking (a FIFO is opened non-blocking), and
// a binary file (one with a NUL byte) is refused. A regular file is read
// into a string of its size, with no copy on the way.
func ReadSource(path string, opt Options) (string, error) {
	limit := opt.MaxSize
	if limit <= 0 {
		limit = DefaultMaxSize
	}
	limit = min(limit, maxSource)
	var src strings.Builder
	var r io.Reader
	if path == "-" {
		if opt.Stdin == nil {
			return "", fmt.Errorf("-: standard input is not available")
		}
		r = opt.Stdin
	} else {
		f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			return "", err
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return "", err
		}
		switch {
		case fi.IsDir():
			return "", fmt.Errorf("%s: is a directory", path)
		case !fi.Mode().IsRegular():
			return "", fmt.Errorf("%s: not a regular file (%s); give a source file, or - to read standard input", path, fileinput.Kind(fi.Mode()))
		case fi.Size() > limit:
			return "", tooLarge(path, limit)
		}
		src.Grow(int(fi.Size()))
		r = f
	}
	if _, err := io.Copy(&src, io.LimitReader(r, limit+1)); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	if int64(src.Len()) > limit {
		return "", tooLarge(path, limit)
	}
	if i := strings.IndexByte(src.String(), 0); i >= 0 {
		return "", fmt.Errorf("%s: binary file (NUL byte at offset %d), not source text", path, i)
	}
	return src.String(), nil
}

func tooLarge(path string, limit int64) error {
	return fmt.Errorf("%s: larger than the %d-byte limit for an audit input; raise it with --max-size", path, limit)
}
