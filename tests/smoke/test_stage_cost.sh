#!/bin/bash
# podwire-stagecost (perf/stage_cost.c) keeps building and running: a very
# short run must check that every dispatch scheme counted the same frames,
# print a row of cycles per frame for each scheme and K, and exit 0. It
# checks the table's shape, not its numbers. Bad options are refused,
# naming the option.
. "$(dirname "$0")/lib.sh"

SC=$BUILD/podwire-stagecost
[ -x "$SC" ] || fail "$SC is not built; run: ninja -C $BUILD"
EAL=(-l "$POD_CPU" -m 64 --in-memory --file-prefix "pwt$$-sc" --no-pci --log-level '*:error')

rc=0
"$SC" "${EAL[@]}" -- --runs 2 --seconds 0.05 --warmup 0.01 --slice 16 --per-run \
	>"$T/sc.out" 2>"$T/sc.err" || rc=$?
[ $rc -eq 0 ] || { cat "$T/sc.out" "$T/sc.err"; fail "podwire-stagecost exited with status $rc"; }
grep -q '^split per burst (every scheme counted the same, for each K): unicast 22 to 3 ports' "$T/sc.out" ||
	{ cat "$T/sc.out"; fail "no line saying the schemes counted the same frames"; }
# One row per K and scheme: K, name, then median, min, max cycles per
# frame (positive numbers, min <= median <= max), and for all but direct
# the same three figures of the difference to direct.
for k in 1 3 5; do
	for s in direct table table-mbuf graph; do
		row=$(awk -v k=$k -v s=$s '$1 == k && $2 == s' "$T/sc.out")
		[ -n "$row" ] || { cat "$T/sc.out"; fail "no row for K=$k $s"; }
		want=8
		[ $s = direct ] && want=6
		echo "$row" | awk -v n=$want 'NF != n || !($3 > 0 && $4 > 0 && $4 <= $3 && $3 <= $5) ||
			(n == 8 && !($7 <= $6 && $6 <= $8)) { exit 1 }' ||
			fail "K=$k $s: malformed row: $row"
	done
done
ok "a row for each of K=1,3,5 and direct/table/table-mbuf/graph"
[ "$(grep -c '^run [0-9]' "$T/sc.out")" -eq 2 ] || { cat "$T/sc.out"; fail "--per-run: not 2 runs"; }
grep -q '^slices that took over twice their median' "$T/sc.out" || fail "no preemption line"
ok "$(awk '$1 == 5 && $2 == "graph"' "$T/sc.out" | tr -s ' ')"

while IFS='|' read -r want args; do
	rc=0
	# shellcheck disable=SC2086
	"$SC" "${EAL[@]}" -- $args >"$T/bad.out" 2>"$T/bad.err" || rc=$?
	[ $rc -ne 0 ] || fail "podwire-stagecost -- $args succeeded"
	grep -q -- "$want" "$T/bad.err" || fail "podwire-stagecost -- $args: $(cat "$T/bad.err")"
done <<EOF
--runs "0": give an integer from 1 to 1000|--runs 0
--seconds "x": give seconds from 0.001 to 600|--seconds x
unexpected argument "extra"|extra
EOF
ok "bad options refused, naming the option"
