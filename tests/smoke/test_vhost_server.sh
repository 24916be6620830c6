#!/bin/bash
# Two testpmd pods over vhost-user (podwired creates the sockets) exchange
# a known number of frames through an L2 bridge network; the pods' and
# podwired's counters must agree exactly.
. "$(dirname "$0")/lib.sh"

MAC_A=02:00:00:00:0a:01
MAC_B=02:00:00:00:0b:01

daemon_start pw
ctl pw network add net1
ctl pw port add pod-a --network net1 --type vhost-user --socket "$T/a.sock" --mac $MAC_A
ctl pw port add pod-b --network net1 --type vhost-user --socket "$T/b.sock" --mac $MAC_B
[ -S "$T/a.sock" ] && [ -S "$T/b.sock" ] || fail "sockets were not created"
# Connectable by owner and group (the directory decides who gets there).
expect_eq "pod socket mode" 770 "$(stat -c %a "$T/a.sock")"
expect_eq "link before the pod connects" down "$(port_link pw pod-a)"

pod_up pw pod-a a "$(vdev_virtio "$T/a.sock" $MAC_A)" --eth-peer=0,$MAC_B
pod_up pw pod-b b "$(vdev_virtio "$T/b.sock" $MAC_B)" --eth-peer=0,$MAC_A

# b speaks first so that podwired learns it; a's frames then go to b only.
pod_send b 1
wait_for 10 "a to receive b's 32 frames" pod_rx_ge a 32
pod_send a 8
wait_for 10 "b to receive 256 frames" pod_rx_ge b 256

expect_eq "pod a tx" 256 "$(pod_tx a)"
expect_eq "pod a rx" 32 "$(pod_rx a)"
expect_eq "pod b tx" 32 "$(pod_tx b)"
expect_eq "pod b rx" 256 "$(pod_rx b)"
expect_eq "podwired pod-a rx" 256 "$(port_stat pw pod-a .rx_packets)"
expect_eq "podwired pod-a tx" 32 "$(port_stat pw pod-a .tx_packets)"
expect_eq "podwired pod-b rx" 32 "$(port_stat pw pod-b .rx_packets)"
expect_eq "podwired pod-b tx" 256 "$(port_stat pw pod-b .tx_packets)"
expect_eq "podwired pod-b rx bytes" $((32 * 64)) "$(port_stat pw pod-b .rx_bytes)"
expect_eq "MAC of pod a learned on pod-a" pod-a \
	"$(ctlj pw mac list net1 | jq -r ".entries[] | select(.mac==\"$MAC_A\") | .port")"

# The link follows the peer.
pod_stop a
wait_link pw pod-a down
ok "link down after pod a left"
