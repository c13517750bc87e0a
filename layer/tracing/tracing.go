// Package tracing starts the layers' Perfetto tracing as their settings say
// (settings.go declares them from settings.json, config.go reads every
// registered setting the Khronos way by package settings: environment,
// vk_layer_settings.txt, VkLayerSettingsCreateInfoEXT): the
// trace file (trace_file, e.g. $VK_VKGEN_TRACE_FILE) with its buffer size,
// and the system-service producer (package perfetto/system; perfetto_system,
// on by default, with its startup-tracing window). Layers call Start at
// vkCreateInstance (Presence does) and Flush at vkDestroyInstance.
//
// It also owns how tracing ends with the process: exit(3) and a return from
// a C main flush every session (exit.go, exit.c); every other end (a Go host
// returning from main or calling os.Exit, _exit, a fatal signal, SIGKILL)
// is covered by the exit watcher (exitwatch.c), a helper process sharing the
// address space that appends what was still buffered once the process is
// gone; a forked child never touches the parent's sessions. See
// docs/layers.md, "Process lifetime".
//
// It owns only that policy; emitting events and everything about sessions
// belong to the perfetto packages.
package tracing

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	vkgenlayer "github.com/vkgen/vkgen/layer"
	"github.com/vkgen/vkgen/layer/settings"

	"github.com/vkgen/vkgen/perfetto"
	"github.com/vkgen/vkgen/perfetto/system"
)

var (
	once sync.Once

	fileMu  sync.Mutex
	refused = map[string]error{}  // trace paths that failed, logged once
	moved   = map[string]string{} // configured trace paths another process had taken: the one this process writes
)

// Start starts the system producer and the exit flush the first time it is
// called, and the configured trace file unless a session writes it already.
// The configuration is read at every call, so pointing it at a new file
// before an instance is created starts a second session mid-run, which
// begins with the replay of every layer's state; the first session keeps
// running. It returns the error that keeps the configured file from being
// traced (an existing or unwritable path; logged once as "vkgen: tracing:
// ..."; nothing else changes). It never blocks on the tracing service: the
// producer connects, and reconnects, in the background. It never panics.
func Start() error { return StartFor("", nil) }

// StartFor is Start for a layer's vkCreateInstance: the settings are read
// for the layer (and every vkgen layer that started tracing before it),
// including the VkLayerSettingsCreateInfoEXT structures chained to
// createInfo, the application's VkInstanceCreateInfo (nil for none).
func StartFor(layer string, createInfo unsafe.Pointer) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("tracing: start failed: %v", r)
			fmt.Fprintf(os.Stderr, "vkgen: %v\n", err)
		}
	}()
	c := readConfig(layer, settings.FromInstanceCreateInfo(createInfo))
	noVulkanMemoryEvents.Store(!c.vulkanMemoryEvents)
	lastValues.Store(&c.values)
	once.Do(func() {
		registerAtExit()
		perfetto.OnEnabled(vkgenlayer.SetTimestamps)      // deferred hooks' records carry their call's time while anything traces
		system.BeforeFlush(func() { vkgenlayer.Drain() }) // a traced session that stops has the deferred hooks of every call before
		if c.system {
			system.StartShared(c.systemConfig())
		}
	})
	return startFile(c)
}

// noVulkanMemoryEvents is the vulkan_memory_events setting of the latest
// vkCreateInstance, inverted so that it is on before any.
var noVulkanMemoryEvents atomic.Bool

// VulkanMemoryEvents says whether VK_LAYER_VKGEN_DeviceMemoryReport writes
// Perfetto's VulkanMemoryEvent packets (setting vulkan_memory_events).
func VulkanMemoryEvents() bool { return !noVulkanMemoryEvents.Load() }

// startFile starts the configured trace file's session unless one writes it.
func startFile(c config) error {
	path, source := c.traceFile, c.traceFileSource
	if path == "" {
		return nil
	}
	fileMu.Lock()
	defer fileMu.Unlock()
	if err := refused[path]; err != nil {
		return err
	}
	configured := path
	if alt := moved[path]; alt != "" {
		path = alt
	}
	for _, s := range perfetto.Sessions() {
		if s.Name() == path {
			return nil
		}
	}
	_, err := perfetto.StartFileSession(path, c.fileOptions())
	if errors.Is(err, os.ErrExist) && path == configured {
		// Another process took the name: a child the application runs
		// with the same environment (MangoHud runs glxinfo, a launcher its
		// game), or an earlier run. Its trace stays; this process's goes
		// beside it instead of being lost.
		alt := pidPath(path)
		if _, err = perfetto.StartFileSession(alt, c.fileOptions()); err == nil {
			moved[configured] = alt
			Warn("tracing.trace_file_taken", fmt.Sprintf("tracing: trace file %s (from %s) already exists; this process (pid %d) writes %s instead (put %%p in the name to give every process its own)", configured, source, os.Getpid(), alt))
		}
	}
	if err != nil {
		path = configured
		err = fmt.Errorf("trace file from %s: %w", source, err)
		refused[path] = err
		Warn("tracing.trace_file", fmt.Sprintf("tracing: %v; not tracing to it", err))
		return err
	}
	startExitWatch()
	return nil
}

// pidPath is path with the process id before its extension:
// /tmp/app.pftrace -> /tmp/app.1234.pftrace.
func pidPath(path string) string {
	ext := filepath.Ext(path)
	return fmt.Sprintf("%s.%d%s", strings.TrimSuffix(path, ext), os.Getpid(), ext)
}

// Flush hands everything emitted so far to every running session's output
// (layers: at vkDestroyInstance when tracing goes on).
func Flush() error { return perfetto.FlushAll() }
