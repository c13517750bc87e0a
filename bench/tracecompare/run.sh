#!/usr/bin/env bash
# vkgen trace diff against the two summaries it stands for, run in
# parallel, and vkgen trace check of many traces against
# trace_processor_shell summarize once per trace (the spec of
# layer/memreport/sql/spec), on traces of testdata/vkstress recorded
# through the real loader, lavapipe and VK_LAYER_VKGEN_DeviceMemoryReport.
# Usage: bench/tracecompare/run.sh [BIG_ITERATIONS] [SMALL_ITERATIONS] [COPIES] [TP_RUNS] [ROUNDS]
#   (default 114000 1100 100 100 2: iterations per vkstress thread, 8
#   threads; about 1 GB and 10 MB of trace). $A and $B name big traces to
#   use instead of recording them, $SMALL the small one; $VKGENS lists vkgen
#   binaries to compare, alternated (default: the one lib.sh builds); $TP
#   is trace_processor_shell; $BIN, $VK_DRIVER_FILES and $KEEP as for
#   bench/tracesummary/run.sh. Prints wall, CPU and peak RSS of each.
set -euo pipefail
big="${1:-114000}" small="${2:-1100}" copies="${3:-100}" tpruns="${4:-100}" rounds="${5:-2}"
. "$(dirname "$0")/../tracesummary/lib.sh"
tp="${TP:-$(find "${XDG_CACHE_HOME:-$HOME/.cache}/vkgen" -name trace_processor_shell -type f | head -1)}"
rec() { VK_INSTANCE_LAYERS=VK_LAYER_VKGEN_DeviceMemoryReport VK_VKGEN_TRACE_FILE="$1" "$work/vkstress" --threads 8 --iterations "$2" >/dev/null; }
t() { /usr/bin/time -f "$1: %e s wall, %U+%S s CPU, %M KB peak RSS" "${@:2}" >/dev/null; }
a="${A:-$work/a.pftrace}" b="${B:-$work/b.pftrace}" s="${SMALL:-$work/s.pftrace}"
[ -n "${A:-}" ] || rec "$a" "$big"
[ -n "${B:-}" ] || rec "$b" "$((big + big / 100))"
[ -n "${SMALL:-}" ] || rec "$s" "$small"
ls -l "$a" "$b" "$s"
read -r -a vkgens <<<"${VKGENS:-$work/vkgen}"
for round in $(seq "$rounds"); do
	for v in "${vkgens[@]}"; do
		echo "== round $round, $v (load $(cut -d' ' -f1-3 /proc/loadavg))"
		start=$(date +%s%N)
		t "  summary a" "$v" trace summary --format json --top 100 "$a" &
		t "  summary b" "$v" trace summary --format json --top 100 "$b" &
		wait
		echo "  both summaries in parallel: $((($(date +%s%N) - start) / 1000000)) ms"
		t "  diff a b" "$v" trace diff --format json "$a" "$b"
	done
done
for i in $(seq "$copies"); do cp "$s" "$work/s$i.pftrace"; done
printf 'leaks == 0\npeak total app <= 1GiB\n' >"$work/r.rules"
for v in "${vkgens[@]}"; do
	t "check of $copies traces with $v" "$v" trace check --rules "$work/r.rules" "$work"/s[0-9]*.pftrace || true
done
spec="$root/layer/memreport/sql/spec/vkgen_memory.textproto"
export tp root work spec
t "trace_processor_shell summarize, $tpruns of them one after another" bash -c 'for i in $(seq '"$tpruns"'); do "$tp" summarize --add-sql-package "$root/layer/memreport/sql/vkgen" --metrics-v2 all "$work/s$i.pftrace" "$spec" >/dev/null || exit 1; done'
