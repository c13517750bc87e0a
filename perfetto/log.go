package perfetto

import (
	"fmt"
	"io"
	"os"
	"sync"
)

const logPrefix = "vkgen: perfetto: "

var (
	logMu  sync.Mutex
	logOut io.Writer = os.Stderr
)

// SetLogOutput redirects the package's log lines (default os.Stderr; each
// line starts with "vkgen: perfetto: "). It returns the previous writer.
func SetLogOutput(w io.Writer) io.Writer {
	logMu.Lock()
	defer logMu.Unlock()
	old := logOut
	logOut = w
	return old
}

func logf(format string, args ...any) {
	logMu.Lock()
	defer logMu.Unlock()
	fmt.Fprintf(logOut, logPrefix+format+"\n", args...)
}
