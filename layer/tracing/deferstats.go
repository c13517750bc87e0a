package tracing

import (
	"fmt"
	"os"
	"strings"

	vkgenlayer "github.com/vkgen/vkgen/layer"
)

// deferStatsEnv names a new file that receives, when the process ends
// through exit(3) while tracing, one line per deferred hook: its layer, its
// name and how many records it ran (tab-separated). A diagnostic for layer
// writers: which hooks are hot, and that each call is recorded once.
const deferStatsEnv = "VKGEN_DEFER_STATS"

func init() {
	if p := os.Getenv(deferStatsEnv); p != "" {
		OnExit(func() { writeDeferStats(p) })
	}
}

func writeDeferStats(p string) {
	var b strings.Builder
	vkgenlayer.DeferredRuns(func(layer, hook string, runs uint64) {
		fmt.Fprintf(&b, "%s\t%s\t%d\n", layer, hook, runs)
	})
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		_, err = f.WriteString(b.String())
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "vkgen: %s: %v\n", deferStatsEnv, err)
	}
}
