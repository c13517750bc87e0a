#!/usr/bin/env bash
# Builds libVkLayer_vkgen.so (every project layer, one Go runtime) and copies
# one manifest per layer next to it. Usage: scripts/build-layers.sh [OUTDIR]
# (default build/layers). Enable with VK_ADD_LAYER_PATH=OUTDIR and
# VK_INSTANCE_LAYERS=VK_LAYER_VKGEN_example (see docs/layers.md).
# GOARCH=arm64 cross-builds for linux/arm64 (scripts/cross.sh).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/build/layers}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
cd "$root"
. scripts/cross.sh
go build -buildmode=c-shared -trimpath ${VKGEN_BUILD_TAGS:+-tags "$VKGEN_BUILD_TAGS"} \
	-ldflags="-extldflags=-Wl,--version-script=$root/layer/vklayers/exports.map" \
	-o "$out/libVkLayer_vkgen.so" ./layer/vklayers
rm -f "$out/libVkLayer_vkgen.h" # cgo's export header: no public Go API
# Every layer package the library blank-imports contributes its manifest,
# installed without the generated-file infix (VkLayer_vkgen_<symbol>.json).
# One go list for all their folders: each costs about 0.13 CPU s, as much as
# the rest of a rebuild with nothing changed.
while read -r dir; do
	for m in "$dir"/VkLayer_vkgen_*.gen.json; do
		[ -e "$m" ] && cp "$m" "$out/$(basename "$m" .gen.json).json"
	done
done < <(go list -f '{{.Dir}}' $(go list -f '{{join .Imports " "}}' ./layer/vklayers))
echo "built $out/libVkLayer_vkgen.so and manifests:" $(cd "$out" && ls VkLayer_vkgen_*.json)
