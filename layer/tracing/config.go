package tracing

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Configuration names, following the Vulkan layer-settings convention.
const (
	EnvTraceFile     = "VK_VKGEN_TRACE_FILE"
	SettingTraceFile = "vkgen.trace_file"
	EnvSettingsPath  = "VK_LAYER_SETTINGS_PATH"
	settingsFileName = "vk_layer_settings.txt"
)

// TraceFileSetting returns the configured trace path and where it came from:
// $VK_VKGEN_TRACE_FILE, else the vkgen.trace_file key of vk_layer_settings.txt
// ($VK_LAYER_SETTINGS_PATH, a file or the directory holding it; else the
// current directory). %p in the path becomes the process id, %% a percent
// sign. path is "" when tracing to a file is not configured.
func TraceFileSetting() (path, source string) {
	if v := os.Getenv(EnvTraceFile); v != "" {
		return expandPath(v), EnvTraceFile
	}
	file := settingsFileName
	if p := os.Getenv(EnvSettingsPath); p != "" {
		file = p
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			file = filepath.Join(p, settingsFileName)
		}
	}
	if v := readSetting(file, SettingTraceFile); v != "" {
		return expandPath(v), file
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
