#!/bin/bash
# podwire-bench as two vhost-user pods on an L2 bridge network: a short run
# at a modest fixed rate must produce well-formed JSON with the expected
# keys and plausible values. It checks the output's shape, not its numbers.
# Then the same over memif with podwire-bench's own memif client.
. "$(dirname "$0")/lib.sh"

BENCH=$BUILD/podwire-bench
[ -x "$BENCH" ] || fail "$BENCH is not built; run: ninja -C $BUILD"

MAC_A=02:00:00:00:0a:01
MAC_B=02:00:00:00:0b:01

daemon_start pw
ctl pw network add net1
ctl pw port add pod-a --network net1 --type vhost-user --socket "$T/a.sock" --mac $MAC_A
ctl pw port add pod-b --network net1 --type vhost-user --socket "$T/b.sock" --mac $MAC_B

# The generator on core 0, beside podwired's control thread; the worker has core 1.
"$BENCH" --lcores "0@$POD_CPU,1@$POD_CPU" --main-lcore 0 \
	--file-prefix "pwt$$-bench" --in-memory --single-file-segments --no-pci \
	--log-level '*:notice' \
	--vdev "$(vdev_virtio "$T/a.sock" $MAC_A)" \
	--vdev "net_virtio_user1,path=$T/b.sock,mac=$MAC_B,queues=1" \
	-- --rate 100000 --duration 3 --warmup 0.5 --size 64 --flows 4 --json \
	>"$T/bench.json" 2>"$T/pod-bench.log" &
POD_PID[bench]=$!
rc=0
wait "${POD_PID[bench]}" || rc=$?
unset "POD_PID[bench]"
[ $rc -eq 0 ] || { cat "$T/pod-bench.log"; fail "podwire-bench exited with status $rc"; }

jq -e . "$T/bench.json" >/dev/null || { cat "$T/bench.json"; fail "output is not JSON"; }
ok "output is JSON"
for k in pods frame_size duration_s tx_packets rx_packets loss rx_mpps rx_gbps \
	latency_ns.min latency_ns.avg latency_ns.p50 latency_ns.p99 latency_ns.p999 \
	latency_ns.max per_pod directions; do
	jq -e ".$k != null" "$T/bench.json" >/dev/null || fail "key $k missing"
done
ok "every expected key is present"
j() { jq -r "$1" "$T/bench.json"; }
expect_eq "pods" 2 "$(j .pods)"
expect_eq "frame size" 64 "$(j .frame_size)"
expect_eq "directions" 2 "$(j '.directions | length')"
jq -e '.rx_packets > 0 and .tx_packets > 0' "$T/bench.json" >/dev/null ||
	fail "nothing received: $(j '[.tx_packets, .rx_packets]')"
jq -e '.loss >= 0 and .loss <= 1' "$T/bench.json" >/dev/null || fail "loss $(j .loss) not in [0,1]"
# Both MACs were learned before measuring: every frame reaches its own pod
# (a wrong destination MAC would be flooded and counted misdelivered).
jq -e '.misdelivered == 0 and .foreign == 0' "$T/bench.json" >/dev/null ||
	fail "frames reached the wrong pod: misdelivered $(j .misdelivered), foreign $(j .foreign)"
jq -e '.latency_ns | .min <= .p50 and .p50 <= .p99 and .p99 <= .p999 and .p999 <= .max' \
	"$T/bench.json" >/dev/null || fail "latency percentiles out of order: $(j -c .latency_ns)"
jq -e '.duration_s > 2 and .duration_s < 4' "$T/bench.json" >/dev/null ||
	fail "duration $(j .duration_s) is not about 3 s"
# 100k pps for 3 s is 300k frames offered; allow the pacing some slack.
jq -e '.tx_packets > 250000 and .tx_packets < 350000' "$T/bench.json" >/dev/null ||
	fail "tx $(j .tx_packets) is not about 300000 at 100k pps for 3 s"
ok "plausible: tx $(j .tx_packets) rx $(j .rx_packets) loss $(j .loss) p50 $(j .latency_ns.p50) ns p99 $(j .latency_ns.p99) ns"

# podwire-bench's own memif client (--memif): two memif pods on a second
# network, at a fixed rate with 64 B and 1518 B frames, then at full
# speed: every frame is counted, reaches its own pod and is not malformed.
MAC_C=02:00:00:00:0c:01
MAC_D=02:00:00:00:0d:01
ctl pw network add net2
ctl pw port add pod-c --network net2 --type memif --socket "$T/c.sock" --mac $MAC_C
ctl pw port add pod-d --network net2 --type memif --socket "$T/d.sock" --mac $MAC_D
memif_bench() { # OUT [podwire-bench options...]
	local out=$1 rc=0
	shift
	"$BENCH" --lcores "0@$POD_CPU" --file-prefix "pwt$$-mbench" --in-memory --no-pci \
		--log-level '*:notice' -- --memif "$T/c.sock,mac=$MAC_C" \
		--memif "$T/d.sock,mac=$MAC_D" --warmup 0.5 --json "$@" \
		>"$out" 2>"$T/mbench.log" || rc=$?
	[ $rc -eq 0 ] || { cat "$T/mbench.log"; fail "podwire-bench --memif $*: status $rc"; }
	jq -e '.pods == 2 and .rx_packets > 0 and .misdelivered == 0 and .foreign == 0' \
		"$out" >/dev/null ||
		fail "podwire-bench --memif $*: $(jq -c '{tx_packets, rx_packets, misdelivered,
			foreign}' "$out")"
}
for size in 64 1518; do
	memif_bench "$T/m$size.json" --rate 100000 --duration 2 --size $size
	jq -e '.tx_packets > 150000 and .tx_packets < 250000 and .loss == 0
		and .frame_size == '$size "$T/m$size.json" >/dev/null ||
		fail "--memif, $size B at 100k pps for 2 s: $(jq -c '{tx_packets, rx_packets, loss}' \
			"$T/m$size.json")"
done
memif_bench "$T/mfull.json" --duration 1
jq -e '.loss < 0.001' "$T/mfull.json" >/dev/null ||
	fail "--memif at full speed lost $(jq .loss "$T/mfull.json")"
ok "--memif pods: 64 B and 1518 B at 100k pps without loss; full speed $(jq .rx_mpps "$T/mfull.json") Mpps"
# Bad --memif arguments: refused, naming what is wrong.
while IFS='|' read -r want args; do
	rc=0
	# shellcheck disable=SC2086
	"$BENCH" --lcores "0@$POD_CPU" --file-prefix "pwt$$-mbad" --in-memory --no-pci \
		--log-level '*:error' -- $args >"$T/mbad.out" 2>"$T/mbad.err" || rc=$?
	[ $rc -ne 0 ] || fail "podwire-bench -- $args succeeded"
	grep -q -- "$want" "$T/mbad.err" || fail "podwire-bench -- $args: $(cat "$T/mbad.err")"
done <<EOF2
mac "zz": expected xx:xx:xx:xx:xx:xx|--memif $T/c.sock,mac=zz --memif $T/d.sock
--ring 1000: memif rings take a power of two|--ring 1000 --memif $T/c.sock --memif $T/d.sock
--memif $T/nowhere.sock: connect: No such file|--memif $T/nowhere.sock --memif $T/d.sock
EOF2
ok "bad --memif arguments refused with the reason"

# podwire-jitter: one line of JSON for a core that exists; a clear refusal
# naming the argument otherwise.
J=$("$BUILD/podwire-jitter" 0 0.2) || fail "podwire-jitter 0 0.2 failed"
echo "$J" | jq -e '.cpu == 0 and .seconds == 0.2 and .gaps_over_5us >= .gaps_over_20us
	and .gaps_over_20us >= .gaps_over_100us and .stalled_fraction >= 0
	and .stalled_fraction < 1' >/dev/null || fail "podwire-jitter output: $J"
for bad in "x" "0 0" "0 -1" "99999"; do
	# shellcheck disable=SC2086
	if "$BUILD/podwire-jitter" $bad >"$T/j.out" 2>"$T/j.err"; then
		fail "podwire-jitter $bad succeeded: $(cat "$T/j.out")"
	fi
	grep -q "podwire-jitter: .*\(CPU\|SECONDS\)" "$T/j.err" ||
		fail "podwire-jitter $bad: unclear error: $(cat "$T/j.err")"
done
ok "podwire-jitter: $J; bad arguments refused"
