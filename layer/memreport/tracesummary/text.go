package tracesummary

import (
	"fmt"
	"strings"
)

// Text renders the two tables, with a line on what they leave out.
func (s *Summary) Text() string {
	var b strings.Builder
	if s.ObjectsTotal == 0 && len(s.Clusters) == 0 && len(s.Leaks) == 0 && s.AllocationFailures == 0 {
		// A valid trace of a run that made no memory event (vulkaninfo, a
		// program that only creates an instance, one that failed early).
		fmt.Fprintf(&b, "No memory events in this trace (no device memory was allocated, bound or reported while it was recorded).\n\n")
	}
	fmt.Fprintf(&b, "Memory per object (peak bytes held; final; created, s since the first event)\n")
	fmt.Fprintf(&b, "%-28s %-13s %-18s %12s %12s %10s  %s\n", "NAME", "TYPE", "HANDLE", "BYTES", "FINAL", "CREATED", "CLUSTER")
	for _, o := range s.Objects {
		fmt.Fprintf(&b, "%-28s %-13s %#-18x %12d %12d %10.6f  %s\n", objectLabel(o.Name, o.Descriptor), o.Type, o.Handle, o.Bytes, o.Final, float64(o.Created)/1e9, o.Cluster)
	}
	if n := s.ObjectsTotal - len(s.Objects); n > 0 {
		fmt.Fprintf(&b, "... %d more objects held less (%d in all; --top 0 lists every one)\n", n, s.ObjectsTotal)
	}
	s.callSiteText(&b)
	fmt.Fprintf(&b, "\nMemory per cluster (counter tracks, bytes)\n")
	fmt.Fprintf(&b, "%-48s %12s %12s\n", "TRACK", "PEAK", "FINAL")
	for _, c := range s.Clusters {
		fmt.Fprintf(&b, "%-48s %12d %12d\n", c.Track, c.Peak, c.Final)
	}
	s.totalsText(&b)
	fmt.Fprintf(&b, "\nLeaks (alive at vkDestroyDevice, vkDestroyInstance or exit): %d\n", len(s.Leaks))
	if len(s.Leaks) > 0 {
		fmt.Fprintf(&b, "%-28s %-13s %-18s %12s %4s %-17s %10s  %s\n", "NAME", "TYPE", "HANDLE", "BYTES", "HEAP", "AT", "TIME", "CLUSTER")
	}
	textRows(&b, "", len(s.Leaks), "leaks", func(i int) {
		l := &s.Leaks[i]
		fmt.Fprintf(&b, "%-28s %-13s %#-18x %12d %4d %-17s %10.6f  %s\n", objectLabel(l.Name, l.Descriptor), l.Type, l.Handle, l.Bytes, l.Heap, l.At, float64(l.Time)/1e9, l.Cluster)
	})
	if len(s.AliveAtEnd) > 0 {
		var total Bytes
		for _, l := range s.AliveAtEnd {
			total = total.Add(l.Bytes)
		}
		fmt.Fprintf(&b, "\nAlive at the end of the trace, with no leak event (the process ended without teardown, or the recording stopped first): %d objects, %s bytes\n", len(s.AliveAtEnd), total)
		fmt.Fprintf(&b, "%-28s %-13s %-18s %12s %4s  %s\n", "NAME", "TYPE", "HANDLE", "BYTES", "HEAP", "CLUSTER")
		textRows(&b, "", len(s.AliveAtEnd), "objects", func(i int) {
			l := &s.AliveAtEnd[i]
			fmt.Fprintf(&b, "%-28s %-13s %#-18x %12d %4d  %s\n", objectLabel(l.Name, l.Descriptor), l.Type, l.Handle, l.Bytes, l.Heap, l.Cluster)
		})
	}
	fmt.Fprintf(&b, "\nFailed allocations: %d (%s bytes)\n", s.AllocationFailures, s.FailedBytes)
	s.blocksText(&b)
	s.overTimeText(&b)
	if s.DroppedEvents > 0 {
		fmt.Fprintf(&b, "\nwarning: the trace writer dropped %d events (its buffers were full); the tables miss them\n", s.DroppedEvents)
	}
	if s.LateEvents > 0 {
		fmt.Fprintf(&b, "\nwarning: %d events reached the file more than the reordering window late and were applied out of order; raise --window\n", s.LateEvents)
	}
	return b.String()
}

// callSiteText lists the unnamed memory by where it was made (the
// KindCallSite groups), when the trace carries call stacks.
func (s *Summary) callSiteText(b *strings.Builder) {
	header := false
	for _, g := range s.Groups {
		if g.Kind != KindCallSite {
			continue
		}
		if !header {
			fmt.Fprintf(b, "\nUnnamed memory by call site (peak bytes; final; objects)\n")
			fmt.Fprintf(b, "%12s %12s %8s  %s\n", "PEAK", "FINAL", "OBJECTS", "DESCRIPTOR — CALL SITE")
			header = true
		}
		fmt.Fprintf(b, "%12d %12d %8d  %s\n", g.Peak, g.Final, g.Objects, g.Key)
	}
}

// displayName is how the tables show an object's name.
func displayName(name string) string { return objectLabel(name, "") }
