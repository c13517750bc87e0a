package tracesummary

import (
	"fmt"
	"strings"
)

// Text renders the two tables, with a line on what they leave out.
func (s *Summary) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Memory per object (peak bytes held; final; created, s since the first event)\n")
	fmt.Fprintf(&b, "%-28s %-13s %-18s %12s %12s %10s  %s\n", "NAME", "TYPE", "HANDLE", "BYTES", "FINAL", "CREATED", "CLUSTER")
	for _, o := range s.Objects {
		name := o.Name
		if name == "" {
			name = "(unnamed)"
		}
		fmt.Fprintf(&b, "%-28s %-13s %#-18x %12d %12d %10.6f  %s\n", name, o.Type, o.Handle, o.Bytes, o.Final, float64(o.Created)/1e9, o.Cluster)
	}
	if n := s.ObjectsTotal - len(s.Objects); n > 0 {
		fmt.Fprintf(&b, "... %d more objects held less (%d in all; --top 0 lists every one)\n", n, s.ObjectsTotal)
	}
	fmt.Fprintf(&b, "\nMemory per cluster (counter tracks, bytes)\n")
	fmt.Fprintf(&b, "%-48s %12s %12s\n", "TRACK", "PEAK", "FINAL")
	for _, c := range s.Clusters {
		fmt.Fprintf(&b, "%-48s %12d %12d\n", c.Track, c.Peak, c.Final)
	}
	fmt.Fprintf(&b, "\nLeaks (alive at vkDestroyDevice, vkDestroyInstance or exit): %d\n", len(s.Leaks))
	if len(s.Leaks) > 0 {
		fmt.Fprintf(&b, "%-28s %-13s %-18s %12s %4s %-17s %10s  %s\n", "NAME", "TYPE", "HANDLE", "BYTES", "HEAP", "AT", "TIME", "CLUSTER")
	}
	for _, l := range s.Leaks {
		name := l.Name
		if name == "" {
			name = "(unnamed)"
		}
		fmt.Fprintf(&b, "%-28s %-13s %#-18x %12d %4d %-17s %10.6f  %s\n", name, l.Type, l.Handle, l.Bytes, l.Heap, l.At, float64(l.Time)/1e9, l.Cluster)
	}
	fmt.Fprintf(&b, "\nFailed allocations: %d (%d bytes)\n", s.AllocationFailures, s.FailedBytes)
	if s.DroppedEvents > 0 {
		fmt.Fprintf(&b, "\nwarning: the trace writer dropped %d events (its buffers were full); the tables miss them\n", s.DroppedEvents)
	}
	if s.LateEvents > 0 {
		fmt.Fprintf(&b, "\nwarning: %d events reached the file more than the reordering window late and were applied out of order; raise --window\n", s.LateEvents)
	}
	return b.String()
}
