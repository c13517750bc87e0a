package perfetto

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// Configuration names, following the Vulkan layer-settings convention.
const (
	EnvTraceFile     = "VK_VKGEN_TRACE_FILE"
	SettingTraceFile = "vkgen.trace_file"
	// The file session's buffer per sequence, in KiB (default
	// DefaultBufferBytes): events beyond it between two flushes are dropped
	// and counted (docs/performance.md says when that starts).
	EnvTraceBufferKB     = "VK_VKGEN_TRACE_BUFFER_KB"
	SettingTraceBufferKB = "vkgen.trace_buffer_kb"
	EnvSettingsPath      = "VK_LAYER_SETTINGS_PATH"
	settingsFileName     = "vk_layer_settings.txt"
	logPrefix            = "vkgen: perfetto: "
)

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

// TraceFileSetting returns the configured trace path and where it came from:
// $VK_VKGEN_TRACE_FILE, else the vkgen.trace_file key of vk_layer_settings.txt
// ($VK_LAYER_SETTINGS_PATH, a file or the directory holding it; else the
// current directory). %p in the path becomes the process id, %% a percent
// sign. path is "" when tracing is not configured.
func TraceFileSetting() (path, source string) {
	if v, src := setting(EnvTraceFile, SettingTraceFile); v != "" {
		return expandPath(v), src
	}
	return "", ""
}

// TraceBufferSetting returns the configured per-sequence buffer in bytes
// ($VK_VKGEN_TRACE_BUFFER_KB, else vkgen.trace_buffer_kb of
// vk_layer_settings.txt, found as for TraceFileSetting); 0 when not set. A
// value that is not a whole number of KiB from 1 to 4194304 (4 GiB) is
// logged and ignored.
func TraceBufferSetting() int {
	v, src := setting(EnvTraceBufferKB, SettingTraceBufferKB)
	if v == "" {
		return 0
	}
	kb, err := strconv.Atoi(v)
	if err != nil || kb < 1 || kb > 4<<20 {
		logf("%s from %s: %q is not a size in KiB from 1 to 4194304; using the default %d KiB", SettingTraceBufferKB, src, v, DefaultBufferBytes>>10)
		return 0
	}
	return kb << 10
}

// setting returns $env, else key of the settings file, and where it came
// from: the file is $VK_LAYER_SETTINGS_PATH (a file or the directory holding
// it), else vk_layer_settings.txt in the current directory.
func setting(env, key string) (value, source string) {
	if v := os.Getenv(env); v != "" {
		return v, env
	}
	file := settingsFileName
	if p := os.Getenv(EnvSettingsPath); p != "" {
		file = p
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			file = filepath.Join(p, settingsFileName)
		}
	}
	if v := readSetting(file, key); v != "" {
		return v, file
	}
	return "", ""
}

// readSetting returns the value of key in a vk_layer_settings.txt-style file
// ("key = value" lines, '#' comments); "" when absent or unreadable.
func readSetting(file, key string) string {
	f, err := os.Open(file)
	if err != nil {
		return ""
	}
	defer f.Close()
	val := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		k, v, ok := strings.Cut(line, "=")
		if ok && strings.TrimSpace(k) == key {
			val = strings.TrimSpace(v) // the last assignment wins
		}
	}
	return val
}

func expandPath(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '%' && i+1 < len(p) {
			switch p[i+1] {
			case 'p':
				b.WriteString(strconv.Itoa(os.Getpid()))
				i++
				continue
			case '%':
				b.WriteByte('%')
				i++
				continue
			}
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

var (
	envMu      sync.Mutex
	envSession *Session
)

// StartFromEnv starts the configured file session (see TraceFileSetting) if
// there is one and it is not already running; layers call it when they load
// or at vkCreateInstance. It returns nil, nil when tracing is not configured.
// A failure (existing file, unwritable path) is logged with the "vkgen:"
// prefix and returned; tracing then stays off and nothing else changes.
func StartFromEnv() (*Session, error) {
	path, source := TraceFileSetting()
	if path == "" {
		return nil, nil
	}
	envMu.Lock()
	defer envMu.Unlock()
	if envSession != nil && !envSession.stopped() {
		return envSession, nil
	}
	s, err := StartFileSession(path, Options{BufferBytes: TraceBufferSetting()})
	if err != nil {
		err = fmt.Errorf("trace file from %s: %w", source, err)
		logf("%v; tracing stays off", err)
		return nil, err
	}
	envSession = s
	return s, nil
}

func (s *Session) stopped() bool {
	select {
	case <-s.stopCh:
		return true
	default:
	}
	return s.closed.Load()
}
