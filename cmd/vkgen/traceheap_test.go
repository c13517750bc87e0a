package main

import (
	"math"
	"os"
	"runtime/debug"
	"testing"
)

func TestTraceHeapLimit(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	t.Setenv("GOMEMLIMIT", "") // present, even empty: the user's say
	debug.SetMemoryLimit(math.MaxInt64)
	limitTraceHeap(5, 2)
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("with $GOMEMLIMIT set the limit became %d", got)
	}
	for _, c := range []struct{ traces, jobs, want int }{{5, 2, 2}, {1, 4, 1}, {3, 3, 3}, {0, 1, 1}} {
		t.Run("", func(t *testing.T) {
			t.Setenv("GOMEMLIMIT", "") // restored after the test
			os.Unsetenv("GOMEMLIMIT")
			limitTraceHeap(c.traces, c.jobs)
			if got := debug.SetMemoryLimit(-1); got != int64(c.want)*traceHeapPerSummary {
				t.Errorf("limitTraceHeap(%d, %d): limit %d, want %d summaries' worth", c.traces, c.jobs, got, c.want)
			}
		})
	}
}
