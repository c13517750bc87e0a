#!/usr/bin/env bash
# Prints each of the module's packages as "race PKG" when its tests need the
# race detector, else "plain PKG": scripts/test.sh runs `go test -race` on
# the first and `go test` on the second.
#
# The race detector reports accesses from two goroutines. A test binary
# whose code, in the package, its tests and every non-standard package it
# links, starts no goroutine (no go statement, no .Go( of a WaitGroup or
# errgroup, no t.Parallel), no callback on another goroutine (AfterFunc,
# signal.Notify), no C thread (cgo) and no child process (os/exec, whose
# pipes are copied by goroutines), runs all its Go code on one goroutine at
# a time, so the detector can report nothing there; it only multiplies the
# CPU time by 4 to 9 (gen/goviews 18.4 against 2.6 CPU s; docs/performance.md).
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

for pkg in $(go list ./...); do
	if grep -qxF "$pkg" <<<"$race"; then
		echo "race $pkg"
	else
		echo "plain $pkg"
	fi
done
