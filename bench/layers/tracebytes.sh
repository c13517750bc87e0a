#!/usr/bin/env bash
# Trace bytes per iteration (issue 31 goal 3): testdata/vkloop's loop mode
# (create a buffer, name, rename, allocate, bind, name the memory, destroy
# both) through the real loader and lavapipe, recorded at two iteration
# counts N1 < N2; bytes per iteration are the difference over N2 - N1, so
# what a trace writes once (descriptors, interning, setup) cancels out.
# Rows:
#   vkgen-file         vkgen's two layers writing a trace file (defaults:
#                      compressed, trace_compress)
#   vkgen-file-plain   the same with trace_compress=0 (plain packets)
#   vkgen-file-nonative  plain, and with vulkan_memory_events=0 (no Perfetto
#                      VulkanMemoryEvent packets: what the peer writes)
#   vkgen-session      vkgen inside a session of a private traced
#   peer-session       the C++ peer layers (../shared/peer) likewise
# A file's bytes are its size and, when plain, its packets counted by
# bench/layers/tracebytes (also printing the bytes per field with
# VERBOSE=1); a session's bytes are traced's traced_buf_bytes_written. Each
# session is lossless by construction (a 512 MiB DISCARD buffer, 32 MiB of
# shared memory per producer as in peer.sh) and checked: trace_processor's
# error and data-loss stats must be clean, or the row says what was lost;
# so must every file's.
# Bytes are deterministic up to handle values and timestamps' lengths, so
# the machine's load does not matter.
# Usage: bench/layers/tracebytes.sh [N1] [N2]   (default 2000 12000)
#   BASE=REV adds the same rows for vkgen's library built at revision REV
#   (or $VKGEN_PREBUILT/base-layers, see lib.sh);
#   KEEP=DIR keeps every trace there (ROW-N.pftrace).
set -euo pipefail
n1="${1:-2000}"
n2="${2:-12000}"
shared="${VKGEN_SHARED:-$(cd "$(dirname "$0")/../.." && pwd)/../shared}"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tracedlib.sh"
(cd "$root" && go build -o "$work/tracebytes" ./bench/layers/tracebytes)
sides="vkgen"
if [ -n "${VKGEN_PREBUILT:-}" ] && [ -d "$VKGEN_PREBUILT/base-layers" ] || [ -n "${BASE:-}" ]; then
	base_layers
	sides="base vkgen"
fi
lossless_config "$work/session.pbtxt"

# measure ROW N: prints "BYTES PACKETS LOSSES" of one vkloop run of N
# iterations (PACKETS "-" for a session, LOSSES "-" when clean).
measure() {
	local row=$1 n=$2 lib=$work/layers ds=1 p=VK_LAYER_VKGEN_
	local -a env=(PERFETTO_PRODUCER_SOCK_NAME="$no_service")
	local -a loop=("$work/vkloop" --mode loop --iterations "$n" --reps 1)
	case $row in base-*) lib=$work/base/layers ;; esac
	case $row in peer-*) p=VK_LAYER_GOOGLE_ ds=2 ;; esac
	env+=(VK_ADD_LAYER_PATH="$lib:$peer_layers" VK_INSTANCE_LAYERS="${p}DebugMarker:${p}DeviceMemoryReport")
	case $row in *-nonative) env+=(VK_VKGEN_VULKAN_MEMORY_EVENTS=0 VK_VKGEN_TRACE_COMPRESS=0) ;; *-plain) env+=(VK_VKGEN_TRACE_COMPRESS=0) ;; esac
	case $row in
	*-session)
		env[0]=PERFETTO_PRODUCER_SOCK_NAME="$service"
		env+=(VK_VKGEN_PERFETTO_SMB_KB=32768)
		session_run "$work/session.pbtxt" "$work/t.pftrace" "$ds" "${env[@]}" -- "${loop[@]}"
		local losses bytes
		losses=$(stats_problems "$work/t.pftrace")
		[ -n "${KEEP:-}" ] && cp "$work/t.pftrace" "$KEEP/$row-$n.pftrace"
		bytes=$("$bin/trace_processor_shell" -q /dev/stdin "$work/t.pftrace" 2>/dev/null <<<"
			SELECT SUM(value) FROM stats WHERE name = 'traced_buf_bytes_written';" | tail -1)
		echo "$bytes - ${losses:--}"
		;;
	*)
		rm -f "$work/f.pftrace"
		env -u VK_INSTANCE_LAYERS "${env[@]}" VK_VKGEN_TRACE_FILE="$work/f.pftrace" VK_VKGEN_PERFETTO_SYSTEM=0 \
			"${loop[@]}" >"$work/out"
		[ -n "${KEEP:-}" ] && cp "$work/f.pftrace" "$KEEP/$row-$n.pftrace"
		# Before the echo: the caller's read returns on it and the next run
		# replaces the file.
		local losses packets=-
		losses=$(stats_problems "$work/f.pftrace")
		if [ "$row" = "${row%-file}" ]; then # plain packets
			if [ -n "${VERBOSE:-}" ] && [ "$n" = "$n2" ]; then "$work/tracebytes" "$work/f.pftrace" "$n" | sed "s/^/  $row: /" >&2; fi
			packets=$("$work/tracebytes" "$work/f.pftrace" | awk '$1 == "packets" { print $2 }')
		fi
		echo "$(stat -c %s "$work/f.pftrace") $packets ${losses:--}"
		;;
	esac
}

echo "loop mode, iterations $n1 and $n2; load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-20s %10s %12s  %s\n' row "B/iter" "packets/iter" "losses"
rows=""
for s in $sides; do rows="$rows $s-file $s-file-plain $s-file-nonative $s-session"; done
for row in $rows peer-session; do
	read -r b1 p1 l1 < <(measure "$row" "$n1")
	read -r b2 p2 l2 < <(measure "$row" "$n2")
	awk -v r="$row" -v b1="$b1" -v b2="$b2" -v p1="$p1" -v p2="$p2" -v n="$((n2 - n1))" -v l="$l1 $l2" 'BEGIN {
		pk = p1 == "-" ? "" : sprintf("%.2f", (p2 - p1) / n)
		printf "%-20s %10.1f %12s  %s\n", r, (b2 - b1) / n, pk, l == "- -" ? "" : l
	}'
done
