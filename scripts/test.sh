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
split=$(scripts/race-packages.sh)
# The test binaries are built first, with go test -c into build/test-bin,
# which is kept: go build links a binary again only when its code changed,
# and linking every test binary cost about 30 CPU s of a warm run. -vet=off:
# go vet ./... ran above, with every check of go test's subset.
bin=build/test-bin
tested=$(go list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}' ./...)
for mode in race plain; do
	flags=-vet=off
	[ $mode = race ] && flags="$flags -race"
	pkgs=$(awk -v m=$mode '$1 == m { print $2 }' <<<"$split" | grep -xF "$tested" || true)
	for f in "$bin/$mode"/*.test; do # a package that lost its tests leaves no stale binary
		if [ -e "$f" ] && ! grep -q "/$(basename "$f" .test)\$" <<<"$pkgs"; then rm "$f"; fi
	done
	[ -z "$pkgs" ] || go test $flags -c -o "$bin/$mode/" $pkgs
done
# Then each line of race-packages.sh runs its package's binary in the
# package's folder, as go test runs it, JOBS at a time (default: one per
# CPU): on 2 CPUs about a minute less than starting every go test at once,
# which ran 20 test binaries side by side and cost a third more CPU in page
# faults and cache misses. First the lines named here, longest first (CPU
# seconds alone: docs/performance.md "Test suite", scripts/test-cpu.sh),
# then the other race lines, then the plain ones.
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
queue=$(awk -v first="$first" '
	BEGIN { n = split(first, f, "\n"); for (i = 1; i <= n; i++) rank["github.com/vkgen/vkgen/" substr(f[i], index(f[i], " ") + 1) " " substr(f[i], 1, index(f[i], " ") - 1)] = i }
	{ k = $2 " " $1; seen[k] = 1 }
	k in rank { line[rank[k]] = $0; next }
	{ rest[$1] = rest[$1] $0 "\n" }
	END {
		for (k in rank) if (!(k in seen)) { print "test.sh: first names " k ", which race-packages.sh does not list" > "/dev/stderr"; exit 1 }
		for (i = 1; i <= n; i++) print line[i]
		printf "%s%s", rest["race"], rest["plain"]
	}' <<<"$split")
gotest() { # MODE PKG [-run=|-skip=TESTS]: a line of race-packages.sh
	local mode=$1 pkg=$2 dir=${2#github.com/vkgen/vkgen} out start rc=0
	if ! grep -qxF "$pkg" <<<"$tested"; then
		printf '?   \t%s\t[no test files]\n' "$pkg"
		return
	fi
	out=$(mktemp)
	start=$(date +%s%3N)
	(cd "./$dir" && exec "$OLDPWD/$bin/$mode/${pkg##*/}.test" -test.paniconexit0 -test.timeout=10m0s ${3:+"-test.${3#-}"}) </dev/null >"$out" 2>&1 || rc=$?
	if [ $rc = 0 ]; then
		local ms=$(($(date +%s%3N) - start))
		printf 'ok  \t%s\t%d.%03ds\n' "$pkg" $((ms / 1000)) $((ms % 1000))
	else
		cat "$out"
		printf 'FAIL\t%s (%s)\n' "$pkg" "$mode"
	fi
	rm -f "$out"
	return $rc
}
export -f gotest
export bin tested
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
