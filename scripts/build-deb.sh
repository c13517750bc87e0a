#!/usr/bin/env bash
# Builds the Debian package vkgen_<version>_<arch>.deb with dpkg-deb: the
# layer library and the DebugMarker and DeviceMemoryReport manifests
# (explicit, and implicit ones switched on by VKGEN_DEBUGMARKER=1 /
# VKGEN_MEMREPORT=1), the vkgen binary and its shell completions.
# Usage: scripts/build-deb.sh [OUTDIR]   (default build/deb); GOARCH=arm64
# builds the arm64 package on x86-64 (scripts/cross.sh).
# Install: apt-get install ./build/deb/vkgen_*.deb (docs/install.md).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/build/deb}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
cd "$root"
scripts/setup.sh >/dev/null
export PATH="/usr/local/go/bin:$HOME/.local/go/bin:$PATH"
. scripts/cross.sh

arch=$goarch # Go and Debian name amd64 and arm64 alike
multiarch=$("${CC:-gcc}" -print-multiarch)
if rev=$(git rev-parse --short=12 HEAD 2>/dev/null); then
	version="0.0~git$(git log -1 --format=%cd --date=format:%Y%m%d%H%M%S).$rev"
else
	version="0.0~dev"
fi

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
pkg="$stage/root"
scripts/build-layers.sh "$stage/layers" >/dev/null
mkdir -p "$pkg/usr/bin"
go build -trimpath -ldflags="-X main.version=$version" -o "$pkg/usr/bin/vkgen" ./cmd/vkgen
# The packaging steps run a vkgen for this machine, whatever the package's.
GOARCH=$(go env GOHOSTARCH) CC=gcc go build -o "$stage/vkgen" ./cmd/vkgen
"$stage/vkgen" install-layers --from "$stage/layers" --layers debugmarker,memreport \
	--prefix /usr --libdir "/usr/lib/$multiarch/vkgen" --destdir "$pkg" >/dev/null

comp="$pkg/usr/share"
mkdir -p "$comp/bash-completion/completions" "$comp/zsh/vendor-completions" "$comp/fish/vendor_completions.d"
"$stage/vkgen" completion bash >"$comp/bash-completion/completions/vkgen"
"$stage/vkgen" completion zsh >"$comp/zsh/vendor-completions/_vkgen"
"$stage/vkgen" completion fish >"$comp/fish/vendor_completions.d/vkgen.fish"

doc="$pkg/usr/share/doc/vkgen"
mkdir -p "$doc"
cat >"$doc/copyright" <<EOT
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: vkgen
Comment: Built from the vkgen source tree at revision ${rev:-unknown}.
EOT

mkdir -p "$pkg/DEBIAN"
cat >"$pkg/DEBIAN/control" <<EOT
Package: vkgen
Version: $version
Architecture: $arch
Maintainer: vkgen developers <vkgen@localhost>
Installed-Size: $(du -sk --exclude=DEBIAN "$pkg" | cut -f1)
Depends: libc6, libvulkan1
Section: devel
Priority: optional
Description: Vulkan layers that record object names and device memory to Perfetto
 The DebugMarker and DeviceMemoryReport Vulkan layers, written in Go, record
 the names applications give Vulkan objects and the device memory of every
 named buffer and image into Perfetto traces. Enable them per application
 with VKGEN_DEBUGMARKER=1 or VKGEN_MEMREPORT=1 (implicit layers), or by name
 with VK_INSTANCE_LAYERS. Also ships vkgen, the Vulkan registry code
 generator and trace summariser.
EOT
find "$pkg" -type d -exec chmod 0755 {} +
rm -f "$out"/vkgen_*_"$arch".deb
deb="$out/vkgen_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$pkg" "$deb" >/dev/null
echo "$deb"
