#!/bin/bash
# Lint: the code is as clang-format writes it, cppcheck finds nothing in a
# small, deliberate set of checks, and the layers keep their boundaries.
# Exits 0 when clean; prints every finding otherwise.
set -u
cd "$(dirname "$0")/.."
rc=0
mapfile -t C_FILES < <(git ls-files '*.c' '*.h' 2>/dev/null || find . -name '*.[ch]' -not -path './build*')

# 1. Formatting: .clang-format is the style.
if command -v clang-format >/dev/null; then
	if ! clang-format --dry-run --Werror "${C_FILES[@]}" 2>/tmp/lint-format.$$; then
		echo "lint: clang-format would change these (run clang-format -i on them):"
		grep -o '^[^:]*\.[ch]' /tmp/lint-format.$$ | sort -u | sed 's/^/  /'
		rc=1
	fi
	rm -f /tmp/lint-format.$$
else
	echo "lint: clang-format is not installed (apt-get install clang-format)"
	rc=1
fi

# 2. cppcheck: warnings (undefined behaviour, misuse of the standard
# library, printf formats), portability and performance; not style.
if command -v cppcheck >/dev/null; then
	if ! cppcheck --enable=warning,portability,performance --std=c11 --inline-suppr --quiet \
		--error-exitcode=1 -I control -I dataplane -I cni -I perf \
		--include=tests/lint/cppcheck-macros.h --suppress=missingIncludeSystem -j2 \
		dataplane control cni perf docker tests/unit tests/sriov; then
		echo "lint: cppcheck found the above"
		rc=1
	fi
else
	echo "lint: cppcheck is not installed (apt-get install cppcheck)"
	rc=1
fi

# 3. Boundaries (CONVENTIONS.md): the datapath reads only the view (no
# cJSON, no API, no model); sriov/ has no DPDK; only the daemon's main
# and options know the configuration; the memif protocol library has no
# DPDK, and perf/ speaks memif through it, not through podwired's port
# or datapath.
boundary() { # DESCRIPTION DIR PATTERN
	local hits
	hits=$(grep -nE "$3" -r "$2" --include='*.[ch]' || true)
	if [ -n "$hits" ]; then
		echo "lint: $1:"
		sed 's/^/  /' <<<"$hits"
		rc=1
	fi
}
boundary "datapath/ includes cJSON, the API or the model" dataplane/datapath \
	'#include [<"](cjson/|api\.h|api/|model/|ports/|sriov/)'
boundary "sriov/ uses DPDK" dataplane/sriov '#include <rte_|rte_[a-z_]+\('
boundary "ports/ reach past the model into the API server" dataplane/ports '#include "api/'
boundary "memif/ (libpwmemif, linked without DPDK) uses DPDK" dataplane/memif '#include <rte_|rte_[a-z_0-9]+\('
boundary "perf/ includes podwired's private headers (use memif/memif.h)" perf \
	'#include "(ports|datapath)/'

# 4. The module graph (tests/lint/modules.py): no two modules of
# dataplane/ include each other, nothing includes daemon/ (the top), core/
# (the bottom) includes no other module.
if ! python3 tests/lint/modules.py; then
	echo "lint: the module graph has the cycles above (python3 tests/lint/modules.py --graph shows it)"
	rc=1
fi

[ $rc -eq 0 ] && echo "lint: clean (${#C_FILES[@]} files)"
exit $rc
