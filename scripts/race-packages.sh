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
# -race.
pattern='^\s*go\s|\.Go\([^)]|\bt\.Parallel\(|AfterFunc\(|signal\.Notify|^import "C"|^\s*(import\s+)?(\w+\s+)?"(os/exec|net|net/http|testing/synctest)"\s*$'
concurrent=$(go list -deps -test -f '{{if not .Standard}}{{.ImportPath}}|{{.Dir}}|{{join .GoFiles " "}} {{join .CgoFiles " "}}{{end}}' ./... | sort -u |
	grep -vE '^[^|]*( \[|_test\||\.test\|)' | # test variants: a package's own tests are looked at below
	while IFS='|' read -r pkg dir files; do
		for f in $files; do
			if grep -qsE "$pattern" "$dir/$f"; then
				echo "$pkg"
				break
			fi
		done
	done | sort -u)

# A test binary needs -race when its package's tests or any package it
# links is in that list; packages without tests are listed as plain.
race=$(go list -test -f '{{.ImportPath}}|{{.Dir}}|{{join .Deps " "}}' ./... | grep '\.test|' |
	while IFS='|' read -r bin dir deps; do
		pkg=${bin%.test}
		if grep -qsE "$pattern" "$dir"/*_test.go; then
			echo "$pkg"
			continue
		fi
		for d in $pkg $deps; do
			if grep -qxF "${d%% *}" <<<"$concurrent"; then
				echo "$pkg"
				break
			fi
		done
	done)

for pkg in $(go list ./...); do
	if grep -qxF "$pkg" <<<"$race"; then
		echo "race $pkg"
	else
		echo "plain $pkg"
	fi
done
