#!/usr/bin/env bash
# The tests a change must pass, in a few minutes: set-up, formatting, vet,
# staticcheck, go mod tidy, the unit and integration tests (the fuzz
# targets' seed corpora included: they run as tests) with the race detector
# wherever a test can race (scripts/race-packages.sh says which; audit's
# resident-set bounds need it off). scripts/test-long.sh runs the rest
# of what CI runs (.ci/run runs both): the real programs, the Debian
# package, arm64 under qemu and the fuzzing. Tests that need ../shared skip
# when it is absent.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export PATH="/usr/local/go/bin:$HOME/.local/go/bin:$PATH" # the Go setup.sh installed wins

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then
	echo "not gofmt'd:" >&2
	echo "$unformatted" >&2
	exit 1
fi

echo "== go vet"
go vet ./...

echo "== staticcheck"
"$(go env GOPATH)/bin/staticcheck" ./...

echo "== go mod tidy"
go mod tidy -diff

echo "== go test: -race where a test binary runs goroutines, threads or processes, without it where it cannot race (scripts/race-packages.sh); all at once"
split=$(scripts/race-packages.sh)
# The packages whose tests take longest start first (go test starts them in
# the order given): CPU seconds of the tests, docs/performance.md.
first="layer/memreport/sql docs layer/memreport layer/debugmarker internal/htmlcheck layer/memreport/tracecheck layer audit gen/objtypes gen/cabi gen/pipeline"
pkgs() { # MODE: the packages of MODE run whole, the longest first
	local all
	all=$(awk -v m="$1" '$1 == m && NF == 2 { print $2 }' <<<"$split")
	for p in $first; do grep -xF "github.com/vkgen/vkgen/$p" <<<"$all" || true; done
	grep -vxF "$(printf 'github.com/vkgen/vkgen/%s\n' $first)" <<<"$all" || true
}
pids=()
# a package some of whose tests need -race: those with it, the others without
while read -r mode pkg args; do
	[ -n "$args" ] || continue
	if [ "$mode" = race ]; then go test -race -count=1 "$args" "$pkg" & else go test -count=1 "$args" "$pkg" & fi
	pids+=($!)
done <<<"$split"
go test -race -count=1 $(pkgs race) &
pids+=($!)
go test -count=1 $(pkgs plain) &
pids+=($!)
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
[ $status = 0 ]

# audit's resident-set bounds skip under the race detector (its shadow
# memory is resident too): they ran above unless audit is in the race set.
if grep -qx 'race github.com/vkgen/vkgen/audit' <<<"$split"; then
	echo "== memory bounds, without the race detector"
	go test -count=1 -run 'Memory' ./audit
fi

echo "== scripts/test.sh: all passed"
