#!/bin/bash
# perf/bench_uplink.sh in its quick form, one topology and one frame size
# (about 10 s): it must run both uplink drivers and write well-formed JSON
# with the expected keys and plausible values. It checks the output's shape,
# not its figures.
. "$(dirname "$0")/lib.sh"

[ -x "$BUILD/podwire-bench" ] || fail "$BUILD/podwire-bench is not built; run: ninja -C $BUILD"
ip netns add "pwt$$-probe" 2>/dev/null || skip "cannot create network namespaces"
ip netns del "pwt$$-probe"

rc=0
PODWIRE_BUILD=$BUILD GEN_CPU=$POD_CPU CTL_CPU=$POD_CPU WORKER_CPU=$WORKER_CPU \
	bash "$ROOT/perf/bench_uplink.sh" --quick --topologies one-worker --sizes 64 \
	--json "$T/uplink.json" >"$T/bench.log" 2>&1 &
POD_PID[bench]=$! # stopped by PID on exit if the test fails while it runs
BENCH_PID=${POD_PID[bench]}
wait "$BENCH_PID" || rc=$?
unset "POD_PID[bench]"
[ $rc -eq 0 ] || { cat "$T/bench.log"; fail "bench_uplink.sh exited with status $rc"; }
jq -e . "$T/uplink.json" >/dev/null || fail "output is not JSON"
ok "output is JSON"
j() { jq -r "$1" "$T/uplink.json"; }
expect_eq "failed cells" 0 "$(j '.errors | length')"
expect_eq "summary rows" 2 "$(j '.summary | length')"
expect_eq "modes" "af_packet af_xdp" "$(j '[.summary[].mode] | sort | join(" ")')"
for k in mpps gbps loss uplink_loss cycles_per_frame p50_ns best_mpps ratio_to_af_packet; do
	jq -e "all(.summary[]; .$k != null)" "$T/uplink.json" >/dev/null || fail "summary key $k missing"
done
ok "every summary key is present"
jq -e 'all(.cells[]; .driver == .mode)' "$T/uplink.json" >/dev/null ||
	fail "a cell ran another driver than asked: $(jq -c '[.cells[] | {mode, driver}]' "$T/uplink.json")"
jq -e 'all(.summary[]; .mpps > 0 and .loss >= 0 and .loss <= 1)' "$T/uplink.json" >/dev/null ||
	fail "implausible figures: $(jq -c '[.summary[] | {mode, mpps, loss}]' "$T/uplink.json")"
expect_eq "af_packet's ratio to itself" 1 "$(j '.summary[] | select(.mode == "af_packet") | .ratio_to_af_packet')"
# Nothing crosses a veth but the pods' frames (IPv6 is off in the namespaces).
expect_eq "unknown-VLAN frames" 0 "$(j '[.cells[].unknown_vlan] | add')"
grep -q '^TOPOLOGY' "$T/bench.log" || fail "no table printed"
ok "plausible: $(jq -c '[.summary[] | {mode, mpps, uplink_loss}]' "$T/uplink.json")"
# Its namespaces are named after its PID.
left=$(ip netns list | grep "^pwu$BENCH_PID" || true)
[ -z "$left" ] || fail "bench_uplink.sh left network namespaces: $(echo $left)"
ok "no namespace left behind"
