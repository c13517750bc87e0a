package settings

// Tracing declares the settings of the layers' tracing, one setup per
// process shared by every vkgen layer: package layer/tracing reads them and
// every layer's manifest lists them for Vulkan Configurator.
var Tracing = []Def{
	{Key: "trace_file", Label: "Trace file", Type: SaveFile, Default: "",
		Description: "Perfetto trace file the layers write, created owner-only (0600) and never overwritten; %p is the process id. Empty: no trace file."},
	{Key: "trace_buffer_kb", Label: "Trace buffer per thread (KiB)", Type: Int, Default: int64(1024), Min: 1, Max: 4 << 20,
		Description: "Events a thread may buffer between two writes of the trace file; beyond it events are dropped and the drops are counted in the trace."},
	{Key: "trace_categories", Label: "Trace file categories", Type: String, Default: "",
		Description: "Comma-separated track-event categories the trace file records (VulkanDebugMarker, VulkanDeviceMemoryReport); empty: every category. Raw object-name packets are always recorded."},
	{Key: "perfetto_system", Label: "Record into traced", Type: Bool, Default: true,
		Description: "Be a producer of the Perfetto system service (traced) whenever it runs, so perfetto sessions record the layers."},
	{Key: "perfetto_smb_kb", Label: "Shared memory with traced (KiB)", Type: Int, Default: int64(4096), Min: 64, Max: 32768,
		Description: "Size of the shared memory buffer the layers write traced's events into: what a burst may hold before the service reads it. A larger buffer loses fewer events under heavy load and costs as much memory."},
	{Key: "vulkan_memory_events", Label: "Perfetto's Vulkan memory events", Type: Bool, Default: true,
		Description: "VK_LAYER_VKGEN_DeviceMemoryReport also writes Perfetto's own VulkanMemoryEvent packets, which fill trace_processor's vulkan_memory_allocations table and the Perfetto UI's Vulkan Allocations, Binds and Driver Memory tracks; its own events are written either way."},
	{Key: "perfetto_startup_ms", Label: "Startup tracing window (ms)", Type: Int, Default: int64(10000), Min: 0, Max: 3600000,
		Description: "When traced runs, keep the events of the first milliseconds in memory (at most 4 MiB) for a session that starts within them; 0 turns startup tracing off."},
}
