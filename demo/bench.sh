#!/usr/bin/env bash
# Added cost of VK_LAYER_VKGEN_DeviceMemoryReport per vkCreateBuffer +
# vkBindBufferMemory + vkDestroyBuffer on lavapipe: the demo's --bench mode
# (thread CPU and wall time, each the best of 5 repetitions) with no layer,
# with the layer and tracing off, and with the layer tracing to a file, RUNS
# processes each, interleaved, in one invocation. Wall time is what the
# application waits: the layer's deferred hooks run on another thread, and
# a thread that outruns them sleeps until they make room. Uses prebuilt
# binaries like demo/run.sh.
# Usage: demo/bench.sh [ITERATIONS] [RUNS]   (defaults 200000, 5)
set -euo pipefail
n="${1:-200000}"
runs="${2:-5}"
. "$(dirname "$0")/env.sh"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
one() { # mode -> "thread wall" ns per iteration
	case $1 in
	none) "$demo" --bench "$n" ;;
	off) VK_ADD_LAYER_PATH="$layers" VK_INSTANCE_LAYERS=VK_LAYER_VKGEN_DeviceMemoryReport "$demo" --bench "$n" ;;
	on) rm -f "$tmp/t.pftrace"
		VK_ADD_LAYER_PATH="$layers" VK_INSTANCE_LAYERS=VK_LAYER_VKGEN_DeviceMemoryReport VK_VKGEN_TRACE_FILE="$tmp/t.pftrace" "$demo" --bench "$n" ;;
	esac 2>/dev/null | awk '/^bench /{print $3, $4}'
}
declare -A thread wall
for ((i = 0; i < runs; i++)); do
	for m in none off on; do
		read -r t w <<<"$(one $m)"
		thread[$m]+="$t " wall[$m]+="$w "
	done
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END{print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
printf "%-24s %-7s %10s %10s   %s\n" mode clock "ns/iter" "added" "samples (ns/iter, best of 5 each)"
for clock in thread wall; do
	declare -n r=$clock
	base=$(echo "${r[none]}" | median)
	for m in none off on; do
		med=$(echo "${r[$m]}" | median)
		printf "%-24s %-7s %10.1f %+10.1f   %s\n" "$(case $m in none) echo 'no layer';; off) echo 'layer, tracing off';; on) echo 'layer, tracing to file';; esac)" \
			"$clock" "$med" "$(awk -v a="$med" -v b="$base" 'BEGIN{print a-b}')" "${r[$m]}"
	done
done
