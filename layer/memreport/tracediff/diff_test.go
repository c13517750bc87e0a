package tracediff

import (
	"encoding/json"
	"encoding/xml"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/layer/memreport/internal/memruns"
	"github.com/vkgen/vkgen/layer/memreport/tracesummary"
)

func summaries(t *testing.T, traces ...string) []*tracesummary.Summary {
	t.Helper()
	var ins []tracesummary.Input
	for _, tr := range traces {
		ins = append(ins, tracesummary.Input{Name: tr, Open: func() (io.ReadCloser, error) { return os.Open(tr) }})
	}
	var out []*tracesummary.Summary
	for _, r := range tracesummary.ReadMany(ins, tracesummary.Options{Top: 1}, 0) {
		if r.Err != nil {
			t.Fatal(r.Err)
		}
		out = append(out, r.Summary)
	}
	return out
}

// TestDiffOneBufferChanged records memruns twice through the real loader,
// the second time with a larger "mesh.vertices" and every buffer created
// in the opposite order (so lavapipe gives them other handles), and checks
// the diff row by row: exactly the groups that hold that buffer or its
// memory changed, by the difference of its required sizes, and nothing
// else (a match by handle would pair different buffers).
func TestDiffOneBufferChanged(t *testing.T) {
	dir := t.TempDir()
	a := memruns.Record(t, dir, nil)
	b := memruns.Record(t, dir, nil, "--vertices", "1048576", "--reverse")
	grow := b.Sizes["mesh.vertices"] - a.Sizes["mesh.vertices"]
	if grow <= 0 || a.Sizes["frame.uniforms"] != b.Sizes["frame.uniforms"] || a.Sizes["-"] != b.Sizes["-"] {
		t.Fatalf("sizes %v and %v", a.Sizes, b.Sizes)
	}
	s := summaries(t, a.Trace, b.Trace)
	d := Compare(s[0], s[1], b.Trace, Options{})
	type change struct {
		kind, key  string
		base, peak int64
	}
	va, vb := a.Sizes["mesh.vertices"], b.Sizes["mesh.vertices"]
	// Sorted: equal changes, broad groups first, then by key.
	want := []change{
		{tracesummary.KindTotal, "app", 0, grow},
		{tracesummary.KindHeap, "0", 0, grow},
		{tracesummary.KindType, "BUFFER", 0, grow},
		{tracesummary.KindType, "DEVICE_MEMORY", 0, grow},
		{tracesummary.KindCluster, "geometry_mesh", va, vb},
		{tracesummary.KindCluster, "unbound_memory", va, vb},
		{tracesummary.KindName, "mesh.vertices", va, vb},
		{tracesummary.KindName, "mesh.vertices.memory", va, vb},
	}
	if len(d.Rows) != len(want) {
		t.Fatalf("rows %+v\nwant %+v", d.Rows, want)
	}
	for i, w := range want {
		r := d.Rows[i]
		if r.Kind != w.kind || r.Key != w.key || r.DeltaPeak != grow || r.DeltaFinal != 0 || r.DeltaObjects != 0 ||
			!r.Base.Present || !r.New.Present || (w.base != 0 && (r.Base.Peak != w.base || r.New.Peak != w.peak)) {
			t.Errorf("row %d = %+v, want %s %s +%d", i, r, w.kind, w.key, grow)
		}
	}
	if d.Unchanged == 0 || len(d.Warnings) != 0 || d.BaseTotals != d.NewTotals {
		t.Errorf("unchanged %d, warnings %v, totals %+v %+v", d.Unchanged, d.Warnings, d.BaseTotals, d.NewTotals)
	}

	// A trace against itself: nothing changed.
	if same := Compare(s[0], s[0], a.Trace, Options{}); len(same.Rows) != 0 {
		t.Errorf("a trace against itself: %+v", same.Rows)
	}
	// Every output form is whole.
	rep := NewReport(a.Trace, []*Diff{d, d})
	text := rep.Text(0)
	for _, w := range []string{"mesh.vertices.memory", "+" + itoa(grow), "CHANGED"} {
		if !strings.Contains(text, w) {
			t.Errorf("text lacks %q:\n%s", w, text)
		}
	}
	var back Report
	if js, err := json.Marshal(rep); err != nil || json.Unmarshal(js, &back) != nil || back.Schema != Schema || len(back.Diffs[0].Rows) != len(want) {
		t.Errorf("json: %v %+v", err, back)
	}
	dec := xml.NewDecoder(strings.NewReader(strings.TrimPrefix(rep.HTML("a <b>"), "<!DOCTYPE html>\n")))
	dec.Strict, dec.AutoClose = false, xml.HTMLAutoClose
	for {
		if _, err := dec.Token(); err != nil {
			if err != io.EOF {
				t.Errorf("html: %v", err)
			}
			break
		}
	}
}

func itoa(v int64) string { b, _ := json.Marshal(v); return string(b) }

// Groups present in one trace only are rows with Present false on the
// other side; an unnamed object whose size changed is a descriptor that
// went and one that came.
func TestCompareAddedRemoved(t *testing.T) {
	base := &tracesummary.Summary{Groups: []tracesummary.Group{
		{Kind: "name", Key: "gone", Peak: 10, Objects: 1},
		{Kind: "descriptor", Key: "BUFFER x 64", Peak: 64, Objects: 2},
		{Kind: "name", Key: "same", Peak: 5, Final: 5, Objects: 1},
	}}
	n := &tracesummary.Summary{Groups: []tracesummary.Group{
		{Kind: "descriptor", Key: "BUFFER x 128", Peak: 128, Objects: 2},
		{Kind: "name", Key: "same", Peak: 5, Final: 5, Objects: 1},
		{Kind: "name", Key: "new", Peak: 0, Objects: 3},
	}, GroupsFolded: 2}
	d := Compare(base, n, "n", Options{})
	var got []string
	for _, r := range d.Rows {
		got = append(got, r.Key)
		if (r.Key == "gone" || r.Key == "BUFFER x 64") == r.New.Present || (r.Key == "new" || r.Key == "BUFFER x 128") == r.Base.Present {
			t.Errorf("row %+v", r)
		}
	}
	if strings.Join(got, ",") != "BUFFER x 128,BUFFER x 64,gone,new" || d.Unchanged != 1 || len(d.Warnings) != 1 {
		t.Errorf("rows %v, unchanged %d, warnings %v", got, d.Unchanged, d.Warnings)
	}
	if all := Compare(base, n, "n", Options{All: true}); len(all.Rows) != 5 || all.Unchanged != 0 {
		t.Errorf("--all: %+v", all)
	}
}
