#!/usr/bin/env bash
# Runs every test of the project: set-up, formatting and vet, the unit and
# integration tests (with the race detector), the integration tests again for
# arm64 under qemu-user (scripts/test-arm64.sh), then the fuzz targets: the
# registry parser for FUZZTIME (default 60s), the audit parser and the trace
# readers for AUDIT_FUZZTIME and TRACE_FUZZTIME (default 15s). Tests that
# need ../shared skip when it is absent.
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

echo "== go test -race"
go test -race -count=1 ./...

echo "== memory bounds, without the race detector (its shadow memory is resident too)"
go test -count=1 -run 'Memory' ./audit

echo "== real programs and layers: vkcube, glmark2 and glxgears on Zink, gfxrecon-replay under MangoHud, vkBasalt, validation, gfxreconstruct; no false growth over 30 s"
start=$SECONDS
VKGEN_REAL_PROGRAMS=1 go test -count=1 -timeout 30m -run '^(TestRealPrograms|TestRealProgramsMemory|TestNoFalseGrowth|TestHTMLReport)$' ./layer/realprograms
echo "real programs: $((SECONDS - start)) s"

echo "== Debian package: build, apt-get install, use, apt-get remove"
if [ "$(id -u)" = 0 ]; then
	VKGEN_DEB_TEST=1 go test -count=1 -run '^TestDebianPackage$' ./layer/install
else
	echo "skipped: needs root (it installs the package into the system)"
fi

echo "== arm64: the layers' integration tests and the arm64 package under qemu-user (scripts/test-arm64.sh)"
start=$SECONDS
scripts/test-arm64.sh
echo "arm64: $((SECONDS - start)) s"

echo "== fuzz registry.FuzzParse for ${FUZZTIME:-60s}"
go test ./registry -run '^$' -fuzz '^FuzzParse$' -fuzztime "${FUZZTIME:-60s}" -fuzzminimizetime 5s

echo "== fuzz audit.FuzzParse for ${AUDIT_FUZZTIME:-15s}"
go test ./audit -run '^$' -fuzz '^FuzzParse$' -fuzztime "${AUDIT_FUZZTIME:-15s}" -fuzzminimizetime 5s

echo "== fuzz settings.FuzzSettings for ${SETTINGS_FUZZTIME:-15s}"
go test ./layer/settings -run '^$' -fuzz '^FuzzSettings$' -fuzztime "${SETTINGS_FUZZTIME:-15s}" -fuzzminimizetime 5s

echo "== fuzz decode.FuzzReader and tracesummary.FuzzRead for ${TRACE_FUZZTIME:-15s} each"
go test ./perfetto/decode -run '^$' -fuzz '^FuzzReader$' -fuzztime "${TRACE_FUZZTIME:-15s}" -fuzzminimizetime 5s
go test ./layer/memreport/tracesummary -run '^$' -fuzz '^FuzzRead$' -fuzztime "${TRACE_FUZZTIME:-15s}" -fuzzminimizetime 5s

echo "== fuzz tracecheck.FuzzParse (rules files) for ${RULES_FUZZTIME:-10s}"
go test ./layer/memreport/tracecheck -run '^$' -fuzz '^FuzzParse$' -fuzztime "${RULES_FUZZTIME:-10s}" -fuzzminimizetime 5s

echo "== all tests passed"
