#!/bin/bash
# podwire-bench's memif pods started before their switch serves them, as
# perf/suite.sh starts them against dpdk-testpmd: DPDK 22.11's net_memif
# listens from the probe of its device but answers the client's INIT with
# "ID not found" and hangs up until the port is started (its DISABLED flag
# is cleared in dev_start). Here testpmd's ports stay stopped
# (--disable-device-start) until the generator has been refused: the
# generator must go on trying, connect once the ports start, and measure.
# (It gave up at the first refusal: "cannot talk to the switch: Broken
# pipe" or "the switch disconnected: ID not found".)
. "$(dirname "$0")/lib.sh"

BENCH=$BUILD/podwire-bench
[ -x "$BENCH" ] || fail "$BENCH is not built; run: ninja -C $BUILD"

# testpmd: two memif servers, io forwarding on the worker core, ports not
# started; memif's debug log says when it refuses the generator.
mkfifo "$T/pod-tp.in"
stdbuf -oL -eL dpdk-testpmd --lcores "0@$POD_CPU,1@$WORKER_CPU" --main-lcore 0 \
	--file-prefix "pwt$$-tp" --in-memory --no-pci --log-level 'pmd.net.memif:debug' \
	--vdev "net_memif0,role=server,socket=$T/p0.sock,socket-abstract=no" \
	--vdev "net_memif1,role=server,socket=$T/p1.sock,socket-abstract=no" \
	-- -i --nb-cores=1 --forward-mode=io --total-num-mbufs=8192 --disable-device-start \
	<"$T/pod-tp.in" >"$T/pod-tp.log" 2>&1 &
POD_PID[tp]=$!
exec {fd}>"$T/pod-tp.in"
POD_FD[tp]=$fd
pod_ready tp
[ -S "$T/p1.sock" ] || fail "testpmd's memif sockets are missing: $(ls "$T")"

"$BENCH" --lcores "0@$POD_CPU" --file-prefix "pwt$$-bench" --in-memory --no-pci \
	--log-level '*:notice' -- --memif "$T/p0.sock,mac=02:00:00:00:00:01" \
	--memif "$T/p1.sock,mac=02:00:00:00:00:02" --rate 100000 --warmup 0.5 --duration 2 \
	--size 64 --json >"$T/bench.json" 2>"$T/pod-bench.log" &
POD_PID[bench]=$!
wait_for 20 "testpmd to refuse the generator" grep -q 'ID 0 not found' "$T/pod-tp.log"
sleep 0.3 # and again, a few times
kill -0 "${POD_PID[bench]}" 2>/dev/null || {
	cat "$T/pod-bench.log"
	fail "podwire-bench gave up on a switch that was not serving yet"
}
ok "refused ($(grep -c 'ID 0 not found' "$T/pod-tp.log") times so far), the generator goes on"

pod_cmd tp "port start all"
pod_cmd tp start
rc=0
wait "${POD_PID[bench]}" || rc=$?
unset "POD_PID[bench]"
[ $rc -eq 0 ] || { cat "$T/pod-bench.log"; fail "podwire-bench exited with status $rc"; }
grep -q 'memif .*p0.sock: the switch was not serving it yet (the switch disconnected: ID not found): connected at try' \
	"$T/pod-bench.log" || { cat "$T/pod-bench.log"; fail "podwire-bench did not say why it waited"; }
jq -e '.pods == 2 and .rx_packets > 0 and .tx_packets > 0' "$T/bench.json" >/dev/null ||
	fail "nothing went through testpmd: $(jq -c '{tx_packets, rx_packets}' "$T/bench.json")"
ok "connected once the ports started: $(grep -o 'connected at try.*' "$T/pod-bench.log" | head -n 1);" \
	"tx $(jq .tx_packets "$T/bench.json") rx $(jq .rx_packets "$T/bench.json")"
