#!/bin/bash
# The first thing a DPDK user runs: two testpmd pods in io mode, started
# with tx_first, with testpmd's default MACs and peer addresses. Every
# frame goes to a MAC nobody owns (02:00:00:00:00:0X) and is flooded as
# unknown unicast; the pods bounce it back and forth. On a network of 5
# ports of which only the two pods' are connected, each flood has one
# possible destination: the storm guard must not slow it (the flood limit
# once held this run to 0.01 Mpps). Both vhost-user and memif.
#
# Then a third pod connects to the vhost-user network: now every flood is
# copied twice, an amplification, and the default flood limit applies; the
# first drops get one log line per port that names the option.
. "$(dirname "$0")/lib.sh"

# Frames each pod must receive: ten times the burst the default limit
# (10,000/s, a second's worth at once) allowed before it counted floods
# whatever their copies. Both pods and podwired's control thread share one
# core here, so frames move at the pace of the scheduler's time slices:
# 16 bursts of 32 are kept in flight.
WANT=${IO_WANT_FRAMES:-100000}

daemon_start pw
for kind in vhost memif; do
	ctl pw network add "$kind-net" >/dev/null
	for i in 1 2 3 4 5; do
		case $kind in
		vhost) ctl pw port add "$kind-$i" --network "$kind-net" --type vhost-user \
			--socket "$T/$kind-$i.sock" >/dev/null ;;
		memif) ctl pw port add "$kind-$i" --network "$kind-net" --type memif \
			--socket "$T/$kind-$i.sock" >/dev/null ;;
		esac
	done
done

# io_pod KIND N: testpmd in io mode on port KIND-N, no MAC given anywhere.
io_pod() {
	local vdev
	case $1 in
	vhost) vdev="net_virtio_user0,path=$T/$1-$2.sock,queues=1" ;;
	memif) vdev="net_memif0,role=client,socket=$T/$1-$2.sock,socket-abstract=no" ;;
	esac
	pod_up pw "$1-$2" "$1$2" "$vdev" --forward-mode=io
}

for kind in vhost memif; do
	io_pod $kind 1
	io_pod $kind 2
	pod_cmd ${kind}1 stop
	pod_cmd ${kind}1 "start tx_first 16"
	wait_for 120 "$kind: $WANT frames through each pod" \
		eval "pod_rx_ge ${kind}1 $WANT && pod_rx_ge ${kind}2 $WANT"
	expect_eq "$kind: frames dropped by the flood limit" 0 \
		"$(port_stat pw $kind-1 .drops.flood_limit)"
	ok "$kind: $(pod_rx ${kind}1) and $(pod_rx ${kind}2) frames received by the pods"
	pod_cmd ${kind}1 stop
	pod_cmd ${kind}2 stop
done
if grep -q "flood limit" "$T/pw.log"; then
	fail "a flood limit log line while nothing amplified: $(grep -m1 'flood limit' "$T/pw.log")"
fi

# A third live port on the vhost-user network: each flood now makes a copy
# more than a unicast frame would, and the limit applies.
io_pod vhost 3
pod_cmd vhost1 "start tx_first 16"
pod_cmd vhost2 start
wait_for 60 "the flood limit to drop frames on vhost-1" \
	port_stat_ge pw vhost-1 .drops.flood_limit 1
wait_for 10 "the flood limit's log line for vhost-1" \
	grep -q 'port "vhost-1": its flood limit (10000 extra copies/s) dropped .*--flood-limit' "$T/pw.log"
sleep 2
expect_eq "flood limit log lines for vhost-1" 1 "$(grep -c 'port "vhost-1": its flood limit' "$T/pw.log")"

