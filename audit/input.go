package audit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/vkgen/vkgen/internal/fileinput"
)

// DefaultMaxSize bounds one audit input: the largest files that hold such
// tables (generated enum helpers, vulkan.hpp's enum header) are under 1 MiB.
// Parsing costs up to about 70 bytes of memory per input byte (a file of
// nothing but brackets); vkgen audit --max-size raises the limit.
const DefaultMaxSize = 4 << 20

// ReadSource reads one audit input with a bound on its size: "-" is
// standard input, anything else must be a regular file. Devices, FIFOs and
// sockets are refused without blocking (a FIFO is opened non-blocking), and
// a binary file (one with a NUL byte) is refused.
func ReadSource(path string, opt Options) ([]byte, error) {
	limit := opt.MaxSize
	if limit <= 0 {
		limit = DefaultMaxSize
	}
	var r io.Reader
	if path == "-" {
		if opt.Stdin == nil {
			return nil, fmt.Errorf("-: standard input is not available")
		}
		r = opt.Stdin
	} else {
		f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return nil, err
		}
		switch {
		case fi.IsDir():
			return nil, fmt.Errorf("%s: is a directory", path)
		case !fi.Mode().IsRegular():
			return nil, fmt.Errorf("%s: not a regular file (%s); give a source file, or - to read standard input", path, fileinput.Kind(fi.Mode()))
		case fi.Size() > limit:
			return nil, tooLarge(path, limit)
		}
		r = f
	}
	src, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(src)) > limit {
		return nil, tooLarge(path, limit)
	}
	if i := bytes.IndexByte(src, 0); i >= 0 {
		return nil, fmt.Errorf("%s: binary file (NUL byte at offset %d), not source text", path, i)
	}
	return src, nil
}

func tooLarge(path string, limit int64) error {
	return fmt.Errorf("%s: larger than the %d-byte limit for an audit input; raise it with --max-size", path, limit)
}
