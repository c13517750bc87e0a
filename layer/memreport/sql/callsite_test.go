package sql_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/internal/vktest"
)

// vkgen_memory_objects names each object's call site, the function of the
// summary's "function (file:line)" for the same object, and its callsite_id
// leads to the whole stack.
func TestObjectCallSites(t *testing.T) {
	setup(t)
	prog := vktest.Program(t, "layer/memreport/testdata/stackprog.c", "-g")
	trace, _ := record(t, prog, []string{dmrLayer})
	want := map[string]string{}
	for _, o := range summary(t, trace).Objects {
		fn, _, _ := strings.Cut(o.CallSite, " (")
		want[fmt.Sprintf("%s %#x", o.Type, o.Handle)] = fn
	}
	b := batch(t, trace)
	res := b.Add(`SELECT o.type, o.handle, o.call_site,
		(SELECT COUNT(*) FROM stack_profile_callsite c WHERE c.id = o.callsite_id) AS has_stack
		FROM vkgen_memory_objects o`)
	b.Run(t)
	sites := 0
	for _, r := range res.Rows {
		key := r[0] + " " + handle(t, r[1])
		fn, ok := want[key]
		if !ok {
			t.Errorf("object %s not in the summary", key)
			continue
		}
		got := nullAsEmpty(r[2])
		if got != fn {
			t.Errorf("%s: call_site %q, summary %q", key, got, fn)
		}
		if got != "" {
			sites++
			if r[3] != "1" {
				t.Errorf("%s: callsite_id leads to no callsite", key)
			}
		}
	}
	if sites != 5 {
		t.Errorf("%d objects with a call site, want 5:\n%v", sites, res)
	}
}

func nullAsEmpty(s string) string {
	if s == "[NULL]" {
		return ""
	}
	return s
}
