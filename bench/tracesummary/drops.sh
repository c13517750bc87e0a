#!/usr/bin/env bash
# At what event rate the trace writer's buffers start to drop: runs
# testdata/vkstress with VK_LAYER_VKGEN_DeviceMemoryReport for each thread
# count and VK_VKGEN_TRACE_BUFFER_KB and prints the event rate reached and
# the events dropped (the trace's own count, via `vkgen trace summary`).
# Usage: bench/tracesummary/drops.sh [SECONDS] [THREADS...]
#   (default 3, threads 1 2 4 8); $BUFFERS_KB lists the buffer sizes
#   (default "16 64 256 1024", 1024 being the default); $BIN,
#   $VK_DRIVER_FILES and $KEEP as for run.sh.
set -euo pipefail
seconds="${1:-3}"
shift || true
threads=("$@")
[ $# -gt 0 ] || threads=(1 2 4 8)
. "$(dirname "$0")/lib.sh"
printf "%-8s %-10s %12s %12s %10s %12s %9s\n" threads buffer_kb iterations/s events/s "trace MB/s" dropped "dropped%"
for kb in ${BUFFERS_KB:-16 64 256 1024}; do
	for n in "${threads[@]}"; do
		trace="$work/t-$kb-$n.pftrace"
		it=$(VK_INSTANCE_LAYERS=VK_LAYER_VKGEN_DeviceMemoryReport \
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
