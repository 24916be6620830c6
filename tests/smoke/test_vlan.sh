#!/bin/bash
# Two bridge networks on VLANs 100 and 200. Pod ports are access ports:
# the networks stay isolated, a frame tagged with the network's own VLAN is
# delivered untagged, and any other tag is dropped and counted
# (drops.vlan_mismatch) on the port it came in on.
#
# Tagged frames come from a pod that replays a pcap file (net_pcap as its
# port 1, io forwarding into its virtio port 0): testpmd's txonly cannot tag
# on virtio-user (the virtio PMD inserts tags in tx_prepare, which txonly
# never calls) and memif has no VLAN insert at all.
. "$(dirname "$0")/lib.sh"

BCAST=ff:ff:ff:ff:ff:ff
NOBODY=02:00:00:00:ee:ee
declare -A MAC=([a1]=02:00:00:00:0a:01 [a2]=02:00:00:00:0a:02 [t]=02:00:00:00:0a:03
	[b1]=02:00:00:00:0b:01 [b2]=02:00:00:00:0b:02)
declare -A NET=([a1]=net1 [a2]=net1 [t]=net1 [b1]=net2 [b2]=net2)

daemon_start pw
ctl pw network add net1 --vlan 100
ctl pw network add net2 --vlan 200
for p in a1 a2 t b1 b2; do
	ctl pw port add pod-$p --network ${NET[$p]} --type vhost-user --socket "$T/$p.sock" \
		--mac ${MAC[$p]}
done
for p in a1 a2 b1 b2; do
	pod_up pw pod-$p $p "$(vdev_virtio "$T/$p.sock" ${MAC[$p]})" --eth-peer=0,$BCAST
done

# t replays, per round: a frame for a2 tagged 100 (its network's VLAN), one
# for b2 tagged 200 (the other network's VLAN), a broadcast tagged 300.
pcap_write "$T/t.pcap" 32 \
	"$(frame_hex "${MAC[a2]}" "${MAC[t]}" 64 100)" \
	"$(frame_hex "${MAC[b2]}" "${MAC[t]}" 64 200)" \
	"$(frame_hex $BCAST "${MAC[t]}" 64 300)"
POD_EAL="--vdev net_pcap0,rx_pcap=$T/t.pcap,tx_pcap=$T/t-out.pcap" \
	pod_start t "$(vdev_virtio "$T/t.sock" ${MAC[t]})" --forward-mode=io --no-flush-rx
wait_link pw pod-t up

tx_is() { expect_eq "podwired tx to pod-$1" "$2" "$(port_stat pw pod-$1 .tx_packets)"; }

# ---- isolation ---------------------------------------------------------------
# podwired counts a flood's copies in the worker loop that delivers them, so
# once the in-network pod has its frames the other counters are final.
# Broadcasts first: podwired learns every MAC.
pod_send a1 1
wait_for 10 "a2 to receive a1's broadcast" pod_rx_ge a2 32
tx_is b1 0
tx_is b2 0
pod_send a2 1
wait_for 10 "a1 to receive a2's broadcast" pod_rx_ge a1 32
pod_send b1 1
wait_for 10 "b2 to receive b1's broadcast" pod_rx_ge b2 32
tx_is a1 32
tx_is a2 32
tx_is t 64
pod_send b2 1
wait_for 10 "b1 to receive b2's broadcast" pod_rx_ge b1 32
# Unknown unicast: to a MAC nobody has, and to a MAC known only on the
# other network.
pod_peer a1 $NOBODY
pod_send a1 1
wait_for 10 "a2 to receive a1's unknown unicast" pod_rx_ge a2 64
tx_is b1 32
tx_is b2 32
pod_peer b1 "${MAC[a2]}"
pod_send b1 1
wait_for 10 "b2 to receive b1's frames for a2's MAC" pod_rx_ge b2 64
tx_is a2 64
tx_is b1 32

# ---- tags --------------------------------------------------------------------
pod_cmd t start
wait_for 10 "podwired to receive t's 96 frames" port_stat_ge pw pod-t .rx_packets 96
wait_for 10 "a2 to receive t's 32 frames tagged 100" pod_rx_ge a2 96
expect_eq "pod t tx (pcap replayed)" 96 "$(pod_tx t)"
expect_eq "podwired pod-t rx bytes (tagged)" $((96 * 68)) "$(port_stat pw pod-t .rx_bytes)"
expect_eq "podwired pod-t drops.vlan_mismatch" 64 "$(port_stat pw pod-t .drops.vlan_mismatch)"
tx_is a2 96
expect_eq "podwired tx bytes to pod-a2 (all untagged)" $((96 * 64)) \
	"$(port_stat pw pod-a2 .tx_bytes)"
tx_is a1 32
tx_is b1 32
tx_is b2 64

# A last unicast on each network, after which anything leaked earlier
# would have arrived.
pod_peer a2 "${MAC[a1]}"
pod_send a2 1
wait_for 10 "a1 to receive a2's unicast" pod_rx_ge a1 64
pod_peer b2 "${MAC[b1]}"
pod_send b2 1
wait_for 10 "b1 to receive b2's unicast" pod_rx_ge b1 64

declare -A RX=([a1]=64 [a2]=96 [t]=96 [b1]=64 [b2]=64)
for p in a1 a2 t b1 b2; do
	expect_eq "pod $p rx" ${RX[$p]} "$(pod_rx $p)"
	expect_eq "podwired pod-$p tx" ${RX[$p]} "$(port_stat pw pod-$p .tx_packets)"
done
expect_eq "pod a2 rx bytes (untagged)" $((96 * 64)) "$(pod_bytes a2 | cut -d' ' -f1)"
for p in a1 a2 b1 b2; do
	expect_eq "podwired pod-$p drops.vlan_mismatch" 0 \
		"$(port_stat pw pod-$p .drops.vlan_mismatch)"
done

macs() { ctlj pw mac list "$1" | jq -r '.entries[] | "\(.mac) \(.port)"' | sort | xargs; }
expect_eq "MACs of net1" "${MAC[a1]} pod-a1 ${MAC[a2]} pod-a2 ${MAC[t]} pod-t" "$(macs net1)"
expect_eq "MACs of net2" "${MAC[b1]} pod-b1 ${MAC[b2]} pod-b2" "$(macs net2)"
