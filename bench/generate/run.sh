#!/usr/bin/env bash
# Benchmark: wall time and peak RSS of `vkgen generate` (all outputs, built
# binary) against Khronos's own generator producing vulkan_core.h
# (/usr/share/vulkan/registry/genvk.py from libvulkan-dev), side by side on
# the same registry. Prints a markdown table for docs/performance.md.
#
# usage: bench/generate/run.sh [RUNS]      (default 5 runs each; median wall, max RSS)
#
# genvk.py imports doc generators that Debian does not ship; minimal stand-in
# modules are written to a temporary directory at run time so the import
# succeeds (only COutputGenerator is used for vulkan_core.h).
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-5}
export PATH="$PATH:/usr/local/go/bin:$HOME/.local/go/bin"
khronos=/usr/share/vulkan/registry
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time missing (scripts/setup.sh installs package time)" >&2; exit 2; }
[ -f "$khronos/genvk.py" ] || { echo "bench: $khronos/genvk.py missing (package libvulkan-dev)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/vkgen" ./cmd/vkgen

stubs=$tmp/stubs
mkdir -p "$stubs"
stub() { # module class...
	local mod=$1
	shift
	for c in "$@"; do printf 'class %s:\n    def __init__(self, *a, **k): pass\n' "$c"; done >"$stubs/$mod.py"
}
stub docgenerator DocGeneratorOptions DocOutputGenerator
stub extensionmetadocgenerator ExtensionMetaDocGeneratorOptions ExtensionMetaDocOutputGenerator
stub interfacedocgenerator InterfaceDocGenerator
stub spirvcapgenerator SpirvCapabilityOutputGenerator
stub hostsyncgenerator HostSynchronizationOutputGenerator
stub formatsgenerator FormatsOutputGenerator
stub pygenerator PyOutputGenerator
stub rubygenerator RubyOutputGenerator
stub validitygenerator ValidityOutputGenerator
cat >"$stubs/reflib.py" <<'PY'
import sys
def logDiag(*a): pass
def logWarn(*a): print(*a, file=sys.stderr)
def logErr(*a):
    print(*a, file=sys.stderr)
    sys.exit(1)
def setLogFile(*a): pass
PY

# once CMD...: runs CMD once in a fresh output dir; prints "wall_s rss_kb",
# or "failed" (the log is kept in $tmp/failed.log).
once() {
	rm -rf "$tmp/out" && mkdir -p "$tmp/out"
	if ! /usr/bin/time -f '%e %M' -o "$tmp/time" "$@" >"$tmp/log" 2>&1; then
		cp "$tmp/log" "$tmp/failed.log"
		echo failed
		return
	fi
	cat "$tmp/time"
}

median() { sort -g | sed -n "$(((runs + 1) / 2))p"; }

version_of() { sed -n 's/^#define <name>VK_HEADER_VERSION<\/name> \([0-9]*\).*/\1/p' "$1" | head -1; }

echo "| registry | tool | median wall (s) | peak RSS (MB) | speed-up |"
echo "|---|---|---:|---:|---:|"
registries=("$khronos/vk.xml")
shared=$(cd .. && pwd)/shared/vkregistry/1.4.359/vk.xml
[ -f "$shared" ] && registries+=("$shared")
for reg in "${registries[@]}"; do
	name="VK_HEADER_VERSION $(version_of "$reg"): $reg"
	# vkgen and genvk.py alternate, so load from elsewhere hits both alike.
	vws=() kws=() vm=0 km=0 kw="" vw=""
	for ((i = 0; i < runs; i++)); do
		read -r w m <<<"$(once "$tmp/vkgen" generate --quiet --registry "$reg" --out "$tmp/out")"
		if [ "$w" = failed ]; then
			vw=failed
			break
		fi
		vws+=("$w")
		((m > vm)) && vm=$m
		[ "$kw" = failed ] && continue
		read -r w m <<<"$(PYTHONPATH="$stubs:$khronos" once python3 "$khronos/genvk.py" -registry "$reg" -o "$tmp/out" vulkan_core.h)"
		if [ "$w" = failed ]; then
			kw=failed
			cp "$tmp/failed.log" "$tmp/genvk-failed.log"
			continue
		fi
		kws+=("$w")
		((m > km)) && km=$m
	done
	[ "$vw" = failed ] || vw=$(printf '%s\n' "${vws[@]}" | median)
	[ "$kw" = failed ] || kw=$(printf '%s\n' "${kws[@]}" | median)
	if [ "$vw" = failed ]; then
		echo "bench: vkgen failed on $reg:" >&2
		cat "$tmp/failed.log" >&2
		exit 1
	fi
	if [ "$kw" = failed ]; then
		echo "| $name | vkgen generate | $vw | $((vm / 1024)) | |"
		echo "| $name | genvk.py vulkan_core.h | cannot read this registry: $(tail -1 "$tmp/genvk-failed.log") | | |"
	else
		echo "| $name | vkgen generate | $vw | $((vm / 1024)) | $(echo "$kw $vw" | awk '{ printf "%.1fx", $1 / ($2 > 0 ? $2 : 0.005) }') |"
		echo "| $name | genvk.py vulkan_core.h | $kw | $((km / 1024)) | 1x |"
	fi
done
echo
echo "Runs per cell: $runs. Machine: $(nproc) CPU(s), $(uname -m), $(go version | cut -d' ' -f3), $(python3 --version)."
