package tracing

import (
	"fmt"
	"io"
	"os"
	"slices"
	"sync"

	vkgenlayer "github.com/vkgen/vkgen/layer"
	"github.com/vkgen/vkgen/objectnames"
	"github.com/vkgen/vkgen/perfetto"
)

// MaxWarnings is how many distinct warnings Warn keeps per process; later
// ones are counted, not printed or kept, so a flood of bad input costs no
// memory and no terminal.
const MaxWarnings = 100

// The warning event: an instant on the process track, in a category every
// session records whatever categories it chose (a trace_categories naming a
// misspelt category must not hide its own warning).
var (
	warnCategory = perfetto.NewAlwaysCategory("vkgen", "the layers' warnings about their configuration and environment (vkgen.warning events)")
	warnEvent    = perfetto.NewEventName("vkgen.warning")
	warnKey      = perfetto.NewAnnotationName("key")
	warnMessage  = perfetto.NewAnnotationName("message")
)

type warning struct{ key, message string }

var warnings struct {
	mu      sync.Mutex
	kept    []warning // at most MaxWarnings, in order
	dropped int       // Warn calls after kept was full
	out     io.Writer // os.Stderr; tests replace it
}

func init() {
	warnings.out = os.Stderr
	perfetto.RegisterReplay(replayWarnings)
	// A second copy of the library that hands its layers to this one says
	// so here, so the trace this copy writes records it.
	vkgenlayer.OnLibraryNote(func(msg string) { Warn("library.second_copy", msg) })
	objectnames.Shared().OnFull(func() {
		Warn("objectnames.full", fmt.Sprintf("the object-name store holds its limit of %d names (objects named and never destroyed?): names of new objects are still traced, but not kept for sessions that start later", objectnames.MaxNames))
	})
}

// Warn reports a problem the user of the layers must learn about without
// it stopping the application: a setting that does not parse, a second copy
// of the library in one process. key names the kind of problem
// ("settings.trace_categories"), message says it in full. The first time a
// key comes with a message, the message is printed on stderr as
// "vkgen: <message>" and written into every running trace session and every
// session that starts later (file and system sessions alike, whatever
// categories they record) as a "vkgen.warning" instant event on the process
// track with the debug annotations key and message; docs/install.md has the
// SQL that lists them. At most MaxWarnings are kept; later ones are only
// counted, and the count is written too. Safe for concurrent use; it must
// not be called from a replay hook or a CategoryFilter.
func Warn(key, message string) {
	w := warning{key, message}
	warnings.mu.Lock()
	if slices.Contains(warnings.kept, w) {
		warnings.mu.Unlock()
		return
	}
	if len(warnings.kept) >= MaxWarnings {
		warnings.dropped++
		first := warnings.dropped == 1
		warnings.mu.Unlock()
		if first {
			fmt.Fprintf(warnings.out, "vkgen: %s\n", droppedMessage(0))
			emitWarning(perfetto.Instant, warning{"warnings.dropped", droppedMessage(0)})
		}
		return
	}
	warnings.kept = append(warnings.kept, w)
	warnings.mu.Unlock()
	fmt.Fprintf(warnings.out, "vkgen: %s\n", message)
	emitWarning(perfetto.Instant, w)
}

// droppedMessage says that warnings went unrecorded, n of them when known.
func droppedMessage(n int) string {
	if n == 0 {
		return fmt.Sprintf("more than %d warnings: later ones are not printed or recorded", MaxWarnings)
	}
	return fmt.Sprintf("%d more warnings were not printed or recorded (more than %d)", n, MaxWarnings)
}

func emitWarning(instant func(perfetto.Category, perfetto.EventName, ...perfetto.Arg), w warning) {
	instant(warnCategory, warnEvent, perfetto.String(warnKey, w.key), perfetto.String(warnMessage, w.message))
}

// replayWarnings writes every kept warning, and how many were not kept,
// into a session that starts.
func replayWarnings(e *perfetto.Emitter) {
	warnings.mu.Lock()
	kept, dropped := slices.Clone(warnings.kept), warnings.dropped
	warnings.mu.Unlock()
	for _, w := range kept {
		emitWarning(e.Instant, w)
	}
	if dropped > 0 {
		emitWarning(e.Instant, warning{"warnings.dropped", droppedMessage(dropped)})
	}
}
