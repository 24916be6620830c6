#!/bin/bash
# perf/suite.sh --quick on a tiny subset (one testpmd and one podwired cell
# over vhost-user and over memif (podwire-bench's own memif pods), 2-pod
# scaling, latency at 50% of NDR, OVS at 64 B or the line saying it is
# skipped), with the placement probed but never waited for: the summary
# must be
# JSON with the expected keys, and every cell's file must be podwire-bench
# JSON. It checks the output's shape, not its numbers.
. "$(dirname "$0")/lib.sh"

[ -x "$BUILD/podwire-bench" ] || fail "$BUILD/podwire-bench is not built; run: ninja -C $BUILD"

RES=$T/results
PODWIRE_BUILD=$BUILD timeout 150 "$ROOT/perf/suite.sh" --quick --out "$RES" --placement-ns 1000000 \
	--only 'main:vhost:testpmd:64,main:vhost:bridge:64,main:memif:testpmd:64,main:memif:bridge:64,scale:2,latency:50,ovs:64' \
	>"$T/suite.out" 2>&1 || { cat "$T/suite.out"; fail "perf/suite.sh failed"; }
S=$RES/summary.json
jq -e . "$S" >/dev/null || { cat "$S"; fail "summary.json is not JSON"; }
ok "summary.json is JSON"

for k in date host quick duration_s rounds virtio memif_generator cores machine.jitter main scaling \
	latency ovs ovs.note; do
	jq -e ".$k != null" "$S" >/dev/null || fail "summary key $k missing"
done
# OVS, when installed, adds its row to main.
rows=$(jq 'if .ovs.skipped then 4 else 5 end' "$S")
expect_eq "main rows" "$rows" "$(jq '.main | length' "$S")"
expect_eq "scaling rows" 1 "$(jq '.scaling | length' "$S")"
expect_eq "latency rows (NDR + 50%)" 2 "$(jq '.latency | length' "$S")"
for k in iface system size mpps gbps loss p50_ns p99_ns dut_cycles_per_frame rounds \
	ratio_to_testpmd efficiency_to_testpmd; do
	jq -e --arg k "$k" '.main | all(has($k))' "$S" >/dev/null || fail "main rows lack $k"
done
jq -e '.scaling[0].pods == 2 and (.latency | map(.pct) | sort == [50, 100])' "$S" >/dev/null ||
	fail "scaling or latency rows are not the ones asked for: $(jq -c '[.scaling, .latency]' "$S")"
# Every forwarder reports its cycles per frame, and the ratios pair rounds.
jq -e '.main | all(.dut_cycles_per_frame > 0 and (.rounds | length) == 1
	and .ratio_to_testpmd > 0 and .efficiency_to_testpmd > 0)' "$S" >/dev/null ||
	fail "main rows lack cycles per frame or paired ratios: $(jq -c .main "$S")"
# podwired's worker's share of the window spent moving frames; testpmd's
# is not read.
jq -e '.main | all(if .system == "bridge" then .dut_busy_share > 0 and .dut_busy_share <= 1
	else .dut_busy_share == null end)' "$S" >/dev/null ||
	fail "main rows: podwired's busy share missing or out of range: $(jq -c '[.main[] | {system, dut_busy_share}]' "$S")"
jq -e '.machine.jitter | length == 2 and all(.stalled_fraction >= 0 and .gaps_over_20us >= 0)' \
	"$S" >/dev/null || fail "machine.jitter is not two podwire-jitter results: $(jq -c .machine "$S")"
jq -e '.latency[] | select(.pct == 50) | .testpmd_p99_ns > 0' "$S" >/dev/null ||
	fail "the 50% latency row lacks testpmd's p99 at the same rate"
jq -e '.main | map(select(.error != null)) | length == 0' "$S" >/dev/null ||
	fail "a cell failed: $(jq -c .main "$S")"
for f in "$RES"/cells/*.json; do
	# Every round's figures are kept, with its number.
	jq -e '(.rounds | length) == 1 and .rounds[0].round == 1' "$f" >/dev/null ||
		fail "$(basename "$f") lacks its rounds"
	# The placement was probed before and after (never waited for here).
	jq -e '.rounds[0] | .placement_ns.before > 0 and .placement_ns.after > 0
		and .attempts == 1' "$f" >/dev/null ||
		fail "$(basename "$f") lacks its placement probes: $(jq -c '.rounds[0]' "$f")"
	jq -e '.rx_mpps != null and .latency_ns.p99 != null' "$f" >/dev/null ||
		fail "$(basename "$f") is not podwire-bench output"
done
ok "$(find "$RES/cells" -name '*.json' | wc -l) cell files are podwire-bench JSON"
if ! grep -q '^IFACE' "$T/suite.out" || ! grep -q '^ovs: ' "$T/suite.out"; then
	cat "$T/suite.out"
	fail "the table or the OVS line is missing"
fi
grep -q '^placement: ' "$T/suite.out" || { cat "$T/suite.out"; fail "no placement line"; }
jq -e '.memif_generator == "own"' "$S" >/dev/null || fail "memif_generator: $(jq .memif_generator "$S")"
ok "table printed; $(grep '^ovs: ' "$T/suite.out")"
