#!/bin/bash
# Two bridge networks, two pods each. Broadcast and unknown unicast from a
# pod reach only the other pod of its own network: the pods of the other
# network receive nothing and podwired sends them nothing. A MAC learned
# on one network is unknown on the other.
. "$(dirname "$0")/lib.sh"

BCAST=ff:ff:ff:ff:ff:ff
NOBODY=02:00:00:00:ee:ee
declare -A MAC=([a1]=02:00:00:00:0a:01 [a2]=02:00:00:00:0a:02
	[b1]=02:00:00:00:0b:01 [b2]=02:00:00:00:0b:02)

daemon_start pw
ctl pw network add net1
ctl pw network add net2
for p in a1 a2; do
	ctl pw port add pod-$p --network net1 --type vhost-user --socket "$T/$p.sock" --mac ${MAC[$p]}
done
for p in b1 b2; do
	ctl pw port add pod-$p --network net2 --type vhost-user --socket "$T/$p.sock" --mac ${MAC[$p]}
done
for p in a1 a2 b1 b2; do
	pod_up pw pod-$p $p "$(vdev_virtio "$T/$p.sock" ${MAC[$p]})" --eth-peer=0,$BCAST
done

# podwired's tx counter is bumped in the same worker loop that delivers a
# flood's other copies, so once the in-network pod has its frames this is
# final.
no_tx_to() {
	local p
	for p in "$@"; do
		expect_eq "podwired tx to pod-$p" 0 "$(port_stat pw pod-$p .tx_packets)"
	done
}

# 1. Broadcast from each pod, which also makes podwired learn every MAC.
pod_send a1 1
wait_for 10 "a2 to receive a1's broadcast" pod_rx_ge a2 32
no_tx_to b1 b2
expect_eq "pod b1 rx after a1's broadcast" 0 "$(pod_rx b1)"
expect_eq "pod b2 rx after a1's broadcast" 0 "$(pod_rx b2)"
pod_send b1 1
wait_for 10 "b2 to receive b1's broadcast" pod_rx_ge b2 32
no_tx_to a1
expect_eq "pod a1 rx after b1's broadcast" 0 "$(pod_rx a1)"
expect_eq "pod a2 rx after b1's broadcast" 32 "$(pod_rx a2)"
pod_send a2 1
wait_for 10 "a1 to receive a2's broadcast" pod_rx_ge a1 32
pod_send b2 1
wait_for 10 "b1 to receive b2's broadcast" pod_rx_ge b1 32

# 2. Unknown unicast: to a MAC nobody has, and to a MAC known only on the
# other network. Each floods to the sender's network only.
pod_peer a1 $NOBODY
pod_send a1 1
wait_for 10 "a2 to receive a1's unknown unicast" pod_rx_ge a2 64
pod_peer a1 "${MAC[b1]}"
pod_send a1 1
wait_for 10 "a2 to receive a1's frames for b1's MAC" pod_rx_ge a2 96
expect_eq "podwired tx to pod-b1 (b2's broadcast only)" 32 "$(port_stat pw pod-b1 .tx_packets)"
expect_eq "podwired tx to pod-b2 (b1's broadcast only)" 32 "$(port_stat pw pod-b2 .tx_packets)"
pod_peer b1 $NOBODY
pod_send b1 1
wait_for 10 "b2 to receive b1's unknown unicast" pod_rx_ge b2 64
pod_peer b1 "${MAC[a2]}"
pod_send b1 1
wait_for 10 "b2 to receive b1's frames for a2's MAC" pod_rx_ge b2 96
expect_eq "podwired tx to pod-a1 (a2's broadcast only)" 32 "$(port_stat pw pod-a1 .tx_packets)"
expect_eq "podwired tx to pod-a2" 96 "$(port_stat pw pod-a2 .tx_packets)"

# 3. A last known unicast on each network, after which anything leaked
# earlier would have arrived.
pod_peer a2 "${MAC[a1]}"
pod_send a2 1
wait_for 10 "a1 to receive a2's unicast" pod_rx_ge a1 64
pod_peer b2 "${MAC[b1]}"
pod_send b2 1
wait_for 10 "b1 to receive b2's unicast" pod_rx_ge b1 64

declare -A RX=([a1]=64 [a2]=96 [b1]=64 [b2]=96) TX=([a1]=96 [a2]=64 [b1]=96 [b2]=64)
for p in a1 a2 b1 b2; do
	expect_eq "pod $p rx" ${RX[$p]} "$(pod_rx $p)"
	expect_eq "pod $p tx" ${TX[$p]} "$(pod_tx $p)"
	expect_eq "podwired pod-$p tx" ${RX[$p]} "$(port_stat pw pod-$p .tx_packets)"
	expect_eq "podwired pod-$p rx" ${TX[$p]} "$(port_stat pw pod-$p .rx_packets)"
done

# 4. Each MAC is learned on its own network only.
macs() { ctlj pw mac list "$1" | jq -r '.entries[] | "\(.mac) \(.port)"' | sort | xargs; }
expect_eq "MACs of net1" "${MAC[a1]} pod-a1 ${MAC[a2]} pod-a2" "$(macs net1)"
expect_eq "MACs of net2" "${MAC[b1]} pod-b1 ${MAC[b2]} pod-b2" "$(macs net2)"
