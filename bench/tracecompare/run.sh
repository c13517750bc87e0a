#!/usr/bin/env bash
# vkgen trace diff against two summaries, and vkgen trace check of many
# traces against trace_processor_shell summarize once per trace (the spec
# of layer/memreport/sql/spec), on traces of testdata/vkstress recorded
# through the real loader, lavapipe and VK_LAYER_VKGEN_DeviceMemoryReport.
# Usage: bench/tracecompare/run.sh [BIG_SECONDS] [SMALL_SECONDS] [COPIES] [TP_RUNS]
#   (default 150 1 100 100); $BIN, $VK_DRIVER_FILES and $KEEP as for
#   bench/tracesummary/run.sh. Prints wall, CPU and peak RSS of each.
set -euo pipefail
big="${1:-150}" small="${2:-1}" copies="${3:-100}" tpruns="${4:-100}"
. "$(dirname "$0")/../tracesummary/lib.sh"
tp="${TP:-$(find "${XDG_CACHE_HOME:-$HOME/.cache}/vkgen" -name trace_processor_shell -type f | head -1)}"
rec() { VK_INSTANCE_LAYERS=VK_LAYER_VKGEN_DeviceMemoryReport VK_VKGEN_TRACE_FILE="$1" "$work/vkstress" --threads 8 --seconds "$2" >/dev/null; }
t() { /usr/bin/time -f "%e s wall, %U+%S s CPU, %M KB peak RSS" "$@" >/dev/null; }
rec "$work/a.pftrace" "$big"; rec "$work/b.pftrace" "$big"
ls -l "$work/a.pftrace" "$work/b.pftrace"
echo "summary a:"; t "$work/vkgen" trace summary --format json --top 100 "$work/a.pftrace"
echo "summary b:"; t "$work/vkgen" trace summary --format json --top 100 "$work/b.pftrace"
echo "diff a b:";  t "$work/vkgen" trace diff --format json "$work/a.pftrace" "$work/b.pftrace"
rec "$work/s.pftrace" "$small"; ls -l "$work/s.pftrace"
for i in $(seq "$copies"); do cp "$work/s.pftrace" "$work/s$i.pftrace"; done
echo "leaks == 0" >"$work/r.rules"; echo "peak total app <= 1GiB" >>"$work/r.rules"
echo "check of $copies traces:"; t "$work/vkgen" trace check --rules "$work/r.rules" "$work"/s[0-9]*.pftrace
spec="$root/layer/memreport/sql/spec/vkgen_memory.textproto"
echo "trace_processor_shell summarize, $tpruns of them one after another:"
export tp root work spec
t bash -c 'for i in $(seq '"$tpruns"'); do "$tp" summarize --add-sql-package "$root/layer/memreport/sql/vkgen" --metrics-v2 all "$work/s$i.pftrace" "$spec" >/dev/null || exit 1; done'
