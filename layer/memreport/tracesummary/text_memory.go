package tracesummary

import (
	"fmt"
	"strings"
)

// totalsText renders the totals per heap at peak and at the end.
func (s *Summary) totalsText(b *strings.Builder) {
	if len(s.Totals) == 0 {
		return
	}
	fmt.Fprintf(b, "\nTotals per heap (bytes, each counted once; at the heap's peak, when it held the most with the most bound, and at the end)\n")
	fmt.Fprintf(b, "%-5s %-5s %14s %14s %14s %14s %14s %14s %7s\n", "HEAP", "WHEN", "ALLOCATED", "BOUND", "UNBOUND", "ALIASED", "RESOURCES", "DRIVER", "BLOCKS")
	for _, h := range s.Totals {
		for _, r := range []struct {
			when string
			t    Totals
		}{{"peak", h.Peak}, {"end", h.Final}} {
			fmt.Fprintf(b, "%-5s %-5s %14s %14s %14s %14s %14s %14s %7d\n", h.Heap, r.when, r.t.Allocated, r.t.Bound, r.t.Unbound,
				r.t.Aliased, r.t.Resources, r.t.Driver, r.t.Blocks)
		}
	}
	fmt.Fprintf(b, "(RESOURCES sums the bound resources' sizes, as the cluster counters do: an aliased byte counts once per resource there)\n")
}

// blocksText renders the block layouts.
func (s *Summary) blocksText(b *strings.Builder) {
	if len(s.Blocks) == 0 {
		return
	}
	fmt.Fprintf(b, "\nBlocks (VkDeviceMemory layouts when the most was bound in each; offsets and sizes in bytes)\n")
	for _, k := range s.Blocks {
		state := "alive at the end"
		if k.FreedNS >= 0 {
			state = fmt.Sprintf("freed at %.6f s", float64(k.FreedNS)/1e9)
		}
		fmt.Fprintf(b, "%#x heap %d, %d bytes, %s; %d bound, %d aliased (at %.6f s), %s\n", k.Handle, k.Heap, k.Size, orDash(k.Descriptor),
			k.Bound, k.Aliased, float64(k.FullestNS)/1e9, state)
		textRows(b, "  ", len(k.Ranges), "bindings", func(i int) {
			r := &k.Ranges[i]
			fmt.Fprintf(b, "  %12d +%-12d %-13s %#-18x %s\n", r.Offset, r.Size, r.Type, r.Handle, objectLabel(r.Name, r.Descriptor))
		})
		textRows(b, "  ", len(k.Holes), "holes", func(i int) {
			h := &k.Holes[i]
			fmt.Fprintf(b, "  %12d +%-12d hole (%s)\n", h.Offset, h.Size, h.Kind)
		})
		textRows(b, "  ", len(k.Overlaps), "overlaps", func(i int) {
			o := &k.Overlaps[i]
			fmt.Fprintf(b, "  %12d +%-12d overlap (aliased)\n", o.Offset, o.Size)
		})
	}
}

// textRows writes row(i) for the first maxRows of n rows (a sub-allocator's
// block holds hundreds of thousands of bindings, a program that ends
// without teardown leaves as many objects alive) and then a line, after
// indent, on how many more the JSON summary holds.
func textRows(b *strings.Builder, indent string, n int, what string, row func(i int)) {
	for i := range min(n, maxRows) {
		row(i)
	}
	if n > maxRows {
		fmt.Fprintf(b, "%s... %d more %s (--format json lists every one)\n", indent, n-maxRows, what)
	}
}

// objectLabel is how the tables show an object: its name, else its
// descriptor, else "(unnamed)".
func objectLabel(name, descriptor string) string {
	switch {
	case name != "":
		return name
	case descriptor != "":
		return descriptor
	}
	return "(unnamed)"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
