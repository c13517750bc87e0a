package tracesummary

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/perfetto/decode"
)

func samples(tv ...int64) []decode.CounterSample {
	var out []decode.CounterSample
	for i := 0; i+1 < len(tv); i += 2 {
		out = append(out, decode.CounterSample{Timestamp: uint64(tv[i]), Value: tv[i+1]})
	}
	return out
}

// A chart per heap, each cluster once: the all-heap tracks, which count the
// same bytes, are not drawn beside the heaps' own. A bind moving bytes from
// unbound memory to a cluster at one timestamp is not counted twice, and the
// heap's size and budget are lines of the chart.
func TestHeapCharts(t *testing.T) {
	s := &Summary{
		Series: []Series{
			{Track: "vulkan.mem.app.usage.unbound_memory", Samples: samples(0, 100, 10, 0)},
			{Track: "vulkan.mem.app.usage.geometry_mesh", Samples: samples(10, 100)},
			{Track: "vulkan.mem.heap0.app.usage.unbound_memory", Samples: samples(0, 100, 10, 0)},
			{Track: "vulkan.mem.heap0.app.usage.geometry_mesh", Samples: samples(10, 100)},
			{Track: "vulkan.mem.heap1.driver.usage.general_buffer", Samples: samples(5, 40, 1000, 0)},
			{Track: "vulkan.mem.heap0.budget", Samples: samples(0, 150)},
			{Track: "vulkan.mem.heap0.budget_usage", Samples: samples(0, 120)},
		},
		HeapBudgets: []HeapBudget{{Heap: 0, Source: sourceExtension, Size: 1 << 30, Samples: samples(0, 150)}},
	}
	charts := s.heapCharts()
	if len(charts) != 2 || charts[0].Heap != 0 || charts[1].Heap != 1 {
		t.Fatalf("charts %+v", charts)
	}
	h0 := charts[0]
	var layers []string
	for _, l := range h0.Layers {
		layers = append(layers, l.label())
	}
	// bottom up in the accounting's order, unbound memory last
	if !slices.Equal(layers, []string{"geometry_mesh", "unbound_memory"}) || h0.Peak != 100 {
		t.Errorf("heap 0: layers %v, peak %d, want 100 (the bind moves bytes, it adds none)", layers, h0.Peak)
	}
	var kinds []string
	for _, l := range h0.Lines {
		kinds = append(kinds, l.Kind)
	}
	if !slices.Equal(kinds, []string{lineSize, lineBudget, lineBudgetUsage}) {
		t.Errorf("heap 0 lines %v", kinds)
	}
	if h1 := charts[1]; len(h1.Layers) != 1 || !h1.Layers[0].Driver || h1.Peak != 40 || len(h1.Lines) != 0 {
		t.Errorf("heap 1 %+v", h1)
	}
	svg, _ := heapSVG(&h0)
	// the heap's 1 GiB is far above a peak of 100 bytes: named, not drawn
	if strings.Count(svg, `class="layer"`) != 2 || strings.Count(svg, `class="line"`) != 2 || !strings.Contains(svg, "heap size  1.0 GiB (off scale") {
		t.Errorf("heap 0 svg:\n%s", svg)
	}

	// A trace with only the all-heap tracks (an older layer's) gets one
	// chart of them.
	old := &Summary{Series: s.Series[:2]}
	if c := old.heapCharts(); len(c) != 1 || c[0].Heap != -1 || c[0].title() != "all heaps" {
		t.Errorf("all-heap chart %+v", c)
	}
}

// However long the trace, a chart has chartColumns columns, and a spike
// between columns still shows at its height.
func TestHeapChartBounded(t *testing.T) {
	var tv []int64
	for i := range int64(200000) {
		v := int64(10)
		if i == 123457 {
			v = 5000 // one sample's spike
		}
		tv = append(tv, i*1000, v)
	}
	s := &Summary{Series: []Series{{Track: "vulkan.mem.heap0.app.usage.general_buffer", Samples: samples(tv...)}}}
	c := s.heapCharts()
	if len(c) != 1 || len(c[0].Total) != chartColumns || len(c[0].Layers[0].Values) != chartColumns || c[0].Peak != 5000 || c[0].PeakAt != 123457000 {
		t.Fatalf("chart: %d columns, peak %d at %d", len(c[0].Total), c[0].Peak, c[0].PeakAt)
	}
	page := s.HTML("long")
	if len(page) > 200<<10 {
		t.Errorf("page of a 200,000-sample trace is %d bytes", len(page))
	}
}

// Names, clusters and keys from the trace are text on the page, never
// markup or script: the only </script> are the page's own.
func TestPageEscapes(t *testing.T) {
	const evil = `</script><img src=x onerror="document.title='pwned'"><script>alert(1)</script>`
	s := &Summary{
		Objects:      []Object{{Name: evil, Type: "BUFFER", Handle: 0xb1, Bytes: 4096, Cluster: evil}},
		ObjectsTotal: 1,
		Leaks:        []Leak{{Name: evil, Type: "BUFFER", Handle: 0xb1, Bytes: 4096, Cluster: evil, At: evil}},
		Groups:       []Group{{Kind: KindDescriptor, Key: evil, Peak: 1}, {Kind: KindName, Key: evil, Peak: 1}},
		Series:       []Series{{Track: "vulkan.mem.heap0.app.usage." + evil, Samples: samples(0, 4096)}},
		Growths:      []Growth{{Type: "BUFFER", Name: evil}},
	}
	page := s.HTML(evil)
	charts := strings.Count(page, `<figure class="heap">`)
	if charts != 1 || strings.Count(page, "</script>") != charts+1 || strings.Contains(page, "<img") || strings.Contains(page, "<script>alert") {
		t.Errorf("page with hostile names (%d charts):\n%s", charts, page)
	}
	if !strings.Contains(page, "&lt;img src=x onerror=") {
		t.Errorf("the name is not on the page as text")
	}
}

// Fields the page does not know (a later model's totals, blocks, an
// object's descriptor and call site) show as tables and in the object's
// label.
func TestPageShowsNewFields(t *testing.T) {
	s := &Summary{Objects: []Object{{Type: "IMAGE", Handle: 0x10, Bytes: 480000}}, ObjectsTotal: 1}
	model := summaryModel(s)
	obj := model["objects"].([]any)[0].(map[string]any)
	obj["descriptor"] = "image 2D 400x300 R8G8B8A8_UNORM sampled|transfer_dst"
	obj["call_site"] = "TextureLoader::load (texture.cpp:123)"
	obj["dimensions"] = "400x300"
	var extra map[string]any
	d := json.NewDecoder(strings.NewReader(`{"totals": [{"heap": 0, "allocated_bytes": 2097152, "bound_bytes": 1048576, "aliased_bytes": 0}],
		"blocks": [{"handle": 255, "size": 2097152, "ranges": [{"offset": 0, "size": 4096, "name": "<b>"}, {"offset": 8192, "size": 4096}],
			"overlaps": [{"offset": 8192, "size": 1024}]}]}`))
	d.UseNumber()
	if err := d.Decode(&extra); err != nil {
		t.Fatal(err)
	}
	if f := plainText([]any{map[string]any{"function": "load", "file": "t.cpp", "line": json.Number("12")}, map[string]any{"function": "main"}}); f != "load (t.cpp:12) < main" {
		t.Errorf("frames read %q", f)
	}
	for k, v := range extra {
		model[k] = v
	}
	page := s.page("t", model)
	for _, want := range []string{
		"image 2D 400x300 R8G8B8A8_UNORM sampled|<wbr>transfer_dst — TextureLoader::load (texture.cpp:123) 0x10",
		"<th>dimensions</th>", "<h2>Totals</h2>", "<th>allocated</th>", `<span title="2097152 bytes">2.0 MiB</span>`,
		"<h2>Blocks</h2>", "<th>ranges</th>", "&lt;b&gt;", `<th>layout</th>`, `<svg class="block" width="360" height="14" data-points="6">`,
		`<rect x="1.41" y="1" width="0.50" height="12" fill="#d62728"><title>aliased at 8192, 1.0 KiB </title></rect>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// Sixteen heaps of every cluster, app and driver, with long tracks: a
// chart each, every chart bounded, the page a few megabytes at most.
func TestManyHeaps(t *testing.T) {
	s := &Summary{}
	for h := range 16 {
		for _, owner := range []string{"app", "driver"} {
			for c, cluster := range clusterOrder {
				var tv []int64
				for i := range int64(2000) {
					tv = append(tv, i*1e6+int64(c), (i%7+1)*int64(h+1)<<20)
				}
				s.Series = append(s.Series, Series{Track: "vulkan.mem.heap" + strconv.Itoa(h) + "." + owner + ".usage." + cluster, Samples: samples(tv...)})
			}
		}
	}
	charts := s.heapCharts()
	if len(charts) != 16 || len(charts[15].Layers) != 2*len(clusterOrder) {
		t.Fatalf("%d charts", len(charts))
	}
	page := s.HTML("many")
	t.Logf("%d bytes", len(page))
	if strings.Count(page, `<figure class="heap">`) != 16 || len(page) > 4<<20 {
		t.Errorf("page of 16 heaps: %d charts, %d bytes", strings.Count(page, `<figure class="heap">`), len(page))
	}
}
