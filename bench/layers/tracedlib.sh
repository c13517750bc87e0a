# Sourced by bench/layers/peer.sh and sustained.sh after lib.sh: unpacks
# Perfetto's tools ($bin) and the C++ peer layers into $work, builds
# testdata/vkloop ($work/vkloop; or copies $VKGEN_PREBUILT/vkloop), starts a private traced (killed at exit)
# and defines the session helpers below. Needs $shared (../shared).
for f in peer/vulkantools-pr39-layers-linux-amd64.tar.xz perfetto/tools/perfetto-v58.2-linux-amd64.tar.xz; do
	[ -f "$shared/$f" ] || { echo "$0: $shared/$f missing (set VKGEN_SHARED)" >&2; exit 1; }
done
tar -xJf "$shared/peer/vulkantools-pr39-layers-linux-amd64.tar.xz" -C "$work"
tar -xJf "$shared/perfetto/tools/perfetto-v58.2-linux-amd64.tar.xz" -C "$work"
bin="$work/perfetto-v58.2-linux-amd64/bin"
if [ -n "${VKGEN_PREBUILT:-}" ]; then
	cp "$VKGEN_PREBUILT/vkloop" "$work/vkloop"
else
	gcc -O2 -I "$root/testdata/vkcommon" -o "$work/vkloop" \
		"$root/testdata/vkloop/vkloop.c" "$root/testdata/vkcommon/vkcommon.c" -lvulkan -lpthread
fi
peer_layers="$work/vulkantools-pr39-layers-linux-amd64"

# One private traced for the sessions; "no service" runs point the layers
# at a socket nobody listens on ($no_service).
mkdir -p "$work/s"
mkfifo "$work/go"
export PERFETTO_CONSUMER_SOCK_NAME="$work/s/c.sock"
service="$work/s/p.sock"
no_service="$work/none.sock"
PERFETTO_PRODUCER_SOCK_NAME="$service" "$bin/tracebox" traced >"$work/traced.log" 2>&1 &
traced=$!
trap 'kill "$traced" 2>/dev/null; rm -rf "$work"' EXIT
until [ -S "$work/s/c.sock" ]; do
	kill -0 "$traced" || { cat "$work/traced.log"; exit 1; }
	sleep 0.05
done

# session_run CONFIG TRACE SOURCES ENV... -- VKLOOP...: vkgen's vkloop
# (--gate) inside a new session of CONFIG written to TRACE, its output in
# $work/out; the timed loop starts once SOURCES data source instances
# joined (each layer library's producer), and the session is stopped while
# the layers are alive to flush into it.
session_run() {
	local config=$1 trace=$2 sources=$3 pid app
	local -a env=()
	shift 3
	while [ "$1" != -- ]; do env+=("$1"); shift; done
	shift
	rm -f "$trace"
	pid=$("$bin/tracebox" perfetto --txt -c "$config" -o "$trace" --background-wait 2>>"$work/perfetto.log")
	env -u VK_INSTANCE_LAYERS "${env[@]}" "$@" --gate <"$work/go" >"$work/out" &
	app=$!
	exec 3>"$work/go"
	wait_sources "$sources"
	echo go >&3
	until grep -q '^vkloop ' "$work/out"; do
		# An exited vkloop is a zombie until waited for: kill -0 finds it.
		if [ "$(awk '{ print $3 }' "/proc/$app/stat" 2>/dev/null)" != S ] && ! kill -0 "$app" 2>/dev/null ||
			[ "$(awk '{ print $3 }' "/proc/$app/stat" 2>/dev/null)" = Z ]; then
			kill -TERM "$pid"
			exec 3>&-
			wait "$app" || true
			echo "$0: vkloop ended before printing its figures" >&2
			return 1
		fi
		sleep 0.05
	done
	kill -TERM "$pid"
	while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
	echo end >&3
	exec 3>&-
	wait "$app"
}
# wait_sources N: waits (at most 60 s) until the running session has N
# data source instances, i.e. every layer library's producer joined it.
wait_sources() {
	local n i
	for ((i = 0; i < 600; i++)); do
		n=$("$bin/tracebox" perfetto --query 2>/dev/null | awk '/^TRACING SESSIONS/ { s = 1 } s && $3 == "STARTED" { print $7 }')
		[ "${n:-0}" -ge "$1" ] && return
		sleep 0.1
	done
	echo "$0: the layers did not join the session within 60 s (data sources: ${n:-none}, want $1)" >&2
	exit 1
}
# stats_problems TRACE: trace_processor's error and data-loss stats with a
# value, "name[idx]=value" separated by spaces (empty when clean).
stats_problems() {
	"$bin/trace_processor_shell" -q /dev/stdin "$1" 2>/dev/null <<<"SELECT name, idx, value FROM stats
		WHERE severity IN ('error', 'data_loss') AND value > 0;" | tail -n +2 |
		tr -d '"' | awk -F, '{ printf "%s%s[%s]=%s", (NR > 1 ? " " : ""), $1, $2, $3 }'
}

# layer_sources: the track_event data source with the layers' categories.
layer_sources() {
	cat <<'EOF'
data_sources { config { name: "track_event" track_event_config {
  disabled_categories: "*"
  enabled_categories: "VulkanDebugMarker"
  enabled_categories: "VulkanDeviceMemoryReport" } } }
EOF
}

# lossless_config FILE: writes a session config that loses none of the
# layers' events. The peer's Perfetto SDK takes the service's default shared
# memory buffer and drops events when it fills; 32 MiB (traced's maximum)
# for its producers (named after argv[0]) avoids that. vkgen's producer
# brings its own buffer: run it with the same 32 MiB
# (VK_VKGEN_PERFETTO_SMB_KB=32768).
lossless_config() {
	cat >"$1" <<EOF
buffers { size_kb: 524288 fill_policy: DISCARD }
$(layer_sources)
producers { producer_name: "$work/vkloop" shm_size_kb: 32768 }
duration_ms: 600000
EOF
}

# base_layers: vkgen's library in $work/base/layers, built at revision $BASE
# (or copied from $VKGEN_PREBUILT/base-layers when that exists).
base_layers() {
	mkdir -p "$work/base"
	if [ -n "${VKGEN_PREBUILT:-}" ] && [ -d "$VKGEN_PREBUILT/base-layers" ]; then
		cp -r "$VKGEN_PREBUILT/base-layers" "$work/base/layers"
		return
	fi
	mkdir -p "$work/base/src"
	git -C "$root" archive "$BASE" | tar -x -C "$work/base/src"
	"$work/base/src/scripts/build-layers.sh" "$work/base/layers" >/dev/null
}
