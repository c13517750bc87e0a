#!/usr/bin/env bash
# The CPU time of scripts/test.sh's tests, one go test at a time (each as
# test.sh runs it: -race or not, and the -run or -skip of a split package):
# prints "CPU-s wall-s mode package [args]" per go test (CPU: user + system
# of the whole process tree, the build of the test binary included), then
# the total. OUT (default /tmp/test-cpu) keeps each one's go test -json and
# the slowest tests. docs/performance.md ("Test suite") has the figures.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$HOME/.local/go/bin:$PATH"
out=${OUT:-/tmp/test-cpu}
mkdir -p "$out"
/usr/bin/time -o "$out/race-packages.time" -f "%e %U %S" scripts/race-packages.sh >"$out/split"
read -r e u s <"$out/race-packages.time"
printf '%7.1f %6.1f %-5s %s\n' "$(echo "$u + $s" | bc)" "$e" - scripts/race-packages.sh | tee "$out/table"
while read -r mode pkg args; do
	flag=
	[ "$mode" = race ] && flag=-race
	name=$(tr '/' '_' <<<"${pkg#github.com/vkgen/vkgen}.$mode")
	/usr/bin/time -o "$out/$name.time" -f "%e %U %S" go test $flag -count=1 -timeout 20m -json $args "$pkg" >"$out/$name.json" ||
		echo "FAIL $mode $pkg" >&2
	read -r e u s < <(tail -n 1 "$out/$name.time")
	printf '%7.1f %6.1f %-5s %s %s\n' "$(echo "$u + $s" | bc)" "$e" "$mode" "$pkg" "${args:0:20}"
done <"$out/split" | tee -a "$out/table"
awk '{ t += $1 } END { printf "total CPU-s %.1f\n", t }' "$out/table"
