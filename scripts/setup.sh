#!/usr/bin/env bash
# Installs what vkgen needs on Debian 12 (or a close derivative): the Vulkan
# loader, headers and registry, lavapipe, the validation layers, an X server
# for headless runs, protoc, a C compiler and the Go toolchain named in go.mod.
# Safe to re-run: it only installs what is missing.
# To add a Debian package, append it to PACKAGES.
set -euo pipefail

PACKAGES=(
	libvulkan1 libvulkan-dev mesa-vulkan-drivers vulkan-validationlayers vulkan-tools
	xvfb xauth protobuf-compiler
	gcc libc6-dev git ca-certificates curl python3 time
)

cd "$(dirname "$0")/.."

missing=()
for p in "${PACKAGES[@]}"; do
	if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
		missing+=("$p")
	fi
done
if ((${#missing[@]})); then
	if [ "$(id -u)" = 0 ]; then
		SUDO=()
	elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
		SUDO=(sudo)
	else
		echo "setup: these Debian packages are missing: ${missing[*]}" >&2
		echo "setup: install them as root:  apt-get install -y ${missing[*]}" >&2
		exit 1
	fi
	echo "setup: installing ${missing[*]}"
	"${SUDO[@]}" apt-get update -q
	DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# Go: Debian's golang is too old for go.mod; fetch the release it names.
want=$(sed -n 's/^go \([0-9.]*\)$/\1/p' go.mod)
export PATH="$PATH:/usr/local/go/bin:$HOME/.local/go/bin"
have=$(go env GOVERSION 2>/dev/null | sed 's/^go//' || true)
if [ -z "$have" ] || [ "$(printf '%s\n%s\n' "$want" "$have" | sort -V | head -1)" != "$want" ]; then
	arch=$(dpkg --print-architecture)
	if [ -w /usr/local ]; then dest=/usr/local; else dest=$HOME/.local; fi
	echo "setup: installing Go $want into $dest/go (found: ${have:-none})"
	mkdir -p "$dest"
	rm -rf "$dest/go"
	curl -fsSL "https://go.dev/dl/go$want.linux-$arch.tar.gz" | tar -C "$dest" -xz
fi
echo "setup: ok ($(go version))"
