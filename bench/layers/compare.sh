#!/usr/bin/env bash
# Before/after: added thread-CPU ns per call through VK_LAYER_VKGEN_example
# and VK_LAYER_VKGEN_DebugMarker, this tree against revision REV, on
# lavapipe, interleaved in one run so host load hits both sides alike.
# Usage: bench/layers/compare.sh REV [CALLS] [ROUNDS]   (default 1000000 5)
# Each round runs testdata/vkprog --bench without a layer and with each
# layer from each library; the table gives the median over rounds.
set -euo pipefail
rev="$1"
calls="${2:-1000000}"
rounds="${3:-5}"
. "$(dirname "$0")/lib.sh"
mkdir -p "$work/base/src"
git -C "$root" archive "$rev" | tar -x -C "$work/base/src"
"$work/base/src/scripts/build-layers.sh" "$work/base/layers" >/dev/null
for ((i = 0; i < rounds; i++)); do
	env -u VK_INSTANCE_LAYERS "$work/vkprog" --bench "$calls" | sed -n 's/^bench /none /p'
	for side in base head; do
		dir="$work/layers"
		[ "$side" = base ] && dir="$work/base/layers"
		for l in example DebugMarker; do
			VK_ADD_LAYER_PATH="$dir" VK_INSTANCE_LAYERS="VK_LAYER_VKGEN_$l" "$work/vkprog" --bench "$calls" 2>/dev/null |
				sed -n "s/^bench /$side-$l /p"
		done
	done
done >"$work/raw"
awk -v rev="$rev" "$awk_median"'
{ v[$1 " " $2] = v[$1 " " $2] " " $3 }
END {
	printf "added ns against no layer; base = %s, head = this tree\n", rev
	printf "%-16s %9s %14s %14s %14s %14s\n", "case", "none ns", "example base", "example head", "DbgMarker base", "DbgMarker head"
	split("non_intercepted c_forward name_unchanged name_changed gdpa_lookup", order, " ")
	for (k = 1; k <= 5; k++) {
		c = order[k]; a = median(v["none " c])
		printf "%-16s %9.2f %+14.2f %+14.2f %+14.2f %+14.2f\n", c, a,
			median(v["base-example " c]) - a, median(v["head-example " c]) - a,
			median(v["base-DebugMarker " c]) - a, median(v["head-DebugMarker " c]) - a
	}
}' "$work/raw"
