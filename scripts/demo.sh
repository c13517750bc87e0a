#!/usr/bin/env bash
# The main job end to end on this machine: set up, build vkgen, generate every
# output from the system registry (libvulkan-dev's vk.xml), and print the
# debug-report -> object-type tables. Outputs go to build/demo/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export PATH="$PATH:/usr/local/go/bin:$HOME/.local/go/bin"

registry=${VK_REGISTRY:-/usr/share/vulkan/registry/vk.xml}
mkdir -p build/demo
go build -o build/vkgen ./cmd/vkgen

# Into _generated: it holds Go packages, and Go skips folders whose names
# start with "_", so `go build ./...` and the tests never see this copy.
rm -rf build/demo/generated # the name older versions used
echo "== vkgen generate --registry $registry --out build/demo/_generated"
build/vkgen generate --registry "$registry" --out build/demo/_generated

echo "== vkgen tables --registry $registry"
build/vkgen tables --registry "$registry"

# The DeviceMemoryReport path end to end: build the layer library and the demo
# program, run the demo on lavapipe with DebugMarker + DeviceMemoryReport and
# a trace, and print the memory summary (demo/run.sh; see docs/memreport.md).
echo "== scripts/build-layers.sh build/layers"
scripts/build-layers.sh build/layers
demo/build.sh build/demo/demo
demo/run.sh build/demo/memreport
