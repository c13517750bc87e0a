#!/usr/bin/env bash
# Added thread-CPU ns per vkSetDebugUtilsObjectNameEXT through
# VK_LAYER_VKGEN_DebugMarker against no layer, on lavapipe, in one run:
# tracing off, and with a trace session writing. Cases (testdata/vkprog
# --bench): name_unchanged re-applies one name (filtered by the C name
# cache), name_changed alternates two names (every call enters Go and, with
# tracing on, writes a packet).
# Usage: layer/debugmarker/bench.sh [CALLS] [ROUNDS]   (default 200000 3)
set -euo pipefail
calls="${1:-200000}"
rounds="${2:-3}"
. "$(dirname "$0")/../../bench/layers/lib.sh"
for ((i = 0; i < rounds; i++)); do
	env -u VK_INSTANCE_LAYERS "$work/vkprog" --bench "$calls" | sed -n 's/^bench /none /p'
	VK_INSTANCE_LAYERS=VK_LAYER_VKGEN_DebugMarker "$work/vkprog" --bench "$calls" 2>/dev/null | sed -n 's/^bench /off /p'
	rm -f "$work/t.trace"
	VK_VKGEN_TRACE_FILE="$work/t.trace" VK_INSTANCE_LAYERS=VK_LAYER_VKGEN_DebugMarker "$work/vkprog" --bench "$calls" 2>/dev/null | sed -n 's/^bench /on /p'
done >"$work/raw"
awk "$awk_median"'
{ v[$1 " " $2] = v[$1 " " $2] " " $3 }
END {
	printf "%-16s %9s %11s %11s %11s %11s\n", "case", "none ns", "off ns", "off added", "tracing ns", "trace added"
	split("name_unchanged name_changed", order, " ")
	for (k = 1; k <= 2; k++) {
		c = order[k]; a = median(v["none " c]); b = median(v["off " c]); d = median(v["on " c])
		printf "%-16s %9.2f %11.2f %+11.2f %11.2f %+11.2f\n", c, a, b, b - a, d, d - a
	}
}' "$work/raw"
