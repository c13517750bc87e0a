package tracing

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vkgen/vkgen/layer/settings"
	"github.com/vkgen/vkgen/perfetto"
	"github.com/vkgen/vkgen/perfetto/system"
)

// The compatibility variables of the settings (package settings derives
// the others): what vkgen has always read, and what tests set.
const (
	EnvTraceFile     = "VK_VKGEN_TRACE_FILE"
	EnvSystem        = "VK_VKGEN_PERFETTO_SYSTEM"
	EnvStartup       = "VK_VKGEN_PERFETTO_STARTUP_MS"
	EnvTraceBufferKB = "VK_VKGEN_TRACE_BUFFER_KB"
	SettingTraceFile = "vkgen.trace_file"
	EnvSettingsPath  = "VK_LAYER_SETTINGS_PATH"
)

// config is the layers' tracing configuration (settings.json resolved).
type config struct {
	traceFile, traceFileSource string // "" when no trace file is configured
	bufferBytes                int
	compress                   bool
	categories                 []string // the trace file's category patterns; nil: all
	system                     bool
	startupWindow              time.Duration
	smbBytes                   uint32
	vulkanMemoryEvents         bool
	values                     map[string]settings.Value // every setting of settings.Known
}

var (
	layersMu sync.Mutex
	layers   []string // the vkgen layers that started tracing, in order
)

// readConfig resolves the settings for the layers that started tracing so
// far plus layer ("" for none), with the VkLayerSettingsCreateInfoEXT
// entries of the instance being created.
func readConfig(layer string, api []settings.APISetting) config {
	layersMu.Lock()
	if layer != "" && !slices.Contains(layers, layer) {
		layers = append(layers, layer)
	}
	names := slices.Clone(layers)
	layersMu.Unlock()
	v := settings.Resolve(names, settings.Known(), settings.Sources{API: api, Warn: Warn})
	c := config{
		values:        v,
		bufferBytes:   int(v["trace_buffer_kb"].V.(int64)) << 10,
		compress:      v["trace_compress"].V.(bool),
		system:        v["perfetto_system"].V.(bool),
		startupWindow: time.Duration(v["perfetto_startup_ms"].V.(int64)) * time.Millisecond,
		smbBytes:      uint32(v["perfetto_smb_kb"].V.(int64)) << 10,

		vulkanMemoryEvents: v["vulkan_memory_events"].V.(bool),
	}
	c.categories = categoryPatterns(v["trace_categories"].V.(string), v["trace_categories"].Source)
	if f := v["trace_file"]; f.V.(string) != "" {
		c.traceFile, c.traceFileSource = expandPath(f.V.(string)), f.Source
	}
	return c
}

// lastValues are the settings as the last StartFor resolved them.
var lastValues atomic.Pointer[map[string]settings.Value]

// Setting returns a setting of settings.Known as the last vkCreateInstance
// through a vkgen layer resolved it (with that instance's create info), or
// its default before any.
func Setting(key string) settings.Value {
	if m := lastValues.Load(); m != nil {
		if v, ok := (*m)[key]; ok {
			return v
		}
	}
	for _, d := range settings.Known() {
		if d.Key == key {
			return settings.Value{V: d.Default, Source: "default"}
		}
	}
	return settings.Value{}
}

// fileOptions are the trace file session's options.
func (c config) fileOptions() perfetto.Options {
	o := perfetto.Options{BufferBytes: c.bufferBytes, Compress: c.compress}
	if c.categories != nil {
		o.CategoryFilter = func(cat perfetto.Category) bool {
			return slices.ContainsFunc(c.categories, func(p string) bool { return categoryMatches(p, cat.String()) })
		}
	}
	return o
}

func (c config) systemConfig() system.Config {
	return system.Config{StartupWindow: c.startupWindow, StartupBytes: system.DefaultStartupBytes, SMBSizeHint: c.smbBytes}
}

// TraceFileSetting returns the configured trace path and where it came from
// (a variable, file:line, the create info), with %p replaced by the process
// id and %% by a percent sign; path is "" when no trace file is configured.
func TraceFileSetting() (path, source string) {
	c := readConfig("", nil)
	return c.traceFile, c.traceFileSource
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
