package tracediff

import (
	"fmt"

	"github.com/vkgen/vkgen/layer/memreport/tracesummary"
)

// warnings says what makes a trace's figures less than exact.
func warnings(which string, t Totals) []string {
	var w []string
	if t.DroppedEvents > 0 {
		w = append(w, fmt.Sprintf("the %s trace's writer dropped %d events: its figures miss them", which, t.DroppedEvents))
	}
	if t.LateEvents > 0 {
		w = append(w, fmt.Sprintf("the %s trace has %d events applied out of order (raise --window)", which, t.LateEvents))
	}
	if t.GroupsFolded > 0 {
		w = append(w, fmt.Sprintf("the %s trace has %d more names than --max-groups: they are compared together as %q", which, t.GroupsFolded, tracesummary.OtherNames))
	}
	return w
}
