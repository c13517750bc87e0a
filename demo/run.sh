#!/usr/bin/env bash
# Runs the demo program with the vkgen layers enabled and a trace recorded,
# then prints `vkgen trace summary`. Builds nothing, so prebuilt binaries can
# be run on another machine or driver.
#
# Usage: demo/run.sh [OUTDIR]   (default build/demo/memreport)
#   LAYER_DIR    libVkLayer_vkgen.so and manifests (default build/layers)
#   DEMO         the demo binary (default build/demo/demo)
#   VKGEN        the vkgen binary (default build/vkgen)
#   DEMO_LAYERS  layers to enable (default DebugMarker, when built, and
#                DeviceMemoryReport)
#   TRACE_PROCESSOR  Perfetto's trace_processor_shell (default: the one in
#                PATH, if any): prints the leaks, lifetimes and per-heap peaks
#                through the vkgen.memory module
#   DEMO_ARGS    the demo's options (default "--fail-alloc --leak": a refused
#                allocation and a named leak in the trace; validation
#                reports both, so a validation run sets DEMO_ARGS="")
#   VK_DRIVER_FILES / VK_ICD_FILENAMES  the driver; lavapipe when neither
#                is set, e.g. VK_DRIVER_FILES=/usr/share/vulkan/icd.d/nvidia_icd.json
# Writes OUTDIR/demo.pftrace (replaced if present), demo.out (the program's
# stdout and stderr), summary.txt, summary.json and memory.html, all of
# mode 0600 like the trace (replaced if present).
set -euo pipefail
umask 077 # demo.out and OUTDIR; vkgen writes its outputs 0600 itself
. "$(dirname "$0")/env.sh"
out="${1:-$root/build/demo/memreport}"
vkgen="${VKGEN:-$root/build/vkgen}"
for f in "$layers/libVkLayer_vkgen.so" "$layers/VkLayer_vkgen_memreport.json" "$demo" "$vkgen"; do
	[ -e "$f" ] || { echo "demo/run.sh: $f missing (scripts/demo.sh builds it)" >&2; exit 2; }
done
if [ -z "${DEMO_LAYERS:-}" ]; then
	DEMO_LAYERS=VK_LAYER_VKGEN_DeviceMemoryReport
	[ -e "$layers/VkLayer_vkgen_debugmarker.json" ] && DEMO_LAYERS="VK_LAYER_VKGEN_DebugMarker:$DEMO_LAYERS"
fi
mkdir -p "$out"
out="$(cd "$out" && pwd)"
rm -f "$out/demo.pftrace" # the layer never overwrites a trace
echo "== demo ($DEMO_LAYERS; driver ${VK_DRIVER_FILES:-$VK_ICD_FILENAMES})"
VK_ADD_LAYER_PATH="$layers" VK_INSTANCE_LAYERS="$DEMO_LAYERS" VK_VKGEN_TRACE_FILE="$out/demo.pftrace" \
	"$demo" ${DEMO_ARGS---fail-alloc --leak} >"$out/demo.out" 2>&1 || {
	cat "$out/demo.out" >&2
	exit 1
}
grep -E '^(device|phase|failed_allocation|leaked|validation_messages)' "$out/demo.out"
echo "== vkgen trace summary $out/demo.pftrace"
"$vkgen" trace summary --format json --force -o "$out/summary.json" "$out/demo.pftrace"
"$vkgen" trace summary --force -o "$out/summary.txt" --html "$out/memory.html" "$out/demo.pftrace"
cat "$out/summary.txt"
tp="${TRACE_PROCESSOR:-$(command -v trace_processor_shell || true)}"
if [ -n "$tp" ]; then
	echo "== trace_processor_shell with the vkgen.memory module (layer/memreport/sql)"
	for q in "SELECT type, name, bytes, at FROM vkgen_memory_leaks" \
		"SELECT kind, name, heap, dur FROM vkgen_memory_lifetimes ORDER BY ts" \
		"SELECT track, peak, final FROM vkgen_memory_clusters WHERE track GLOB 'vulkan.mem.heap*'"; do
		"$tp" --add-sql-package "$root/layer/memreport/sql/vkgen" \
			-Q "INCLUDE PERFETTO MODULE vkgen.memory; $q" "$out/demo.pftrace" 2>/dev/null
	done
fi
echo "wrote $out/{demo.pftrace,demo.out,summary.txt,summary.json,memory.html}"
