#!/usr/bin/env bash
# The layers under sustained load (issue 31): testdata/vkloop --seconds runs
# its loop on T threads for SECONDS, far more calls than vkgen's deferred
# ring holds, so the drain must keep up and its CPU counts. Through the
# real loader and lavapipe, interleaved in each round (the order rotates by
# round, so no variant always follows the same one), per thread count:
#   none          no layer
#   peer          the C++ peer layers (../shared/peer), no tracing service
#   vkgen         vkgen's DebugMarker + DeviceMemoryReport, no service
#   vkgen-file    vkgen writing its own trace file (no service)
#   peer-session  the peer layers inside a session of a private traced
#   vkgen-session vkgen inside the same kind of session
# and, with BASE=REV, base, base-file and base-session: vkgen's library
# built at revision REV (before/after in one run; with $VKGEN_PREBUILT, see
# lib.sh, its base-layers/ instead).
# Usage: bench/layers/sustained.sh [SECONDS] [ROUNDS] [THREADS...]
#   (default 10 3 1 8); MODE=pool runs vkloop's pool mode (no allocation
#   per iteration) instead of loop, MODE=memory its memory mode; LIVE=N
#   (those two modes) binds N buffers into their allocation first, as a
#   sub-allocator's block holds them; SMB_KB sets the layers' shared memory
#   with traced (default: none given, each library's default; traced's is
#   4 MiB); SKIP="v1 v2" leaves variants out; RAW="FILE..." runs nothing
#   and prints the table of the result lines that earlier runs printed on
#   stderr, saved in FILEs (rounds run in separate calls, as on the GPU
#   machine).
# Sessions: a 128 MiB ring buffer with incremental state cleared every
# second (10 s of this load is more than any buffer holds); the trace bytes
# a session received are traced's own count (stats traced_buf_bytes_written)
# and its losses the error and data-loss rows of trace_processor's stats,
# checked for every session trace. A trace file's bytes are its size (files
# are not loaded into trace_processor: several GB an hour on this machine;
# tests cover the file encoding). Each line of the table is the median over
# rounds; "added" is ns per iteration of wall time over no layer, ratios
# are vkgen's added time over the peer's in the same state. For sessions,
# "traced" is the service's CPU (user + system, from /proc) per iteration
# while the session ran, its readout at the end included, and "+traced" the
# process's CPU plus it: what the machine spends on the application's
# tracing, against a trace file's process CPU alone.
set -euo pipefail
secs="${1:-10}"
rounds="${2:-3}"
shift $(($# < 2 ? $# : 2))
threads=("$@")
((${#threads[@]})) || threads=(1 8)
mode="${MODE:-loop}"
shared="${VKGEN_SHARED:-$(cd "$(dirname "$0")/../.." && pwd)/../shared}"
variants="none peer vkgen vkgen-file peer-session vkgen-session"
if [ -n "${RAW:-}" ]; then
	# RAW="FILE...": no run, the table of the result lines these files hold
	# (what earlier runs printed on stderr; rounds run in separate calls).
	. "$(dirname "$0")/median.sh"
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	# shellcheck disable=SC2086 # a list of files
	grep -hE '^(none|peer|vkgen|base)[-a-z]* [0-9]+ ' $RAW >"$work/raw"
	grep -q '^base' "$work/raw" && variants="$variants base base-file base-session"
else
	. "$(dirname "$0")/lib.sh"
	. "$(dirname "$0")/tracedlib.sh"
	if [ -n "${VKGEN_PREBUILT:-}" ] && [ -d "$VKGEN_PREBUILT/base-layers" ] || [ -n "${BASE:-}" ]; then
		base_layers
		variants="$variants base base-file base-session"
	fi
	for s in ${SKIP:-}; do variants=$(echo " $variants " | sed "s/ $s / /; s/^ //; s/ \$//"); done
	cat >"$work/session.pbtxt" <<EOF
buffers { size_kb: 131072 fill_policy: RING_BUFFER }
$(layer_sources)
incremental_state_config { clear_period_ms: 1000 }
duration_ms: 600000
EOF

	# traced_cpu: the private traced's CPU so far, in ns.
	traced_cpu() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.0f\n", ($14 + $15) * 1e9 / hz }' "/proc/$traced/stat"; }

	# run VARIANT T: one vkloop process; prints "VARIANT T WALL THREAD PROCESS
	# ITERATIONS BYTES LOSSES SERVICE" (BYTES: trace bytes, 0 without a trace;
	# LOSSES: trace_processor's problem rows, "-" when clean or not checked;
	# SERVICE: traced's CPU in ns during a session, 0 otherwise).
	run() {
		local v=$1 t=$2 lib=$work/layers side=${1%%-*} bytes=0 losses=- ds=1 svc=0
		local -a env=(PERFETTO_PRODUCER_SOCK_NAME="$no_service" VK_ADD_LAYER_PATH="$lib:$peer_layers")
		# A process that hangs (a driver's, a layer's bug) is ended and its
		# variant left out of the round, rather than stopping the benchmark.
		local -a loop=(timeout $((secs * 4 + 60)) "$work/vkloop" --mode "$mode" --seconds "$secs" --threads "$t" --warmup-ms 1000)
		[ -n "${LIVE:-}" ] && loop+=(--live "$LIVE")
		[ "$side" = base ] && env[1]=VK_ADD_LAYER_PATH="$work/base/layers"
		case $side in
		peer) env+=(VK_INSTANCE_LAYERS=VK_LAYER_GOOGLE_DebugMarker:VK_LAYER_GOOGLE_DeviceMemoryReport) ds=2 ;;
		vkgen | base) env+=(VK_INSTANCE_LAYERS=VK_LAYER_VKGEN_DebugMarker:VK_LAYER_VKGEN_DeviceMemoryReport) ;;
		esac
		[ -n "${SMB_KB:-}" ] && env+=(VK_VKGEN_PERFETTO_SMB_KB="$SMB_KB")
		case $v in
		*-session)
			env[0]=PERFETTO_PRODUCER_SOCK_NAME="$service"
			svc=$(traced_cpu)
			session_run "$work/session.pbtxt" "$work/t.pftrace" "$ds" "${env[@]}" -- "${loop[@]}" || return 0
			svc=$(($(traced_cpu) - svc))
			read -r bytes losses < <("$bin/trace_processor_shell" -q /dev/stdin "$work/t.pftrace" 2>/dev/null <<<"
				SELECT name, idx, value, severity FROM stats WHERE name = 'traced_buf_bytes_written'
				OR (severity IN ('error', 'data_loss') AND value > 0);" | tail -n +2 | tr -d '"' | awk -F, '
				$1 == "traced_buf_bytes_written" { b += $3; next }
				{ l = l (l == "" ? "" : ",") $1 "[" $2 "]=" $3 }
				END { print b + 0, l == "" ? "-" : l }')
			rm -f "$work/t.pftrace"
			;;
		*-file)
			rm -f "$work/f.pftrace"
			env -u VK_INSTANCE_LAYERS "${env[@]}" VK_VKGEN_TRACE_FILE="$work/f.pftrace" VK_VKGEN_PERFETTO_SYSTEM=0 \
				"${loop[@]}" >"$work/out" || return 0
			bytes=$(stat -c %s "$work/f.pftrace")
			rm -f "$work/f.pftrace"
			;;
		*) env -u VK_INSTANCE_LAYERS "${env[@]}" "${loop[@]}" >"$work/out" || return 0 ;;
		esac
		awk -v c="$v $t" -v b="$bytes" -v l="${losses:--}" -v svc="$svc" '{
			for (i = 3; i <= 6; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
			print c, f["wall_ns"], f["thread_ns"], f["process_ns"], f["iterations"], b, l, svc
		}' "$work/out"
	}

	echo "machine: $(nproc) CPUs; mode $mode, $secs s per variant, $rounds rounds, threads ${threads[*]}"
	for ((r = 0; r < rounds; r++)); do
		read -ra vs <<<"$variants"
		n=${#vs[@]}
		for t in "${threads[@]}"; do
			echo "round $((r + 1)) threads $t: load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
			for ((i = 0; i < n; i++)); do run "${vs[(i + r) % n]}" "$t" | tee -a "$work/raw" >&2; done
		done
	done
	echo "load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
fi
awk -v variants="$variants" "$awk_median"'
{
	k = $1 " " $2; w[k] = w[k] " " $3; th[k] = th[k] " " $4; p[k] = p[k] " " $5
	if ($7 > 0) bpi[k] = bpi[k] " " $7 / $6
	if ($8 != "-") loss[k] = loss[k] " r" (++nl[k]) ":" $8
	if ($9 > 0) { svc[k] = svc[k] " " $9 / $6; tot[k] = tot[k] " " ($5 + $9 / $6) }
	if (!(($2) in seen)) { seen[$2] = 1; ts[++nt] = $2 }
}
END {
	nv = split(variants, vs, " ")
	printf "%-14s %3s %9s %9s %9s %9s %9s %9s %8s %8s  %s\n", "variant", "thr", "wall ns", "added", "thread", "process",
		"traced", "+traced", "vs peer", "B/iter", "trace_processor losses"
	for (j = 1; j <= nt; j++) {
		t = ts[j]; none = median(w["none " t])
		for (i = 1; i <= nv; i++) {
			k = vs[i] " " t; add = median(w[k]) - none
			peer = vs[i] ~ /session/ ? "peer-session" : "peer"
			padd = median(w[peer " " t]) - none
			ratio = (vs[i] ~ /^(vkgen|base)/ && padd > 0) ? sprintf("%8.2f", add / padd) : sprintf("%8s", "")
			printf "%-14s %3s %9.1f %+9.1f %9.1f %9.1f %9s %9s %s %8s  %s\n", vs[i], t, median(w[k]), add, median(th[k]),
				median(p[k]), k in svc ? sprintf("%.1f", median(svc[k])) : "", k in tot ? sprintf("%.1f", median(tot[k])) : "",
				ratio, k in bpi ? sprintf("%.0f", median(bpi[k])) : "", k in loss ? loss[k] : ""
		}
	}
}' "$work/raw"
