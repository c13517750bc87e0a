#!/usr/bin/env bash
# Installs what vkgen needs on Debian 12 (or a close derivative): the Vulkan
# loader, headers and registry, lavapipe, the validation layers, an X server
# for headless runs, protoc, a C compiler and the Go toolchain named in go.mod;
# on x86-64 also the arm64 cross compiler, qemu-user and arm64's Vulkan.
# Safe to re-run: it only installs what is missing.
# To add a Debian package, append it to PACKAGES.
set -euo pipefail

PACKAGES=(
	libvulkan1 libvulkan-dev mesa-vulkan-drivers vulkan-validationlayers vulkan-tools
	xvfb xauth protobuf-compiler libprotobuf32 zlib1g xz-utils
	gcc libc6-dev libxcb1-dev git ca-certificates curl python3 time
	# third-party programs and layers of layer/realprograms
	mesa-utils glmark2-x11 mangohud vkbasalt gfxreconstruct
	# the HTML memory report is checked in headless Chromium
	chromium
)
# On x86-64, cross-building for arm64 and running its tests under qemu-user
# (scripts/test-arm64.sh): Debian's cross gcc and arm64's Vulkan through
# multiarch. apt-get runs with --no-remove, so it aborts rather than remove or
# replace a package of the host.
if [ "$(dpkg --print-architecture)" = amd64 ]; then
	PACKAGES+=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static binfmt-support
		libvulkan-dev:arm64 mesa-vulkan-drivers:arm64 vulkan-validationlayers:arm64 libxcb1-dev:arm64)
fi

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
	if [[ " ${missing[*]}" == *:arm64* ]] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
		echo "setup: adding the arm64 architecture to dpkg"
		"${SUDO[@]}" dpkg --add-architecture arm64
	fi
	echo "setup: installing ${missing[*]}"
	"${SUDO[@]}" apt-get update -q
	DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -q --no-install-recommends --no-remove "${missing[@]}"
fi
# qemu-user-static registers itself with binfmt_misc only if that was mounted
# when it was installed (a container may not mount it).
if [ -e /usr/libexec/qemu-binfmt/aarch64-binfmt-P ] && [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
	if [ "$(id -u)" = 0 ]; then
		[ -e /proc/sys/fs/binfmt_misc/status ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
		update-binfmts --enable qemu-aarch64
	else
		echo "setup: arm64 programs will not run: as root, mount binfmt_misc and run update-binfmts --enable qemu-aarch64" >&2
	fi
fi

# Go: Debian 12's golang-go (1.19) is older than go.mod and predates
# GOTOOLCHAIN. The release go.mod names is published on the Go module proxy as
# the module golang.org/toolchain (what GOTOOLCHAIN switching downloads), so
# fetch that with the go command, checksum-verified, and unpack it as GOROOT.
# The bootstrap go is any go already on PATH, else Debian's golang package
# unpacked into a temporary folder (not installed, so its /usr/bin/go never
# shadows the real one). Nothing is fetched from anywhere but Debian and the
# module proxy.
want=$(sed -n 's/^go \([0-9.]*\)$/\1/p' go.mod)
export PATH="$PATH:/usr/local/go/bin:$HOME/.local/go/bin"
have=$(GOTOOLCHAIN=local go env GOVERSION 2>/dev/null | sed 's/^go//' || true)
if [ -z "$have" ] || [ "$(printf '%s\n%s\n' "$want" "$have" | sort -V | head -1)" != "$want" ]; then
	arch=$(dpkg --print-architecture)
	if [ -w /usr/local ]; then dest=/usr/local; else dest=$HOME/.local; fi
	echo "setup: installing Go $want into $dest/go from the module proxy (found: ${have:-none})"
	tmp=$(mktemp -d)
	trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
	boot=$(command -v go || true)
	if [ -z "$boot" ]; then
		deb=$(apt-cache depends golang-go | sed -n 's/^ *Depends: \(golang-1\.[0-9]*-go\)$/\1/p' | head -1)
		if [ -z "$deb" ]; then
			echo "setup: no Go found and apt-cache knows no golang-go; run apt-get update, or install Go $want by hand" >&2
			exit 1
		fi
		(cd "$tmp" && apt-get download -q "$deb" >/dev/null 2>&1) || {
			echo "setup: cannot download Debian's $deb (run apt-get update?)" >&2
			exit 1
		}
		dpkg-deb -x "$tmp"/"$deb"_*.deb "$tmp/boot"
		boot=$(echo "$tmp"/boot/usr/lib/go-*/bin/go)
	fi
	mod=golang.org/toolchain@v0.0.1-go$want.linux-$arch
	mkdir -p "$tmp/empty"
	dir=$(cd "$tmp/empty" && env -u GOROOT GOFLAGS= GO111MODULE=on GOTOOLCHAIN=local \
		GOMODCACHE="$tmp/mod" GOPATH="$tmp/gopath" GOCACHE="$tmp/cache" \
		"$boot" mod download -json "$mod" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
	if [ -z "$dir" ] || [ ! -f "$dir/bin/go" ]; then
		echo "setup: the module proxy did not provide $mod (GOPROXY=$("$boot" env GOPROXY))" >&2
		exit 1
	fi
	mkdir -p "$dest"
	rm -rf "$dest/go"
	cp -r "$dir" "$dest/go"
	# Module zips unpack read-only and without execute bits.
	chmod -R u+w "$dest/go"
	chmod +x "$dest/go/bin/"* "$dest/go/pkg/tool/"*/*
fi
# Put the toolchain first so an older go elsewhere on PATH cannot win.
for d in /usr/local/go/bin "$HOME/.local/go/bin"; do
	if [ -x "$d/go" ]; then export PATH="$d:$PATH"; break; fi
done
# staticcheck, pinned, from the Go module proxy; scripts/test.sh runs it.
staticcheck_version=v0.8.2
if ! "$(go env GOPATH)/bin/staticcheck" -version 2>/dev/null | grep -q "(${staticcheck_version#v})"; then
	echo "setup: installing staticcheck $staticcheck_version"
	go install "honnef.co/go/tools/cmd/staticcheck@$staticcheck_version"
fi
echo "setup: ok ($(GOTOOLCHAIN=local go version), $("$(go env GOPATH)/bin/staticcheck" -version))"
