#!/bin/bash
# The fuzz harnesses of tests/fuzz/ (every parser of outside input, under
# AddressSanitizer and UndefinedBehaviorSanitizer), FUZZ_SECONDS each
# (CI: 10; run tests/fuzz/run.sh 600 or FUZZ_RUNS=10000000 for real runs):
# no crash, leak or undefined behaviour from the seeds and what grows
# from them in that time.
. "$(dirname "$0")/lib.sh"

command -v clang >/dev/null || skip "clang is not installed (apt-get install clang libclang-rt-14-dev)"
rc=0
out=$(FUZZ_BUILD="$ROOT/build-fuzz" bash "$ROOT/tests/fuzz/run.sh" "${FUZZ_SECONDS:-10}" 2>&1) || rc=$?
echo "$out"
[ $rc -eq 0 ] || fail "a fuzz harness found a problem (see above; inputs in build-fuzz/crashes/)"
expect_eq "harnesses run" "$(grep -c "' : files(" "$ROOT/tests/fuzz/meson.build")" \
	"$(grep -cE '^[a-z_]+ +[0-9]+ .* ok$' <<<"$out")"
