#!/usr/bin/env bash
# The vkgen layers against the C++ peer (VK_LAYER_GOOGLE_DebugMarker and
# VK_LAYER_GOOGLE_DeviceMemoryReport, ../shared/peer) side by side: added
# ns per iteration of testdata/vkloop on one thread over lavapipe, with no
# tracing service and inside a session of a private traced (issue 14).
# Usage: bench/layers/peer.sh [ITERATIONS] [REPS] [ROUNDS]   (default 20000 5 3)
# Cases (vkloop --mode): loop (create, name, rename, allocate, bind, name
# the memory, destroy both; DebugMarker + DeviceMemoryReport), memory
# (create + bind + destroy of a buffer; DeviceMemoryReport) and rename (a
# new name on one buffer; DebugMarker). Each round runs, interleaved, no
# layer and each layer set with no service and then in a session (which
# set goes first alternates by round). Every process sleeps 1 s before its
# timed loop; in a session the loop also waits until every layer library
# joined it (the peer connects to traced asynchronously; `perfetto
# --query` shows the session's data sources). Each session's trace must
# show no loss or error in trace_processor's stats and hold the layer
# set's events for every timed iteration (tracecount); a run that fails
# this is repeated (listed at the end: a layer set losing events under
# load is a result too), and the script fails after 3 attempts. The tables
# give the median over rounds of each process's best of REPS repetitions.
# $VKGEN_SHARED overrides ../shared (the peer and the Perfetto tools).
set -euo pipefail
iters="${1:-20000}"
reps="${2:-5}"
rounds="${3:-3}"
shared="${VKGEN_SHARED:-$(cd "$(dirname "$0")/../.." && pwd)/../shared}"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tracedlib.sh"
(cd "$root" && go build -o "$work/tracecount" ./bench/layers/tracecount)
export VK_ADD_LAYER_PATH="$work/layers:$peer_layers"

lossless_config "$work/session.pbtxt"

# layers MODE SIDE: the VK_INSTANCE_LAYERS of a layer set for a mode.
layers() {
	local p=VK_LAYER_VKGEN_
	[ "$2" = peer ] && p=VK_LAYER_GOOGLE_
	case $1 in
	loop) echo "${p}DebugMarker:${p}DeviceMemoryReport" ;;
	memory) echo "${p}DeviceMemoryReport" ;;
	rename) echo "${p}DebugMarker" ;;
	esac
}
# expected MODE: the least per-iteration count of each kind a session
# must hold ("KIND NAME PER_ITERATION" lines, kinds as tracecount prints).
expected() {
	case $1 in
	loop) printf '%s\n' "packet VkDebugUtilsObjectName 3" "event VulkanObjectName 3" "event VulkanMemoryAllocation 4" ;;
	memory) echo "event VulkanMemoryAllocation 2" ;;
	rename) echo "packet VkDebugUtilsObjectName 1" ;;
	esac
}
# run MODE SIDE STATE: one vkloop process; prints "MODE SIDE STATE THREAD
# PROCESS WALL". A session run whose trace fails check is run again, up to
# 3 attempts; each failed attempt is listed in $work/retried.
run() {
	local mode=$1 side=$2 state=$3 a
	local -a env=(PERFETTO_PRODUCER_SOCK_NAME="$no_service")
	local -a loop=("$work/vkloop" --mode "$mode" --iterations "$iters" --reps "$reps" --warmup-ms 1000)
	[ "$side" = none ] || env+=(VK_INSTANCE_LAYERS="$(layers "$mode" "$side")")
	if [ "$state" = none ]; then
		env -u VK_INSTANCE_LAYERS "${env[@]}" "${loop[@]}" >"$work/out"
	else
		env[0]=PERFETTO_PRODUCER_SOCK_NAME="$service"
		env+=(VK_VKGEN_PERFETTO_SMB_KB=32768)
		# Each peer layer is a producer of its own; vkgen's library is one.
		local ds=1
		[ "$side" = peer ] && ds=$(layers "$mode" peer | tr ':' '\n' | wc -l)
		for ((a = 1; ; a++)); do
			session_run "$work/session.pbtxt" "$work/t.pftrace" "$ds" "${env[@]}" -- "${loop[@]}"
			check "$mode $side" "$work/t.pftrace" && break
			echo "$mode $side: $(head -1 "$work/problem")" >>"$work/retried"
			if ((a == 3)); then
				echo "peer.sh: $mode $side: no clean session in 3 attempts:" >&2
				cat "$work/problem" >&2
				exit 1
			fi
		done
	fi
	awk -v c="$mode $side $state" '{ for (i = 3; i <= 5; i++) { split($i, kv, "="); c = c " " kv[2] } print c }' "$work/out"
}
# check WHAT TRACE: fails, saying why in $work/problem, unless
# trace_processor reports no loss or error and the trace holds the expected
# events for every timed iteration.
check() {
	local problems want
	problems=$(stats_problems "$2")
	if [ -n "$problems" ]; then
		echo "losses or errors in trace_processor stats: $problems" >"$work/problem"
		return 1
	fi
	"$work/tracecount" "$2" >"$work/counts"
	while read -r kind name per; do
		got=$(awk -v k="$kind $name" '$1 " " $2 == k { print $3 }' "$work/counts")
		want=$((per * iters * reps))
		if [ "${got:-0}" -lt "$want" ]; then
			{ echo "$kind $name: ${got:-0} in the trace, want at least $want"; cat "$work/counts"; } >"$work/problem"
			return 1
		fi
	done < <(expected "${1%% *}")
}

echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
for ((r = 0; r < rounds; r++)); do
	sides="vkgen peer"
	((r % 2)) && sides="peer vkgen" # neither set always runs first
	for mode in loop memory rename; do
		run "$mode" none none
		for state in none session; do
			for side in $sides; do run "$mode" "$side" "$state"; done
		done
	done
done >"$work/raw"
echo "load average $(cut -d' ' -f1-3 /proc/loadavg) at the end; $iters iterations x $reps reps, median of $rounds rounds"
if [ -s "$work/retried" ]; then
	echo "session runs repeated ($(wc -l <"$work/retried") failed attempts):"
	sed 's/^/  /' "$work/retried"
fi
awk "$awk_median"'
{ for (c = 4; c <= 6; c++) v[$1 " " $2 " " $3 " " c] = v[$1 " " $2 " " $3 " " c] " " $c }
END {
	printf "%-7s %-8s %-7s %9s %9s %9s %10s %10s %7s %s\n", "mode", "session", "clock", "none ns", "vkgen ns", "peer ns",
		"vkgen add", "peer add", "ratio", "(goal <= 0.5)"
	split("thread process wall", clock, " ")
	split("loop memory rename", modes, " ")
	for (m = 1; m <= 3; m++) for (s = 0; s < 2; s++) for (c = 4; c <= 6; c++) {
		st = s ? "session" : "none"
		a = median(v[modes[m] " none none " c]); g = median(v[modes[m] " vkgen " st " " c]); p = median(v[modes[m] " peer " st " " c])
		printf "%-7s %-8s %-7s %9.1f %9.1f %9.1f %+10.1f %+10.1f %7.2f %s\n", modes[m], st, clock[c - 3], a, g, p,
			g - a, p - a, (p > a ? (g - a) / (p - a) : 0), ((g - a) <= (p - a) / 2 ? "met" : "not met")
	}
}' "$work/raw"
