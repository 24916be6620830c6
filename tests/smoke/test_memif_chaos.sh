#!/bin/bash
# Chaos: pods A and B exchange frames at full speed through podwired over
# memif (podwire-bench acting as both, each sending to the other) while a third
# memif pod on the same network, sending at full speed too, is SIGKILLed
# at a random moment and started again, MEMIF_CHAOS_KILLS times (CI size
# 30; the full size is 200). The killed pod alternates between a port where
# podwired is the memif server and one where it is the client.
# podwired never dies; A's and B's traffic never stops (podwired delivers
# frames to each of them in every 1 s window); podwired's fds, heap and
# hugepage heap are the same after the kills as after the first ones.
. "$(dirname "$0")/lib.sh"

KILLS=${MEMIF_CHAOS_KILLS:-30}
MAC_A=02:00:00:00:0a:01
MAC_B=02:00:00:00:0b:01
MAC_C1=02:00:00:00:0c:01
MAC_C2=02:00:00:00:0c:02

# No per-thread malloc caches in podwired: chunks a thread caches count as
# in use in mallinfo2, which would blur the heap figure compared below.
GLIBC_TUNABLES=glibc.malloc.tcache_count=0 daemon_start pw
ctl pw network add net1
for p in a:$MAC_A b:$MAC_B c1:$MAC_C1; do
	ctl pw port add "pod-${p%%:*}" --network net1 --type memif --socket "$T/${p%%:*}.sock" \
		--mac "${p#*:}"
done
ctl pw port add pod-c2 --network net1 --type memif --socket "$T/c2.sock" --mac $MAC_C2 --client

# A and B: the generator, at full speed for longer than the kills take.
"$BUILD/podwire-bench" --lcores "0@$POD_CPU,1@$POD_CPU" --main-lcore 0 \
	--file-prefix "pwt$$-bench" --in-memory --single-file-segments --no-pci \
	--log-level '*:notice' \
	--vdev "$(vdev_memif "$T/a.sock" $MAC_A)" \
	--vdev "net_memif1,role=client,socket=$T/b.sock,socket-abstract=no,mac=$MAC_B" \
	-- --duration $((KILLS * 5 + 60)) --warmup 0.5 --size 64 --flows 4 --json \
	>"$T/bench.json" 2>"$T/pod-bench.log" &
POD_PID[bench]=$!
wait_link pw pod-a up
wait_link pw pod-b up
wait_for 20 "frames from A to B" port_stat_ge pw pod-b .tx_packets 1000
wait_for 20 "frames from B to A" port_stat_ge pw pod-a .tx_packets 1000

# c_up N: starts pod cN (sending to A at full speed) and waits until it is
# connected on both sides.
c_up() {
	local n=$1 vdev
	if [ "$n" = 1 ]; then
		vdev=$(vdev_memif "$T/c1.sock" $MAC_C1)
	else
		# The pod is the memif server here; a killed one leaves its
		# socket file, which a restarted app removes.
		rm -f "$T/c2.sock"
		vdev="net_memif0,role=server,socket=$T/c2.sock,socket-abstract=no,mac=$MAC_C2"
	fi
	pod_up pw "pod-c$n" "c$n" "$vdev" --forward-mode=txonly --eth-peer=0,$MAC_A
}

memory() { daemon_memory pw; }
# settled FDS DPDK ALLOCS: podwired holds what it held before (a departed
# peer's teardown finishes on the control thread a moment after the kill).
settled() {
	local m
	read -ra m <<<"$(memory)"
	[ "${m[0]}" = "$1" ] && [ "${m[1]}" = "$2" ] && [ "${m[2]}" = "$3" ]
}

# Warm-up: one kill on each port, so that allocators reach their working
# size, then the figures to compare with.
for n in 1 2; do
	c_up $n
	pod_kill "c$n"
	wait_link pw "pod-c$n" down
done
read -ra M0 <<<"$(memory)"
log "before: fds ${M0[0]}, DPDK heap ${M0[1]} B in ${M0[2]} allocations, heap ${M0[3]} B," \
	"hugetlb ${M0[4]} kB"

# Podwired's frames to A and to B, every second, in the background.
(
	while :; do
		ctlj pw stats | jq -r '([.ports[] | select(.name == "pod-a" or .name == "pod-b") |
			.tx_packets] + [.ports[] | .rx_packets] + [.workers[0].busy_cycles, .workers[0].idle_cycles]) | "\(now) " + join(" ")' >>"$T/windows" || true
		sleep 1
	done
) &
SAMPLER=$!

start=$(date +%s)
for i in $(seq 1 "$KILLS"); do
	n=$((i % 2 + 1))
	c_up $n
	# A random moment of its traffic: 0 to 300 ms after it started.
	sleep "0.$(printf '%03d' $((RANDOM % 300)))"
	pod_kill "c$n"
	daemon_alive pw || fail "podwired died at kill $i (pod-c$n); log: $(tail -n 5 "$T/pw.log")"
	wait_link pw "pod-c$n" down
	[ $((i % 10)) != 0 ] || log "$i kills, podwired: $(memory)"
done
secs=$(($(date +%s) - start))
kill "$SAMPLER"
wait "$SAMPLER" 2>/dev/null || true
ok "$KILLS kills in ${secs}s, podwired alive"

# Every window: frames went to A and to B.
log "samples: time, podwired tx to A and B, rx of every port, worker busy and idle cycles"
cat "$T/windows"
windows=$(($(wc -l <"$T/windows") - 1))
[ "$windows" -ge $((secs / 2)) ] || fail "only $windows samples in ${secs}s"
empty=$(awk 'NR > 1 && ($2 <= a || $3 <= b) {n++; print "window " NR - 1 ": A +" $2 - a ", B +" $3 - b > "/dev/stderr"}
	{a = $2; b = $3} END {print n + 0}' "$T/windows")
expect_eq "1 s windows in which A or B received nothing (of $windows)" 0 "$empty"
rates=$(awk 'NR > 1 {da = $2 - a; db = $3 - b; if (!m || da < m) m = da; if (!mb || db < mb) mb = db}
	{a = $2; b = $3} END {print m " " mb}' "$T/windows")
ok "A and B received frames in all $windows windows (fewest in a window: A ${rates% *}, B ${rates#* })"

# Nothing left behind by the departed peers.
wait_for 10 "podwired's fds and DPDK heap to be as before" settled "${M0[0]}" "${M0[1]}" "${M0[2]}"
read -ra M1 <<<"$(memory)"
log "after: fds ${M1[0]}, DPDK heap ${M1[1]} B in ${M1[2]} allocations, heap ${M1[3]} B," \
	"hugetlb ${M1[4]} kB"
ok "fds ${M0[0]} -> ${M1[0]}, DPDK heap ${M0[1]} -> ${M1[1]} B (${M0[2]} -> ${M1[2]} allocations)"
# malloc'd bytes (no thread caches, see daemon_start above): a code path
# met for the first time may keep a chunk for good (seen: 32 bytes once in
# a run), but a leak of even the smallest chunk (32 bytes) per kill would
# be 960 bytes at the CI size.
[ "${M1[3]}" -le $((M0[3] + 256)) ] ||
	fail "podwired's heap grew from ${M0[3]} to ${M1[3]} bytes in $KILLS kills"
ok "podwired's heap: ${M0[3]} -> ${M1[3]} bytes in $KILLS kills"
expect_eq "hugepage memory mapped by podwired (kB)" "${M0[4]}" "${M1[4]}"
# And the survivors still talk.
daemon_alive pw || fail "podwired died"
expect_eq "pod-a link" up "$(port_link pw pod-a)"
expect_eq "pod-b link" up "$(port_link pw pod-b)"
kill -0 "${POD_PID[bench]}" || fail "the generator (pods A and B) stopped early: $(tail -n 5 "$T/pod-bench.log")"
