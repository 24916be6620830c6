#!/bin/bash
# Leaks: memif ports created and deleted MEMIF_LEAK_PORTS times (server and
# client role in turn), then a peer connected and SIGKILLed
# MEMIF_LEAK_PEERS times (on a server-role and a client-role port in
# turn, the peer a well-behaved memif speaker that sends a frame and is
# killed while connected). After each phase podwired holds exactly the
# fds, malloc'd bytes, DPDK heap and hugepage memory it held after a short
# warm-up. CI sizes: 1,000 port cycles, 300 peer cycles; the full size of
# the peer phase is 1,000 (MEMIF_LEAK_PEERS=1000).
. "$(dirname "$0")/lib.sh"

PORTS=${MEMIF_LEAK_PORTS:-1000}
PEERS=${MEMIF_LEAK_PEERS:-300}
HOSTILE=$BUILD/memif-hostile
[ -x "$HOSTILE" ] || fail "$HOSTILE is not built; run: ninja -C $BUILD"

# No per-thread malloc caches: chunks a thread caches count as in use in
# mallinfo2, which would blur the heap figure compared below.
# Each peer is killed soon after it connected, as a peer in a connect-and-
# drop loop: a short back-off keeps the cycles quick and still takes the
# paths of one.
GLIBC_TUNABLES=glibc.malloc.tcache_count=0 daemon_start pw --memif-backoff-max-ms 20
ctl pw network add net1

memory() { daemon_memory pw; }
# settled FDS DPDK ALLOCS HEAP HUGE: podwired holds what it held before (a
# departed peer's teardown ends on the control thread a moment after the
# kill): the same fds, DPDK heap and hugepage mappings, and malloc'd bytes
# within one chunk's worth per 4 cycles of before (a code path met for the
# first time may keep a chunk for good; a leak per cycle is far more).
settled() {
	local m
	read -ra m <<<"$(memory)"
	[ "${m[0]}" = "$1" ] && [ "${m[1]}" = "$2" ] && [ "${m[2]}" = "$3" ] &&
		[ "${m[3]}" -le $(($4 + 256)) ] && [ "${m[4]}" = "$5" ]
}
check() { # PHASE BEFORE...
	local phase=$1 now
	shift
	wait_for 10 "podwired to hold what it held before the $phase" settled "$@"
	now=$(memory)
	ok "$phase: fds, DPDK heap (bytes, allocations), heap bytes, hugetlb kB: $* -> $now"
}

# ---- ports created and deleted ---------------------------------------------
# port_cycle I: one memif port, server role for even I, client for odd.
port_cycle() {
	local role=--server
	[ $(($1 % 2)) = 0 ] || role=--client
	ctl pw port add "m$1" --network net1 --type memif --socket "$T/m$1.sock" $role >/dev/null
	ctl pw port del "m$1" >/dev/null
}
for i in $(seq 1001 1010); do port_cycle "$i"; done
BEFORE=$(memory)
start=$(date +%s%N)
for i in $(seq 1 "$PORTS"); do port_cycle "$i"; done
log "$PORTS port cycles in $((($(date +%s%N) - start) / 1000000)) ms"
expect_eq "ports left" 0 "$(ctlj pw port list | jq '.ports | length')"
check "$PORTS port create/delete cycles" $BEFORE
left=$(find "$T" -name 'm*.sock' | head -n 3)
[ -z "$left" ] || fail "sockets left behind: $left"

# ---- peers connected and killed --------------------------------------------
ctl pw port add ms --network net1 --type memif --socket "$T/ms.sock" --mac 02:00:00:00:0e:01
ctl pw port add mc --network net1 --type memif --socket "$T/mc.sock" --mac 02:00:00:00:0e:02 \
	--client
# peer_cycle I: a peer on ms (even I) or mc (odd I) connects, sends a
# frame, and is SIGKILLed while connected.
peer_cycle() {
	local port=ms args=("$T/ms.sock" hold) pid
	if [ $(($1 % 2)) = 1 ]; then
		port=mc args=(--server "$T/mc.sock" srv-good)
		rm -f "$T/mc.sock" # a killed server leaves its socket file
	fi
	"$HOSTILE" --wait 60000 "${args[@]}" >"$T/peer.out" 2>&1 &
	pid=$!
	wait_link pw $port up
	wait_for 10 "the peer to say it is connected" grep -q '^connected' "$T/peer.out"
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null || true
	wait_link pw $port down
}
for i in $(seq 1 10); do peer_cycle "$i"; done
BEFORE=$(memory)
rx0=$(($(port_stat pw ms .rx_packets) + $(port_stat pw mc .rx_packets)))
start=$(date +%s%N)
for i in $(seq 1 "$PEERS"); do
	peer_cycle "$i"
	[ $((i % 100)) != 0 ] || log "$i peer cycles: $(memory)"
done
log "$PEERS peer cycles in $((($(date +%s%N) - start) / 1000000)) ms"
# Every peer was really connected: each sent a frame podwired received.
expect_eq "frames received from the peers" "$PEERS" \
	$(($(port_stat pw ms .rx_packets) + $(port_stat pw mc .rx_packets) - rx0))
expect_eq "connections counted on ms and mc" $((PEERS + 10)) \
	"$(ctlj pw port list | jq '[.ports[].memif.connects] | add')"
check "$PEERS peer connect/kill cycles" $BEFORE
daemon_alive pw || fail "podwired died"
