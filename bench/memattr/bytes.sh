#!/bin/sh
# Trace bytes per created object with descriptors (issue 34) against a
# baseline commit, in the same run: testdata/vkloop on lavapipe with
# VK_LAYER_VKGEN_DeviceMemoryReport writing a trace file, per mode
# (memory: create, bind, destroy a buffer; loop: create, name, rename,
# allocate, bind, name, destroy, free), the trace's size over the
# iterations.
#
#   bench/memattr/bytes.sh [BASE_REF [ITERATIONS]]   (default main, 20000)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
base=${1:-main}
iters=${2:-20000}
work=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$work/base" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git -C "$root" worktree add --detach "$work/base" "$base" >/dev/null 2>&1
"$work/base/scripts/build-layers.sh" "$work/layers-base" >/dev/null
"$root/scripts/build-layers.sh" "$work/layers-new" >/dev/null
gcc -O2 -I "$root/testdata/vkcommon" -o "$work/vkloop" \
	"$root/testdata/vkloop/vkloop.c" "$root/testdata/vkcommon/vkcommon.c" -lvulkan
icd=$(ls /usr/share/vulkan/icd.d/lvp_icd.*.json | grep "$(uname -m)" | head -1)
echo "mode side bytes iterations bytes_per_iteration"
for mode in memory loop; do
	for side in base new; do
		trace="$work/$mode-$side.pftrace"
		env -i PATH="$PATH" HOME="$HOME" VK_ICD_FILENAMES="$icd" NODEVICE_SELECT=1 \
			VK_ADD_LAYER_PATH="$work/layers-$side" VK_INSTANCE_LAYERS=VK_LAYER_VKGEN_DeviceMemoryReport \
			VK_VKGEN_TRACE_FILE="$trace" "$work/vkloop" --mode "$mode" --iterations "$iters" --reps 1 --warmup-ms 0 >/dev/null
		bytes=$(stat -c %s "$trace")
		echo "$mode $side $bytes $iters $(awk "BEGIN{printf \"%.1f\", $bytes/$iters}")"
	done
done
