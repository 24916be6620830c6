#!/bin/bash
# Ports come and go while traffic flows: 50 ports (null and vhost-user, on
# the pods' network and on another one) are added one by one, then deleted
# one by one, while pods a and b keep exchanging frames through podwired.
# The traffic must never stop, nothing may be dropped on a's and b's ports,
# and afterwards only a and b remain, with no stray socket files.
#
# The traffic: both pods run testpmd's macswap forwarding, which sends every
# frame it receives back with source and destination MACs swapped. Once a
# injects one burst of 32 frames (src a, dst b), those 32 frames bounce
# between a and b for ever: a -> podwired -> b -> podwired -> a -> ... Both
# MACs are learned beforehand, so podwired forwards them as unicast and
# never floods them to the churning ports. With only 32 frames in flight no
# ring can fill, so no drop is explainable.
. "$(dirname "$0")/lib.sh"

MAC_A=02:00:00:00:0a:01
MAC_B=02:00:00:00:0b:01
N=50

rx_grows() {
	local what=$1
	A_RX=$(port_stat pw pod-a .rx_packets)
	B_RX=$(port_stat pw pod-b .rx_packets)
	wait_for 10 "pod-a rx to grow beyond $A_RX ($what)" port_stat_ge pw pod-a .rx_packets $((A_RX + 1))
	wait_for 10 "pod-b rx to grow beyond $B_RX ($what)" port_stat_ge pw pod-b .rx_packets $((B_RX + 1))
	daemon_alive pw || fail "podwired died ($what)"
}

churn_type() { if [ $(($1 % 2)) = 1 ]; then echo null; else echo vhost-user; fi; }
churn_net() { if [ $(($1 % 4)) -lt 2 ]; then echo net1; else echo net2; fi; }

daemon_start pw
ctl pw network add net1
ctl pw network add net2
ctl pw port add pod-a --network net1 --type vhost-user --socket "$T/a.sock" --mac $MAC_A
ctl pw port add pod-b --network net1 --type vhost-user --socket "$T/b.sock" --mac $MAC_B
BEFORE=$(ctlj pw port list | jq -c '[.ports[].name]')
SOCKETS_BEFORE=$(find "$T" -type s | sort)

pod_up pw pod-a a "$(vdev_virtio "$T/a.sock" $MAC_A)" --eth-peer=0,$MAC_B
pod_up pw pod-b b "$(vdev_virtio "$T/b.sock" $MAC_B)" --eth-peer=0,$MAC_A

# Teach podwired both MACs, then start the ping-pong.
pod_send b 1
wait_for 10 "a to receive b's frames" pod_rx_ge a 32
pod_send a 1
wait_for 10 "b to receive a's frames" pod_rx_ge b 32
pod_cmd b stop
pod_cmd b "set fwd macswap"
pod_cmd b start
pod_cmd a stop
pod_cmd a "set fwd macswap"
pod_cmd a "start tx_first 1"
rx_grows "before the churn"
POD_A_RX=$(pod_rx a)
POD_B_RX=$(pod_rx b)
ok "traffic flows: pod a has received $POD_A_RX frames, pod b $POD_B_RX"

for i in $(seq $N); do
	if [ "$(churn_type $i)" = null ]; then
		ctl pw port add churn$i --network "$(churn_net $i)" --type null >/dev/null
	else
		ctl pw port add churn$i --network "$(churn_net $i)" --type vhost-user \
			--socket "$T/churn$i.sock" >/dev/null
		[ -S "$T/churn$i.sock" ] || fail "churn$i: socket $T/churn$i.sock was not created"
	fi
	[ $((i % 10)) != 0 ] || rx_grows "after adding $i ports"
done
expect_eq "ports while churning" $((N + 2)) "$(ctlj pw port list | jq '.ports | length')"
ok "added $N ports"

for i in $(seq $N); do
	ctl pw port del churn$i >/dev/null
	[ ! -e "$T/churn$i.sock" ] || fail "churn$i: socket $T/churn$i.sock is still there after port del"
	[ $((i % 10)) != 0 ] || rx_grows "after deleting $i ports"
done
ok "deleted $N ports"

# The pods' own counters went on too.
wait_for 10 "pod a's rx to grow" pod_rx_ge a $((POD_A_RX + 1))
wait_for 10 "pod b's rx to grow" pod_rx_ge b $((POD_B_RX + 1))
ok "pods a and b kept receiving"

for p in pod-a pod-b; do
	expect_eq "$p drops.link_down" 0 "$(port_stat pw $p .drops.link_down)"
	expect_eq "$p drops, all reasons" 0 "$(ctlj pw stats $p | jq '.ports[0].drops | add')"
done
expect_eq "ports after the churn" "$BEFORE" "$(ctlj pw port list | jq -c '[.ports[].name]')"
expect_eq "ports of net2" 0 "$(ctlj pw network list | jq '.networks[] | select(.name=="net2") | .ports | length')"
SOCKETS_AFTER=$(find "$T" -type s | sort)
[ "$SOCKETS_AFTER" = "$SOCKETS_BEFORE" ] || {
	diff <(echo "$SOCKETS_BEFORE") <(echo "$SOCKETS_AFTER") || true
	fail "socket files in $T differ from before the churn (diff above)"
}
ok "no stray socket files"
daemon_alive pw || fail "podwired died"
