#!/usr/bin/env bash
# The long part of CI, after scripts/test.sh (.ci/run runs both): real
# programs under the layers, the Debian package, the layers' integration
# tests for arm64 under qemu-user (scripts/test-arm64.sh), then the fuzz
# targets: the registry parser for FUZZTIME (default 60s), the audit parser,
# the settings parser and the trace readers for AUDIT_FUZZTIME,
# SETTINGS_FUZZTIME and TRACE_FUZZTIME (default 15s), the rules parser for
# RULES_FUZZTIME (default 10s). Each step prints its time. Tests that need
# ../shared skip when it is absent.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export PATH="/usr/local/go/bin:$HOME/.local/go/bin:$PATH" # the Go setup.sh installed wins

# step NAME COMMAND...: runs COMMAND, then prints how long it took.
step() {
	local name=$1 start=$SECONDS
	shift
	echo "== $name"
	"$@"
	echo "$name: $((SECONDS - start)) s"
}

step "real programs and layers: vkcube, glmark2 and glxgears on Zink, gfxrecon-replay under MangoHud, vkBasalt, validation, gfxreconstruct; no false growth over 30 s; the HTML report in Chromium" \
	env VKGEN_REAL_PROGRAMS=1 go test -count=1 -timeout 30m -run '^(TestRealPrograms|TestRealProgramsMemory|TestNoFalseGrowth|TestHTMLReport)$' ./layer/realprograms

if [ "$(id -u)" = 0 ]; then
	step "Debian package: build, apt-get install, use, apt-get remove" \
		env VKGEN_DEB_TEST=1 go test -count=1 -run '^TestDebianPackage$' ./layer/install
else
	echo "== Debian package: skipped: needs root (it installs the package into the system)"
fi

step "arm64: the layers' integration tests and the arm64 package under qemu-user (scripts/test-arm64.sh)" \
	scripts/test-arm64.sh

# fuzz PKG TARGET TIME
fuzz() {
	step "fuzz $1 $2 for $3" go test "./$1" -run '^$' -fuzz "^$2\$" -fuzztime "$3" -fuzzminimizetime 5s
}
fuzz registry FuzzParse "${FUZZTIME:-60s}"
fuzz audit FuzzParse "${AUDIT_FUZZTIME:-15s}"
fuzz layer/settings FuzzSettings "${SETTINGS_FUZZTIME:-15s}"
fuzz perfetto/decode FuzzReader "${TRACE_FUZZTIME:-15s}"
fuzz layer/memreport/tracesummary FuzzRead "${TRACE_FUZZTIME:-15s}"
fuzz layer/memreport/tracecheck FuzzParse "${RULES_FUZZTIME:-10s}"

echo "== scripts/test-long.sh: all passed"
