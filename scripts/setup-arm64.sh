#!/usr/bin/env bash
# Installs what building for and testing on linux/arm64 from an x86-64 Debian
# 12 needs (scripts/test-arm64.sh): Debian's cross gcc, arm64's Vulkan loader,
# headers and lavapipe through multiarch, and qemu-user-static registered with
# binfmt_misc so arm64 programs run transparently. scripts/setup.sh calls it.
# Safe to re-run. It never removes or downgrades a package of the host
# (--no-remove: apt aborts instead).
set -euo pipefail
[ "$(dpkg --print-architecture)" = amd64 ] || exit 0

PACKAGES=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static binfmt-support
	libvulkan-dev:arm64 mesa-vulkan-drivers:arm64 vulkan-validationlayers:arm64 libxcb1-dev:arm64)

if [ "$(id -u)" = 0 ]; then SUDO=(); else SUDO=(sudo -n); fi
missing=()
for p in "${PACKAGES[@]}"; do
	if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
		missing+=("$p")
	fi
done
if ((${#missing[@]})); then
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		echo "setup-arm64: adding the arm64 architecture to dpkg"
		"${SUDO[@]}" dpkg --add-architecture arm64
	fi
	echo "setup-arm64: installing ${missing[*]}"
	"${SUDO[@]}" apt-get update -q
	DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -q --no-install-recommends --no-remove "${missing[@]}"
fi

# binfmt_misc may be unmounted in a container; qemu-user-static registered
# itself only if it was mounted when the package was installed.
if [ ! -e /proc/sys/fs/binfmt_misc/status ]; then
	"${SUDO[@]}" mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
fi
if [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
	"${SUDO[@]}" update-binfmts --enable qemu-aarch64
fi
