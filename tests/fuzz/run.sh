#!/bin/bash
# Builds the libFuzzer harnesses (clang, AddressSanitizer and
# UndefinedBehaviorSanitizer) and runs each for SECONDS (default 30),
# starting from the seed corpora in tests/fuzz/corpus/. Prints, per
# harness, executions, coverage (edges) and corpus size; a crash, a leak
# or a sanitizer report fails the run and leaves the input that caused it
# in build-fuzz/crashes/NAME/.
#
# Usage: tests/fuzz/run.sh [SECONDS] [HARNESS...]
#   FUZZ_RUNS=N  instead of a time, N executions per harness
#   FUZZ_BUILD=DIR  the build directory (default build-fuzz)
# The corpora grown here stay in the build directory (DIR/corpus/NAME);
# tests/fuzz/make_seeds.py writes the committed seeds.
set -u
cd "$(dirname "$0")/../.."
SECS=${1:-30}
shift || true
B=${FUZZ_BUILD:-build-fuzz}
ALL=$(sed -n "s/^ *'\([a-z_]*\)' : files(.*/\1/p" tests/fuzz/meson.build)
NAMES=${*:-$ALL}

command -v clang >/dev/null || { echo "fuzz: clang is not installed (apt-get install clang libclang-rt-14-dev)"; exit 1; }
if [ ! -f "$B/build.ninja" ]; then
	CC=clang meson setup "$B" -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false \
		-Dwerror=false -Dbuildtype=debugoptimized >"$B.setup.log" 2>&1 ||
		{ tail -n 20 "$B.setup.log"; echo "fuzz: meson setup failed"; exit 1; }
fi
# shellcheck disable=SC2046
ninja -C "$B" $(for n in $NAMES; do echo "fuzz-$n"; done) >"$B/fuzz-build.log" 2>&1 ||
	{ tail -n 30 "$B/fuzz-build.log"; echo "fuzz: build failed"; exit 1; }

# Leaks are findings too; undefined behaviour stops the run.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:symbolize=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
bad=0
printf '%-12s %12s %8s %8s %8s  %s\n' HARNESS EXECS EXEC/S COV CORPUS RESULT
for n in $NAMES; do
	corpus=$B/corpus/$n crashes=$B/crashes/$n log=$B/fuzz-$n.log
	mkdir -p "$corpus" "$crashes"
	if [ -n "${FUZZ_RUNS:-}" ]; then limit=(-runs="$FUZZ_RUNS"); else limit=(-max_total_time="$SECS"); fi
	"$B/fuzz-$n" "${limit[@]}" -close_fd_mask=3 -print_final_stats=1 -timeout=10 \
		-rss_limit_mb=4096 -artifact_prefix="$crashes/" "$corpus" "tests/fuzz/corpus/$n" \
		>"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
	speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n1 | cut -d' ' -f2)
	size=$(find "$corpus" -type f | wc -l)
	if [ $rc -eq 0 ]; then
		result=ok
	else
		result="FAILED (exit $rc): $(grep -m1 -E 'ERROR: |SUMMARY: |runtime error' "$log" || echo "see $log")"
		bad=$((bad + 1))
	fi
	printf '%-12s %12s %8s %8s %8s  %s\n' "$n" "${execs:-?}" "${speed:-?}" "${cov:-?}" "$size" "$result"
done
[ $bad -eq 0 ] || { echo "fuzz: $bad harness(es) found a problem; inputs in $B/crashes/"; exit 1; }
echo "fuzz: clean"
