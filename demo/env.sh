# Sourced by demo/run.sh and demo/bench.sh, which run prebuilt binaries:
# sets $root, $layers ($LAYER_DIR, default build/layers) and $demo ($DEMO,
# default build/demo/demo), and selects lavapipe when neither
# VK_DRIVER_FILES nor VK_ICD_FILENAMES names a driver.
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
layers="${LAYER_DIR:-$root/build/layers}"
demo="${DEMO:-$root/build/demo/demo}"
if [ -z "${VK_DRIVER_FILES:-}${VK_ICD_FILENAMES:-}" ]; then
	export VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json
	export NODEVICE_SELECT=1 # keep Mesa's device-select layer out of the lavapipe run
fi
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
