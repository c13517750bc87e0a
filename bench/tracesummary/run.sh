#!/usr/bin/env bash
# `vkgen trace summary` against trace_processor_shell computing the same
# per-object table (objects.sql) on one trace of the 8-thread stress
# workload (testdata/vkstress) recorded through the real loader, lavapipe
# and VK_LAYER_VKGEN_DeviceMemoryReport. Prints wall and CPU time, MB/s and peak
# RSS of both (/usr/bin/time -v) and the ratios.
# Usage: bench/tracesummary/run.sh [SECONDS] [TRACE_PROCESSOR_SHELL]
#   SECONDS: how long vkstress runs (default 150: 1.3 GB on the dev box);
#   the trace processor defaults to the unpacked tarball of
#   ../shared/perfetto/tools. $KEEP=1 leaves the work dir (and the trace);
#   $TRACE=FILE times an earlier recording instead of recording;
#   $BIN=DIR takes layers/, vkstress and vkgen prebuilt from DIR (a machine
#   without Go); $VK_DRIVER_FILES selects another driver than lavapipe.
set -euo pipefail
seconds="${1:-150}"
. "$(dirname "$0")/lib.sh"
tp="${2:-}"
if [ -z "$tp" ]; then
	tar -xJf "$root/../shared/perfetto/tools/perfetto-v58.2-linux-amd64.tar.xz" -C "$work"
	tp="$(find "$work" -name trace_processor_shell -type f | head -1)"
fi
trace="${TRACE:-$work/stress.pftrace}"
if [ -z "${TRACE:-}" ]; then
	VK_INSTANCE_LAYERS=VK_LAYER_VKGEN_DeviceMemoryReport \
		VK_VKGEN_TRACE_FILE="$trace" "$work/vkstress" --threads 8 --seconds "$seconds"
fi
bytes=$(stat -c %s "$trace")
echo "trace: $bytes bytes ($trace)"

# measure NAME CMD...: wall seconds, CPU seconds (user + system) and peak
# RSS in MB into $work/NAME.
measure() {
	local name="$1"
	shift
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -v "$@" >"$work/$name.out" 2>"$work/$name.time"
	else # the same two lines from Python's getrusage
		python3 -c 'import resource, subprocess, sys, time
t = time.time(); subprocess.run(sys.argv[1:], check=True)
print("Elapsed (wall clock) time (h:mm:ss or m:ss): %.2f" % (time.time() - t), file=sys.stderr)
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print("User time (seconds): %.2f" % u.ru_utime, file=sys.stderr)
print("System time (seconds): %.2f" % u.ru_stime, file=sys.stderr)
print("Maximum resident set size (kbytes): %d" % u.ru_maxrss, file=sys.stderr)' \
			"$@" >"$work/$name.out" 2>"$work/$name.time"
	fi
	awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; w = s }
		/(User|System) time \(seconds\)/ { c += $2 }
		/Maximum resident set size/ { r = $2 / 1024 }
		END { printf "%.2f %.2f %.0f\n", w, c, r }' "$work/$name.time" >"$work/$name"
}
measure vkgen "$work/vkgen" trace summary --format json --top 100 "$trace"
measure tp "$tp" -q "$root/bench/tracesummary/objects.sql" "$trace"
objects=$(sed -n 's/^  "objects_total": \([0-9]*\),/\1/p' "$work/vkgen.out")
dropped=$(sed -n 's/^  "dropped_events": \([0-9]*\),/\1/p' "$work/vkgen.out")
echo "vkgen: $objects objects, $dropped dropped events; trace_processor: $(tail -1 "$work/tp.out")"
read -r vw vc vr <"$work/vkgen"
read -r tw tc tr <"$work/tp"
echo "machine: $(nproc) CPU(s), load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
awk -v b="$bytes" -v vw="$vw" -v vc="$vc" -v vr="$vr" -v tw="$tw" -v tc="$tc" -v tr="$tr" 'BEGIN {
	printf "%-22s %8s %8s %8s %10s %12s\n", "tool", "wall s", "MB/s", "CPU s", "MB/CPU-s", "peak RSS MB"
	printf "%-22s %8.2f %8.0f %8.2f %10.0f %12.0f\n", "vkgen trace summary", vw, b / 1e6 / vw, vc, b / 1e6 / vc, vr
	printf "%-22s %8.2f %8.0f %8.2f %10.0f %12.0f\n", "trace_processor_shell", tw, b / 1e6 / tw, tc, b / 1e6 / tc, tr
	printf "speed-up %.1fx wall, %.1fx CPU; memory %.3f of trace_processor_shell\n", tw / vw, tc / vc, vr / tr
}'
