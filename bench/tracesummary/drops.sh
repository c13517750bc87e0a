#!/usr/bin/env bash
# At what event rate the trace writer's buffers start to drop: runs
# testdata/vkstress with VK_LAYER_VKGEN_DeviceMemoryReport for each thread
# count and VK_VKGEN_TRACE_BUFFER_KB and prints the event rate reached and
# the events dropped (the trace's own count, via `vkgen trace summary`).
# Usage: bench/tracesummary/drops.sh [SECONDS] [THREADS...]
#   (default 3, threads 1 2 4 8); $BUFFERS_KB lists the buffer sizes
#   (default "16 64 256 1024", 1024 being the default); $BIN and
#   $VK_DRIVER_FILES as for run.sh.
set -euo pipefail
seconds="${1:-3}"
shift || true
threads=("$@")
[ $# -gt 0 ] || threads=(1 2 4 8)
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="$(mktemp -d /tmp/vkgen-bench-drops.XXXXXX)"
trap 'rm -rf "$work"' EXIT
if [ -n "${BIN:-}" ]; then
	cp -r "$BIN/layers" "$BIN/vkstress" "$BIN/vkgen" "$work/"
else
	"$root/scripts/build-layers.sh" "$work/layers" >/dev/null
	gcc -O2 -I "$root/testdata/vkcommon" -o "$work/vkstress" \
		"$root/testdata/vkstress/vkstress.c" "$root/testdata/vkcommon/vkcommon.c" -lvulkan -ldl
	(cd "$root" && go build -o "$work/vkgen" ./cmd/vkgen)
fi
mkdir -p "$work/xdg"
export VK_DRIVER_FILES="${VK_DRIVER_FILES:-/usr/share/vulkan/icd.d/lvp_icd.x86_64.json}" XDG_RUNTIME_DIR="$work/xdg" NODEVICE_SELECT=1
printf "%-8s %-10s %12s %12s %10s %12s %9s\n" threads buffer_kb iterations/s events/s "trace MB/s" dropped "dropped%"
for kb in ${BUFFERS_KB:-16 64 256 1024}; do
	for n in "${threads[@]}"; do
		trace="$work/t-$kb-$n.pftrace"
		it=$(VK_ADD_LAYER_PATH="$work/layers" VK_INSTANCE_LAYERS=VK_LAYER_VKGEN_DeviceMemoryReport \
			VK_VKGEN_TRACE_FILE="$trace" VK_VKGEN_TRACE_BUFFER_KB="$kb" \
			"$work/vkstress" --threads "$n" --seconds "$seconds")
		"$work/vkgen" trace summary --format json --top 1 "$trace" >"$work/s.json"
		ev=$(sed -n 's/^  "events": \([0-9]*\),/\1/p' "$work/s.json")
		dr=$(sed -n 's/^  "dropped_events": \([0-9]*\),/\1/p' "$work/s.json")
		el=$(echo "$it" | sed -n 's/.*seconds=\([0-9.]*\).*/\1/p')
		rate=$(echo "$it" | sed -n 's/.*rate=\([0-9]*\).*/\1/p')
		awk -v n="$n" -v kb="$kb" -v r="$rate" -v ev="$ev" -v dr="$dr" -v el="$el" -v b="$(stat -c %s "$trace")" 'BEGIN {
			printf "%-8d %-10d %12d %12.0f %10.1f %12d %8.2f%%\n", n, kb, r, (ev + dr) / el, b / 1e6 / el, dr, 100 * dr / (ev + dr) }'
		rm -f "$trace"
	done
done
