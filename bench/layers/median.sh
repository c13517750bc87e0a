# Sourced by bench/layers/lib.sh (and sustained.sh when it only
# summarises): $awk_median, the awk function median(" v1 v2 ...").
# shellcheck disable=SC2034 # used by the sourcing script
awk_median='
function median(s,   a, n, i, j, t) {
	n = split(s, a, " ")
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}'
