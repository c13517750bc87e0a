#!/usr/bin/env bash
# Call-stack capture cost (docs/performance.md, "Call stacks"): thread-CPU ns
# per vkCreateBuffer (vkloop memory: create, bind, destroy) and per
# vkAllocateMemory (vkloop alloc: allocate, free) through
# VK_LAYER_VKGEN_DeviceMemoryReport on lavapipe, with call_stack_depth 16 and
# 0, the loop called from DEPTH nested frames (so 16 frames exist to take);
# then the trace bytes per created object with and without stacks.
# Usage: bench/layers/callstacks.sh [ITERATIONS] [ROUNDS] [DEPTH]   (default 20000 7 16)
set -euo pipefail
n="${1:-20000}"
rounds="${2:-7}"
depth="${3:-16}"
. "$(dirname "$0")/lib.sh"
gcc -O2 -I "$root/testdata/vkcommon" -o "$work/vkloop" \
	"$root/testdata/vkloop/vkloop.c" "$root/testdata/vkcommon/vkcommon.c" -lvulkan -ldl
export VK_INSTANCE_LAYERS=VK_LAYER_VKGEN_DeviceMemoryReport
for ((i = 0; i < rounds; i++)); do
	for mode in memory alloc; do
		for d in 0 16; do
			VK_VKGEN_CALL_STACK_DEPTH=$d "$work/vkloop" --mode "$mode" --iterations "$n" --depth "$depth" 2>/dev/null |
				sed -n "s/^vkloop \([a-z]*\) thread_ns=\([0-9.]*\).*/\1 $d \2/p"
		done
	done
done >"$work/raw"
awk "$awk_median"'
{ v[$1 " " $2] = v[$1 " " $2] " " $3 }
END {
	printf "%-8s %12s %12s %10s\n", "mode", "off ns", "depth 16 ns", "added ns"
	split("memory alloc", order, " ")
	for (k = 1; k <= 2; k++) {
		m = order[k]; a = median(v[m " 0"]); b = median(v[m " 16"])
		printf "%-8s %12.1f %12.1f %+10.1f\n", m, a, b, b - a
	}
}' "$work/raw"
# Trace bytes per object: one run of each, 20000 buffers made at one call site.
for d in 0 16; do
	VK_VKGEN_CALL_STACK_DEPTH=$d VK_VKGEN_TRACE_FILE="$work/t$d.pftrace" "$work/vkloop" --mode memory --iterations 20000 --reps 1 \
		--depth "$depth" >/dev/null 2>&1
	printf "trace depth %-2s %10d bytes, %.2f bytes per buffer\n" "$d" "$(stat -c %s "$work/t$d.pftrace")" \
		"$(echo "$(stat -c %s "$work/t$d.pftrace") / 20000" | bc -l)"
done
