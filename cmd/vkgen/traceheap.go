package main

import (
	"os"
	"runtime"
	"runtime/debug"
)

// traceHeapPerSummary is the soft limit of the Go heap per trace read at
// once. A summary's live heap is bounded (the reorder window, the groups),
// but under GOGC's default the heap grows to twice the live heap between
// collections: a diff of two 0.94 GB traces peaked at 304 MB of resident
// memory without a limit, 209 MB with 180 MiB for the two, at the same CPU
// (docs/performance.md). Near the limit the runtime collects sooner; it
// never fails an allocation for it.
const traceHeapPerSummary = 96 << 20

// limitTraceHeap sets the heap's soft limit for reading traces traces at
// most jobs at once (0: one per CPU, as tracesummary.ReadEach), unless
// $GOMEMLIMIT sets one.
func limitTraceHeap(traces, jobs int) {
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		return
	}
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	debug.SetMemoryLimit(int64(max(1, min(jobs, traces))) * traceHeapPerSummary)
}
