#!/usr/bin/env bash
# Prints each of the module's packages as "race PKG" when its tests need the
# race detector, else "plain PKG": scripts/test.sh runs `go test -race` on
# the first and `go test` on the second. A race package some of whose tests
# run only code that starts no goroutine (listed in singleGoroutine below),
# or exist for a size that other tests check under -race (bigInput), is
# printed twice, "race PKG -skip=TESTS" and "plain PKG -run=TESTS".
#
# The race detector reports accesses from two goroutines. A test binary
# whose code, in the package, its tests and every non-standard package it
# links, starts no goroutine (no go statement, no .Go( of a WaitGroup or
# errgroup, no t.Parallel), no callback on another goroutine (AfterFunc,
# signal.Notify), no C thread (cgo) and no child process (os/exec, whose
# pipes are copied by goroutines), runs all its Go code on one goroutine at
# a time, so the detector can report nothing there; it only multiplies the
# CPU time by 4 to 9 (gen/goviews: 18.4 against 2.6 CPU s).
# The test is made from the code each run, so a package that gains any of
# these gets -race again by itself.
set -euo pipefail
cd "$(dirname "$0")/.."

# Non-standard packages any test binary links whose code (tests excluded:
# a package's own tests are looked at below) starts goroutines, threads or
# processes; grep is generous: a match in a comment or a string only keeps
# -race. One grep over all files: a grep per file and package cost 30 CPU s.
pattern='^\s*go\s|\.Go\([^)]|\bt\.Parallel\(|AfterFunc\(|signal\.Notify|^import "C"|^\s*(import\s+)?(\w+\s+)?"(os/exec|net|net/http|testing/synctest)"\s*$'
files=$(go list -deps -test -f '{{if not .Standard}}{{$p := .ImportPath}}{{$d := .Dir}}{{range .GoFiles}}{{$p}}|{{$d}}/{{.}}
{{end}}{{range .CgoFiles}}{{$p}}|{{$d}}/{{.}}
{{end}}{{end}}' ./... |
	grep -vE '^[^|]*( \[|_test\||\.test\|)' | sort -u) # test variants: a package's own tests are looked at below
concurrent=$(cut -d'|' -f2 <<<"$files" | xargs -r grep -lsE "$pattern" | awk -F'|' 'NR == FNR { hit[$0] = 1; next } hit[$2] { print $1 }' - <(echo "$files") | sort -u || true)

# A test binary needs -race when its package's tests or any package it
# links is in that list; packages without tests are listed as plain.
bins=$(go list -test -f '{{.ImportPath}}|{{.Dir}}|{{join .Deps " "}}' ./... | grep '\.test|')
testHits=$(cut -d'|' -f2 <<<"$bins" | while read -r dir; do printf '%s\n' "$dir"/*_test.go; done | xargs -r grep -lsE "$pattern" || true)
race=$(awk -F'|' -v concurrent="$concurrent" -v testHits="$testHits" '
	BEGIN {
		n = split(concurrent, c, "\n"); for (i = 1; i <= n; i++) conc[c[i]] = 1
		n = split(testHits, h, "\n"); for (i = 1; i <= n; i++) { sub(/\/[^\/]*$/, "", h[i]); testDir[h[i]] = 1 }
	}
	{
		pkg = $1; sub(/\.test$/, "", pkg)
		if ($2 in testDir || pkg in conc) { print pkg; next }
		n = split($3, deps, " ")
		for (i = 1; i <= n; i++) if (deps[i] in conc) { print pkg; next }
	}' <<<"$bins")

# Tests of a race package that drive, in-process, only code that starts no
# goroutine, by name ("all": every test of the package):
# - cmd/vkgen's generate, tables and audit commands (gen/*, registry,
#   audit), where the race detector cost 10 times the CPU (16.2 against 1.7
#   s for TestCommittedUpToDate, 41 against 4.8 for
#   TestEveryRegistryFrom11Generates). TestRegistryInputs' one goroutine of
#   its own writes a FIFO and shares no memory with the test. The package's
#   trace tests and TestFreshCloneGoGenerate keep -race.
# - tracesummary's tests of its parts (coverage, groups, the queue, charts
#   and pages) on values built in the test: 6.1 against 1.4 CPU s for
#   TestCoverage, 7.3 against 0.9 for TestManyHeaps. Those that record or
#   Read a trace keep -race (Read decodes on goroutines).
# - decode's tests on input built by hand (TestCompressedBomb's 64 MiB of
#   inflating: 16.6 against 3.0 CPU s); those that record keep -race.
# - objectnames' soak tests, a million names into one store from the test's
#   goroutine (TestSoakCreateNameDestroy 3.1 against 0.2 s,
#   TestLeakedHandlesAreBounded 4.0 against 0.6);
#   TestConcurrentRenamesAndReplaysKeepOrder and the hub's tests keep it.
# - gen/objtypes and gen/cabi are race packages only because their tests
#   run gcc and the program it built with exec's Output and CombinedOutput,
#   whose goroutines fill buffers the test reads after Wait (13.3 against
#   3.5 CPU s for gen/objtypes).
declare -A singleGoroutine=(
	[github.com/vkgen/vkgen/gen/objtypes]=all
	[github.com/vkgen/vkgen/gen/cabi]=all
	[github.com/vkgen/vkgen/cmd/vkgen]='TestCommittedUpToDate TestEveryRegistryFrom11Generates TestRegistryInputs TestPinnedRegistryOnly TestGenerateErrors TestGenerateOldRegistryFails TestTablesJSON TestAuditExitStatus TestAuditSeveralFiles TestAuditInputLimits TestAuditHelpNamesShapes TestVersionAndHelp TestDocumentedCommandsExist TestByteSize'
	[github.com/vkgen/vkgen/layer/memreport/tracesummary]='TestCoverage TestBlockBindings TestReorder TestGroupsFold TestObjectKeyPrecedence TestKeyCache TestQueueRoundTrip TestHeapCharts TestHeapChartBounded TestPageEscapes TestPageShowsNewFields TestManyHeaps'
	[github.com/vkgen/vkgen/perfetto/decode]='TestCompressedBomb TestNotTraceKinds FuzzReader'
	[github.com/vkgen/vkgen/objectnames]='TestSoakCreateNameDestroy TestLeakedHandlesAreBounded'
)
# Tests that exist for their input's size and run code that starts
# goroutines, which tests of the package named here drive under -race on
# smaller input, rounds reused and every worker busy: the detector only sees
# the accesses a run makes, and more rounds of the same code make no new
# ones between goroutines. They run without it (it cost 10 times the CPU)
# and keep their size.
# - tracesummary's TestReadBoundedMemory (50 MB through Read: 9.5 against
#   0.9 CPU s) against TestReadMatchesSummarize, TestReadCutTrace,
#   TestReadDamagedPacket and TestReadNoTotals (a 3-5 MB trace, 1 to 8
#   workers).
# - cmd/vkgen's TestFullDeferredRing (100,000 buffers, to fill the layer's
#   deferred ring) and TestTraceSummaryTinyBuffersLoseNothing (8,000
#   through 1 KB trace buffers): their size is for the layer library in the
#   program they run, which is built without -race either way; in-process
#   they summarise the trace (14.5 against 2.1 and 10.0 against 2.6 CPU s),
#   as TestTraceSummaryRecycledHandles and TestTraceSummaryBlocks do under
#   -race on lavapipe's traces of hundreds of buffers.
declare -A bigInput=(
	[github.com/vkgen/vkgen/layer/memreport/tracesummary]='TestReadBoundedMemory'
	[github.com/vkgen/vkgen/cmd/vkgen]='TestFullDeferredRing TestTraceSummaryTinyBuffersLoseNothing'
)
# The packages such a package's test binary links that the grep above
# names, each looked at: the split tests reach none of them, apart from
# what bigInput says. cmd/vkgen: perfetto and tracesummary are reached only
# by the tests that keep -race (vkgen trace ...), as are the test helpers
# vktest, perfettotools and htmlcheck; pflag imports net for its IP flag
# types and starts nothing. tracesummary: its own Read and ReadMany, and
# perfetto, perfettotools and perfetto/system, by its recording and
# reading tests. decode: perfetto, by the tests that record. Any other
# stops this script, for someone to look at the tests above again.
declare -A raceReachedOnly=(
	[github.com/vkgen/vkgen/cmd/vkgen]='github.com/vkgen/vkgen/perfetto github.com/vkgen/vkgen/layer/memreport/tracesummary github.com/spf13/pflag github.com/vkgen/vkgen/internal/vktest github.com/vkgen/vkgen/internal/perfettotools github.com/vkgen/vkgen/internal/htmlcheck'
	[github.com/vkgen/vkgen/layer/memreport/tracesummary]='github.com/vkgen/vkgen/layer/memreport/tracesummary github.com/vkgen/vkgen/perfetto github.com/vkgen/vkgen/internal/perfettotools github.com/vkgen/vkgen/perfetto/system github.com/vkgen/vkgen/perfetto/system/internal/ipc'
	[github.com/vkgen/vkgen/perfetto/decode]='github.com/vkgen/vkgen/perfetto'
)
for pkg in "${!singleGoroutine[@]}"; do
	# the test binary's packages, from the go list above ("P [P.test]" is P)
	for d in $(awk -F'|' -v bin="$pkg.test" '$1 == bin { print $3 }' <<<"$bins" | tr ' ' '\n' | sort -u | grep -xF "$concurrent" || true); do
		if ! tr ' ' '\n' <<<"${raceReachedOnly[$pkg]:-}" | grep -qxF -- "$d"; then
			echo "race-packages.sh: $pkg's tests link $d, which starts goroutines now: do its tests in singleGoroutine reach it?" >&2
			exit 1
		fi
	done
done

for pkg in $(go list ./...); do
	if grep -qxF "$pkg" <<<"$race"; then
		tests=$(echo ${singleGoroutine[$pkg]:-} ${bigInput[$pkg]:-})
		if [ "$tests" = all ]; then
			echo "plain $pkg"
		elif [ -n "$tests" ]; then
			echo "race $pkg -skip=^(${tests// /|})\$"
			echo "plain $pkg -run=^(${tests// /|})\$"
		else
			echo "race $pkg"
		fi
	else
		echo "plain $pkg"
	fi
done
