# Sourced by the layer benchmarks (bench/layers/run.sh, compare.sh, peer.sh,
# layer/debugmarker/bench.sh): builds the layer library and testdata/vkprog
# into a temporary $work (removed at exit), points the loader at lavapipe and
# that library, and sets $awk_median, the awk function median(" v1 v2 ...").
# On a machine without Go (the GPU machine of docs/performance.md),
# $VKGEN_PREBUILT names a folder holding what was built elsewhere: layers/
# (and base-layers/, vkloop for the scripts that use them), and a driver
# other than lavapipe is chosen by setting VK_ICD_FILENAMES beforehand.
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
if [ -n "${VKGEN_PREBUILT:-}" ]; then
	cp -r "$VKGEN_PREBUILT/layers" "$work/layers"
else
	"$root/scripts/build-layers.sh" "$work/layers" >/dev/null
	gcc -O2 -I "$root/testdata/vkcommon" -o "$work/vkprog" \
		"$root/testdata/vkprog/vkprog.c" "$root/testdata/vkcommon/vkcommon.c" -lvulkan -ldl
fi
mkdir -p "$work/xdg"
export VK_ICD_FILENAMES="${VK_ICD_FILENAMES:-/usr/share/vulkan/icd.d/lvp_icd.x86_64.json}" XDG_RUNTIME_DIR="$work/xdg" NODEVICE_SELECT=1
export VK_ADD_LAYER_PATH="$work/layers"
. "$root/bench/layers/median.sh"
