# Sourced by bench/tracesummary/run.sh and drops.sh: makes $work (removed at
# exit unless $KEEP=1) holding layers/, vkstress and vkgen, built from the
# tree or copied from $BIN (a machine without Go), and points the loader at
# them and at lavapipe (or $VK_DRIVER_FILES).
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="$(mktemp -d /tmp/vkgen-bench-summary.XXXXXX)"
[ "${KEEP:-}" = 1 ] || trap 'rm -rf "$work"' EXIT
if [ -n "${BIN:-}" ]; then
	cp -r "$BIN/layers" "$BIN/vkstress" "$BIN/vkgen" "$work/"
else
	"$root/scripts/build-layers.sh" "$work/layers" >/dev/null
	gcc -O2 -I "$root/testdata/vkcommon" -o "$work/vkstress" \
		"$root/testdata/vkstress/vkstress.c" "$root/testdata/vkcommon/vkcommon.c" -lvulkan -ldl
	(cd "$root" && go build -o "$work/vkgen" ./cmd/vkgen)
fi
mkdir -p "$work/xdg"
export VK_DRIVER_FILES="${VK_DRIVER_FILES:-/usr/share/vulkan/icd.d/lvp_icd.x86_64.json}" XDG_RUNTIME_DIR="$work/xdg" NODEVICE_SELECT=1
export VK_ADD_LAYER_PATH="$work/layers"
