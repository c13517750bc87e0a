#!/usr/bin/env bash
# Layer framework overhead: added thread-CPU ns per call through
# VK_LAYER_VKGEN_example against no layer, on lavapipe, in one run.
# Usage: bench/layers/run.sh [CALLS] [ROUNDS]   (default 1000000 5)
# Each round runs testdata/vkprog without and with the layer (alternating,
# so host noise hits both); each vkprog reports the best of 5 repetitions
# per case. Prints the median over rounds and the difference.
set -euo pipefail
calls="${1:-1000000}"
rounds="${2:-5}"
. "$(dirname "$0")/lib.sh"
for ((i = 0; i < rounds; i++)); do
	env -u VK_INSTANCE_LAYERS "$work/vkprog" --bench "$calls" | sed -n 's/^bench /none /p'
	VK_INSTANCE_LAYERS=VK_LAYER_VKGEN_example "$work/vkprog" --bench "$calls" 2>/dev/null | sed -n 's/^bench /layer /p'
done >"$work/raw"
awk "$awk_median"'
{ v[$1 " " $2] = v[$1 " " $2] " " $3; cases[$2] = 1 }
END {
	printf "%-16s %10s %10s %10s\n", "case", "none ns", "layer ns", "added ns"
	split("non_intercepted c_forward name_unchanged name_changed gdpa_lookup", order, " ")
	for (k = 1; k <= 5; k++) {
		c = order[k]; a = median(v["none " c]); b = median(v["layer " c])
		printf "%-16s %10.2f %10.2f %+10.2f\n", c, a, b, b - a
	}
}' "$work/raw"
