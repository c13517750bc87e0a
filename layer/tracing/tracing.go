// Package tracing starts the layers' Perfetto tracing once per process: the
// file session configured by $VK_VKGEN_TRACE_FILE / vk_layer_settings.txt
// (package perfetto) and the system-service producer (package
// perfetto/system, on by default, off with VK_VKGEN_PERFETTO_SYSTEM=0).
// Layers call Start when they load or at vkCreateInstance and Flush at
// vkDestroyInstance; Start also makes exit(3) flush every session, so an
// application that exits without destroying its instance loses nothing.
// It owns only that start-up policy; emitting events and everything about
// sessions belong to the perfetto packages.
package tracing

import (
	"fmt"
	"os"
	"sync"

	"github.com/vkgen/vkgen/perfetto"
	"github.com/vkgen/vkgen/perfetto/system"
)

var (
	once     sync.Once
	startErr error
)

// Start starts both backends the first time it is called and returns the
// file session's error (an existing or unwritable trace path, already logged
// as "vkgen: perfetto: ..."; tracing to the file stays off), the same on
// every later call. It never blocks on the tracing service: the producer
// connects, and reconnects, in the background. It never panics.
func Start() error {
	once.Do(func() {
		defer func() {
			if r := recover(); r != nil {
				startErr = fmt.Errorf("tracing: start failed: %v", r)
				fmt.Fprintf(os.Stderr, "vkgen: %v\n", startErr)
			}
		}()
		registerAtExit()
		_, startErr = perfetto.StartFromEnv()
		system.StartFromEnv()
	})
	return startErr
}

// Flush hands everything emitted so far to every running session's output
// (layers: at vkDestroyInstance when tracing goes on).
func Flush() error { return perfetto.FlushAll() }
