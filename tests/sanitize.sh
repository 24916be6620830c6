#!/bin/bash
# podwired, podwirectl, the CNI plugin, podwire-vdev and the unit tests
# built with AddressSanitizer and UndefinedBehaviorSanitizer
# (-Db_sanitize=address,undefined) in build-asan, then the unit tests and
# the smoke tests run against that build. A sanitizer report in any log
# fails the test it came from (tests/smoke/lib.sh checks every log, also
# of daemons that exited as asked: LeakSanitizer reports at exit).
#
# Usage: tests/sanitize.sh [TEST...]   TEST: a smoke test name without
#   test_ (e.g. memif_hostile); none: every smoke test. SANITIZE_BUILD=DIR
#   picks the build directory.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
B=$ROOT/${SANITIZE_BUILD:-build-asan}
if [ ! -f "$B/build.ninja" ]; then
	meson setup "$B" -Db_sanitize=address,undefined -Db_lundef=false \
		-Dbuildtype=debugoptimized >"$B.setup.log" 2>&1 ||
		{ tail -n 20 "$B.setup.log"; echo "sanitize: meson setup failed"; exit 1; }
fi
ninja -C "$B" >"$B.build.log" 2>&1 || { tail -n 30 "$B.build.log"; echo "sanitize: build failed"; exit 1; }
# Leaks count; undefined behaviour stops the program where it happens.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
# Leaks of other projects' code we cannot fix, each explained there.
export LSAN_OPTIONS=suppressions=$ROOT/tests/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
logs=$B/test-logs
mkdir -p "$logs"
pass=0 fail=0 skip=0
if meson test -C "$B" --suite unit --print-errorlogs >"$logs/unit.log" 2>&1; then
	pass=$((pass + 1))
	echo "PASS unit tests ($(awk '/^Ok:/ {print $2}' "$logs/unit.log") of them)"
else
	fail=$((fail + 1))
	echo "FAIL unit tests; $logs/unit.log:"
	tail -n 40 "$logs/unit.log" | sed 's/^/    /'
fi
if [ $# -eq 0 ]; then
	set -- $(cd tests/smoke && ls test_*.sh | sed 's/^test_//; s/\.sh$//')
fi
for t in "$@"; do
	start=$(date +%s)
	PODWIRE_BUILD=$B timeout --kill-after=10 900 bash "tests/smoke/test_$t.sh" >"$logs/test_$t.log" 2>&1
	rc=$?
	secs=$(($(date +%s) - start))
	if [ $rc -eq 0 ]; then
		pass=$((pass + 1))
		echo "PASS test_$t (${secs}s)"
	elif [ $rc -eq 77 ]; then
		skip=$((skip + 1))
		echo "SKIP test_$t: $(grep -m1 '^SKIP' "$logs/test_$t.log" || echo 'no reason given')"
	else
		fail=$((fail + 1))
		echo "FAIL test_$t (exit $rc, ${secs}s); last lines of $logs/test_$t.log:"
		tail -n 40 "$logs/test_$t.log" | sed 's/^/    /'
	fi
done
echo "sanitize: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
