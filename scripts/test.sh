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
jobs=${JOBS:-$(nproc)}

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

echo "== go test: -race where a test binary runs goroutines, threads or processes, without it where it cannot race (scripts/race-packages.sh); longest first, $jobs at a time"
# The lines of race-packages.sh run as go tests queued longest first, JOBS
# at a time (default: one per CPU): on 2 CPUs about a minute less than
# starting them all at once, which ran 20 test binaries side by side and
# cost a third more CPU in page faults and cache misses. First the go tests
# named here, longest first (CPU seconds alone: docs/performance.md "Test
# suite", scripts/test-cpu.sh); then the other race lines, then the plain
# ones, whole packages five to a go test (each go test costs its go command
# about 0.25 CPU s).
first="race docs
race perfetto
race layer/memreport
race cmd/vkgen
plain cmd/vkgen
race layer/memreport/tracesummary
race layer/memreport/sql
race perfetto/system/acceptance
plain audit
race objectnames
race layer/tracing
plain perfetto/decode
race layer/vklayers
race layer/debugmarker
race internal/htmlcheck
plain registry"
split=$(scripts/race-packages.sh)
queue=$(awk -v first="$first" '
	BEGIN { n = split(first, f, "\n"); for (i = 1; i <= n; i++) rank["github.com/vkgen/vkgen/" substr(f[i], index(f[i], " ") + 1) " " substr(f[i], 1, index(f[i], " ") - 1)] = i }
	{ k = $2 " " $1; seen[k] = 1 }
	k in rank { line[rank[k]] = $0; next }
	NF > 2 { rest[$1] = rest[$1] $0 "\n"; next }
	{ group[$1] = group[$1] " " $2; if (++size[$1] == 5) { rest[$1] = rest[$1] $1 group[$1] "\n"; group[$1] = ""; size[$1] = 0 } }
	END {
		for (k in rank) if (!(k in seen)) { print "test.sh: first names " k ", which race-packages.sh does not list" > "/dev/stderr"; exit 1 }
		for (i = 1; i <= n; i++) print line[i]
		for (m in group) if (size[m]) rest[m] = rest[m] m group[m] "\n"
		printf "%s%s", rest["race"], rest["plain"]
	}' <<<"$split")
gotest() { # MODE PACKAGES... [FLAGS]: a line of race-packages.sh, or a group of them
	local mode=$1
	shift
	# -vet=off: go vet ./... ran above, with every check go test's subset
	# has; -p 1: a group's packages one after the other, as one job
	if [ "$mode" = race ]; then go test -race -vet=off -count=1 -p 1 "$@"; else go test -vet=off -count=1 -p 1 "$@"; fi
}
export -f gotest
status=0
xargs -d '\n' -P "$jobs" -I{} bash -c 'set -f; gotest $1' _ {} <<<"$queue" || status=1
[ $status = 0 ]

# audit's resident-set bounds skip under the race detector (its shadow
# memory is resident too): they ran above unless audit is in the race set.
if grep -qx 'race github.com/vkgen/vkgen/audit' <<<"$split"; then
	echo "== memory bounds, without the race detector"
	go test -count=1 -run 'Memory' ./audit
fi

echo "== scripts/test.sh: all passed"
