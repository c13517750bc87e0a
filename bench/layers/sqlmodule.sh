#!/usr/bin/env bash
# The PerfettoSQL module vkgen.memory (layer/memreport/sql/vkgen) on traces
# of growing length: testdata/vkloop's loop mode (a buffer and its memory
# made, named, bound and destroyed per iteration; lavapipe gives each new
# object the last one's handle) recorded through the real loader with
# vkgen's two layers, then Perfetto's trace_processor_shell timed including
# the module and counting vkgen_memory_objects. Work that grows with the
# square of an object's lifetimes on one handle shows as time growing
# faster than the iterations.
# Usage: bench/layers/sqlmodule.sh [N...]   (default 4000 16000 64000)
#   BASE=REV times the module of revision REV on the same traces too.
set -euo pipefail
counts=("$@")
((${#counts[@]})) || counts=(4000 16000 64000)
shared="${VKGEN_SHARED:-$(cd "$(dirname "$0")/../.." && pwd)/../shared}"
tools="$shared/perfetto/tools/perfetto-v58.2-linux-amd64.tar.xz"
[ -f "$tools" ] || { echo "$0: $tools missing (set VKGEN_SHARED)" >&2; exit 1; }
. "$(dirname "$0")/lib.sh"
tar -xJf "$tools" -C "$work"
tp="$work/perfetto-v58.2-linux-amd64/bin/trace_processor_shell"
gcc -O2 -I "$root/testdata/vkcommon" -o "$work/vkloop" \
	"$root/testdata/vkloop/vkloop.c" "$root/testdata/vkcommon/vkcommon.c" -lvulkan -lpthread
modules=(vkgen="$root/layer/memreport/sql/vkgen")
if [ -n "${BASE:-}" ]; then
	mkdir -p "$work/base/vkgen"
	for f in memory.sql over_time.sql; do
		git -C "$root" show "$BASE:layer/memreport/sql/vkgen/$f" >"$work/base/vkgen/$f"
	done
	modules+=(base="$work/base/vkgen")
fi
printf "%-8s %9s %9s %12s\n" module iterations objects seconds
for n in "${counts[@]}"; do
	rm -f "$work/t.pftrace"
	VK_INSTANCE_LAYERS=VK_LAYER_VKGEN_DebugMarker:VK_LAYER_VKGEN_DeviceMemoryReport VK_VKGEN_TRACE_FILE="$work/t.pftrace" \
		PERFETTO_PRODUCER_SOCK_NAME="$work/none.sock" "$work/vkloop" --mode loop --iterations "$n" --reps 1 --warmup-ms 0 >/dev/null
	for m in "${modules[@]}"; do
		start=$(date +%s%N)
		objects=$("$tp" --add-sql-package "${m#*=}" -Q 'INCLUDE PERFETTO MODULE vkgen.memory;
			SELECT COUNT(*) AS n FROM vkgen_memory_objects' "$work/t.pftrace" 2>/dev/null | tail -1)
		printf "%-8s %9d %9s %12.1f\n" "${m%%=*}" "$n" "$objects" "$((($(date +%s%N) - start) / 1000000))e-3"
	done
done
