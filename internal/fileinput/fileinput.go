// Package fileinput names what a path that is not a regular file is, for
// the errors of the CLI's inputs (registries, audit sources).
package fileinput

import "io/fs"

// Kind describes a file mode for an error message: "a named pipe", "a
// character device", "a block device", "a socket", "a directory", else
// "a file of mode ...".
func Kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a directory"
	}
	return "a file of mode " + m.Type().String()
}
