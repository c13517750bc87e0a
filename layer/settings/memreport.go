package settings

import "slices"

// MemoryReport declares VK_LAYER_VKGEN_DeviceMemoryReport's own settings:
// frames, growth and budget thresholds (docs/memreport.md "Memory over
// time"). Package layer/tracing resolves them with the tracing settings, so
// a key is known (not reported as unknown) whichever vkgen layer is enabled.
var MemoryReport = []Def{
	{Key: "frame_window_ms", Label: "Frame window without presents (ms)", Type: Int, Default: int64(100), Min: 1, Max: 60000,
		Description: "Until a program's first vkQueuePresentKHR, its memory activity is cut into frames of this many milliseconds; after it, each present ends a frame."},
	{Key: "growth_frames", Label: "Growth over frames", Type: Int, Default: int64(30), Min: 2, Max: 1000000,
		Description: "Live bytes of a name (or, unnamed, an object type) that rise at least three times, over at least this many frames, without falling back are reported as growth while the program runs."},
	{Key: "growth_min_bytes", Label: "Growth threshold (bytes)", Type: Int, Default: int64(65536), Min: 1, Max: 1 << 62,
		Description: "Least rise of live bytes that counts as growth."},
	{Key: "budget_threshold_percent", Label: "Budget threshold (%)", Type: Int, Default: int64(90), Min: 1, Max: 100,
		Description: "A heap's usage crossing this share of its budget (VK_EXT_memory_budget; else the heap's size) is an event naming what grew most since the last sample."},
	{Key: "call_stack_depth", Label: "Call-stack depth", Type: Int, Default: int64(16), Min: 0, Max: 64,
		Description: "Creating a buffer, an image or device memory records the application's call stack, up to this many frames, so the report can say which code made unnamed memory; 0 records none."},
}

// Own lists, by layer name, the settings a layer reads besides Tracing:
// its manifest lists both.
var Own = map[string][]Def{"VK_LAYER_VKGEN_DeviceMemoryReport": MemoryReport}

// Known is every setting the library reads: Tracing, then each layer's own
// in layer-name order.
func Known() []Def {
	out := slices.Clone(Tracing)
	names := make([]string, 0, len(Own))
	for n := range Own {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		out = append(out, Own[n]...)
	}
	return out
}
