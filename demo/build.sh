#!/usr/bin/env bash
# Builds the demo Vulkan program with gcc against the system loader.
# Usage: demo/build.sh [OUT] (default build/demo/demo).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/build/demo/demo}"
mkdir -p "$(dirname "$out")"
gcc -O2 -Wall -I "$root/testdata/vkcommon" -o "$out" "$root/demo/demo.c" "$root/testdata/vkcommon/vkcommon.c" -lvulkan
echo "built $out"
