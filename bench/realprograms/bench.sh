#!/usr/bin/env bash
# Real programs under the layers (issue 27): vkcube --c FRAMES, a glmark2
# scene on Zink and gfxrecon-replay of a vkcube capture, each with no layer,
# with the vkgen layers writing a trace file, and with the C++ peer layers
# (../shared/peer) inside a session of a private traced, interleaved, ROUNDS
# rounds, on lavapipe under Xvfb. Prints per program and variant the median
# wall and CPU (user + system) seconds, and the CPU added per frame against
# no layer (vkcube and the replay: their frame counts are fixed; glmark2
# runs a fixed time, so its score is printed instead).
# Usage: bench/realprograms/bench.sh [FRAMES] [ROUNDS]   (default 600 3)
set -euo pipefail
frames="${1:-600}"
rounds="${2:-3}"
shared="${VKGEN_SHARED:-$(cd "$(dirname "$0")/../.." && pwd)/../shared}"
. "$(dirname "$0")/../layers/lib.sh"
tar -xJf "$shared/peer/vulkantools-pr39-layers-linux-amd64.tar.xz" -C "$work"
tar -xJf "$shared/perfetto/tools/perfetto-v58.2-linux-amd64.tar.xz" -C "$work"
bin="$work/perfetto-v58.2-linux-amd64/bin"
export VK_ADD_LAYER_PATH="$work/layers:$work/vulkantools-pr39-layers-linux-amd64"

exec 3< <(Xvfb -displayfd 4 -screen 0 1024x768x24 -nolisten tcp 4>&1 >/dev/null 2>&1)
read -r display <&3
export DISPLAY=":$display"
mkdir -p "$work/s"
export PERFETTO_CONSUMER_SOCK_NAME="$work/s/c.sock"
PERFETTO_PRODUCER_SOCK_NAME="$work/s/p.sock" "$bin/tracebox" traced >"$work/traced.log" 2>&1 &
traced=$!
trap 'kill "$traced" 2>/dev/null; pkill -f "Xvfb -displayfd" 2>/dev/null; rm -rf "$work"' EXIT
until [ -S "$work/s/c.sock" ]; do sleep 0.05; done
cat >"$work/session.pbtxt" <<EOF
buffers { size_kb: 262144 fill_policy: DISCARD }
data_sources { config { name: "track_event" track_event_config {
  disabled_categories: "*"
  enabled_categories: "VulkanDebugMarker"
  enabled_categories: "VulkanDeviceMemoryReport" } } }
duration_ms: 600000
EOF
VK_INSTANCE_LAYERS=VK_LAYER_LUNARG_gfxreconstruct GFXRECON_CAPTURE_FILE="$work/cap.gfxr" \
	GFXRECON_CAPTURE_FILE_TIMESTAMP=false vkcube --c "$frames" >/dev/null 2>&1

# run PROGRAM VARIANT: prints "PROGRAM VARIANT WALL CPU SCORE".
run() {
	local prog=$1 variant=$2 pid=
	local -a env=(PERFETTO_PRODUCER_SOCK_NAME="$work/none.sock") cmd
	case $prog in
	vkcube) cmd=(vkcube --c "$frames") ;;
	glmark2) cmd=(glmark2 -s 320x240 -b texture:duration=5) env+=(LIBGL_ALWAYS_SOFTWARE=1 GALLIUM_DRIVER=zink) ;;
	replay) cmd=(gfxrecon-replay "$work/cap.gfxr") ;;
	esac
	case $variant in
	vkgen) env+=(VK_INSTANCE_LAYERS=VK_LAYER_VKGEN_DebugMarker:VK_LAYER_VKGEN_DeviceMemoryReport
		VK_VKGEN_TRACE_FILE="$work/t-%p.pftrace" VK_VKGEN_PERFETTO_SYSTEM=false) ;;
	peer)
		env=(PERFETTO_PRODUCER_SOCK_NAME="$work/s/p.sock" VK_INSTANCE_LAYERS=VK_LAYER_GOOGLE_DebugMarker:VK_LAYER_GOOGLE_DeviceMemoryReport "${env[@]:1}")
		pid=$("$bin/tracebox" perfetto --txt -c "$work/session.pbtxt" -o "$work/p.pftrace" --background-wait 2>>"$work/perfetto.log")
		;;
	esac
	env "${env[@]}" /usr/bin/time -f "%e %U %S" -o "$work/time" "${cmd[@]}" >"$work/out" 2>&1
	[ -z "$pid" ] || { kill -INT "$pid"; while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done; }
	rm -f "$work"/t-*.pftrace "$work/p.pftrace"
	local score
	score=$(sed -n 's/.*glmark2 Score: *\([0-9]*\).*/\1/p; s/^Replay FPS: \([0-9.]*\) fps.*/\1/p' "$work/out" | head -1)
	read -r wall user sys <"$work/time"
	echo "$prog $variant $wall $(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }') ${score:--}"
}

for ((r = 0; r < rounds; r++)); do
	for prog in vkcube glmark2 replay; do
		for v in none vkgen peer; do run "$prog" "$v"; done
	done
done >"$work/results"
awk "$awk_median"'
{ k = $1 " " $2; wall[k] = wall[k] " " $3; cpu[k] = cpu[k] " " $4; score[k] = score[k] " " $5 }
END {
	printf "%-8s %-6s %9s %9s %9s %16s\n", "program", "layers", "wall s", "CPU s", "score", "+CPU us/frame"
	n = split("vkcube glmark2 replay", progs, " ")
	for (i = 1; i <= n; i++) for (j = 1; j <= 3; j++) {
		v = substr("none vkgenpeer ", (j - 1) * 5 + 1, 5); gsub(/ /, "", v)
		k = progs[i] " " v; base = median(cpu[progs[i] " none"])
		add = progs[i] == "glmark2" ? "-" : sprintf("%.1f", (median(cpu[k]) - base) * 1e6 / '"$frames"')
		printf "%-8s %-6s %9.2f %9.2f %9s %16s\n", progs[i], v, median(wall[k]), median(cpu[k]), median(score[k]), add
	}
}' "$work/results"
