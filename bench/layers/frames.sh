#!/usr/bin/env bash
# Memory over time's cost (issue 29): DeviceMemoryReport of this tree
# against revision REV (before memory over time), interleaved in one run on
# lavapipe so host load hits both sides alike.
# Usage: bench/layers/frames.sh REV [FRAMES] [ROUNDS]   (default 30 5)
#  - frameprog suballoc FRAMES 10000: 10,000 buffers named, bound in
#    blocks of 64 and destroyed per frame, a present each (over
#    testdata/memdriver's present option); the frames' wall time per frame
#    and the process's CPU time, with no layer and with each library,
#    tracing to a file;
#  - vkcube --c 20*FRAMES under Xvfb (no memdriver), same three sides.
# The table gives the median over rounds.
set -euo pipefail
rev="$1"
frames="${2:-30}"
rounds="${3:-5}"
. "$(dirname "$0")/lib.sh"
mkdir -p "$work/base/src" "$work/md" "$work/out"
git -C "$root" archive "$rev" | tar -x -C "$work/base/src"
"$work/base/src/scripts/build-layers.sh" "$work/base/layers" >/dev/null
cp "$root/testdata/memdriver/VkLayer_memdriver.json" "$work/md/"
gcc -O2 -shared -fPIC -fvisibility=hidden -o "$work/md/libVkLayer_memdriver.so" "$root"/testdata/memdriver/*.c -lpthread
gcc -O2 -I "$root/testdata/vkcommon" -o "$work/frameprog" \
	"$root/layer/memreport/testdata/frameprog.c" "$root/testdata/vkcommon/vkcommon.c" -lvulkan -ldl
mkfifo "$work/displayfd"
Xvfb -displayfd 4 -screen 0 1024x768x24 -nolisten tcp 4>"$work/displayfd" 2>/dev/null &
xvfb=$!
trap 'kill $xvfb; rm -rf "$work"' EXIT
read -r display <"$work/displayfd"
export DISPLAY=":$display"
unset VK_ADD_LAYER_PATH
# side LAYERDIR DRIVER TRACE CMD...: runs CMD with DeviceMemoryReport from
# LAYERDIR ("" for none), above the memdriver when DRIVER is 1, writing a
# trace file when TRACE is 1, and prints "wall_ns cpu_s" (wall: what the
# program printed as ns=, else the process's).
side() {
	local dir="$1" md="$2" trace="$3" t0 t1 out cpu
	shift 3
	local layers="${dir:+VK_LAYER_VKGEN_DeviceMemoryReport}" path="$dir"
	if [ "$md" = 1 ]; then
		layers="${layers:+$layers:}VK_LAYER_VKGEN_TEST_memdriver" path="${path:+$path:}$work/md"
	fi
	local env=(VK_ADD_LAYER_PATH="$path" VKGEN_MEMDRIVER=present VK_INSTANCE_LAYERS="$layers" VK_VKGEN_PERFETTO_SYSTEM=0)
	[ "$trace" = 1 ] && env+=(VK_VKGEN_TRACE_FILE="$work/out/t-%p.pftrace")
	t0=$(date +%s%N)
	out=$( { /usr/bin/env "${env[@]}" bash -c 'TIMEFORMAT="cpu %U %S"; time "$@" 2>/dev/null' _ "$@"; } 2>&1)
	t1=$(date +%s%N)
	rm -f "$work"/out/*
	cpu=$(echo "$out" | awk '/^cpu /{ print $2 + $3 }')
	echo "$out" | awk -v wall=$((t1 - t0)) -v cpu="$cpu" '/ns=/{ sub(/.*ns=/, ""); wall = $1 } END { print wall, cpu }'
}
for ((i = 0; i < rounds; i++)); do
	for s in none base head base-traced head-traced; do
		dir="" trace=0
		case "$s" in base*) dir="$work/base/layers" ;; head*) dir="$work/layers" ;; esac
		case "$s" in *-traced) trace=1 ;; esac
		echo "frameprog-$s $(side "$dir" 1 "$trace" "$work/frameprog" suballoc "$frames" 10000)"
		echo "vkcube-$s $(side "$dir" 0 "$trace" vkcube --c $((20 * frames)))"
	done
done >"$work/raw"
awk -v rev="$rev" -v frames="$frames" "$awk_median"'
{ w[$1] = w[$1] " " $2; c[$1] = c[$1] " " $3 }
END {
	printf "median of rounds; base = %s, head = this tree; -traced: writing a trace file\n", rev
	printf "%-10s %12s %14s %8s\n", "program", "side", "wall ms/frame", "CPU s"
	split("frameprog vkcube", progs, " ")
	split("none base head base-traced head-traced", sides, " ")
	for (p = 1; p <= 2; p++) for (s = 1; s <= 5; s++) {
		k = progs[p] "-" sides[s]; n = p == 1 ? frames : 20 * frames
		printf "%-10s %12s %14.3f %8.2f\n", progs[p], sides[s], median(w[k]) / n / 1e6, median(c[k])
	}
}' "$work/raw"
