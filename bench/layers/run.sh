#!/usr/bin/env bash
# Layer framework overhead: added thread-CPU ns per call through
# VK_LAYER_VKGEN_example against no layer, on lavapipe, in one run.
# Usage: bench/layers/run.sh [CALLS] [ROUNDS]   (default 1000000 5)
# Each round runs testdata/vkprog without and with the layer (alternating,
# so host noise hits both); each vkprog reports the best of 5 repetitions
# per case. Prints the median over rounds and the difference.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
calls="${1:-1000000}"
rounds="${2:-5}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$root/scripts/build-layers.sh" "$work/layers" >/dev/null
gcc -O2 -o "$work/vkprog" "$root/testdata/vkprog/vkprog.c" -lvulkan -ldl
mkdir -p "$work/xdg"
export VK_ICD_FILENAMES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json XDG_RUNTIME_DIR="$work/xdg" NODEVICE_SELECT=1
export VK_ADD_LAYER_PATH="$work/layers"
for ((i = 0; i < rounds; i++)); do
	env -u VK_INSTANCE_LAYERS "$work/vkprog" --bench "$calls" | sed -n 's/^bench /none /p'
	VK_INSTANCE_LAYERS=VK_LAYER_VKGEN_example "$work/vkprog" --bench "$calls" 2>/dev/null | sed -n 's/^bench /layer /p'
done >"$work/raw"
awk '
{ v[$1 " " $2] = v[$1 " " $2] " " $3; cases[$2] = 1 }
function median(s,   a, n, i, j, t) {
	n = split(s, a, " ")
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
END {
	printf "%-16s %10s %10s %10s\n", "case", "none ns", "layer ns", "added ns"
	split("non_intercepted c_forward name_unchanged name_changed gdpa_lookup", order, " ")
	for (k = 1; k <= 5; k++) {
		c = order[k]; a = median(v["none " c]); b = median(v["layer " c])
		printf "%-16s %10.2f %10.2f %+10.2f\n", c, a, b, b - a
	}
}' "$work/raw"
