#!/bin/bash
# The README's walk-through, as written there: pod A answers (macswap), pod
# B sends 32 bursts of 32 to A and counts what comes back. Both pods share
# one core, with rings as large as the bursts (queue_size=1024, --rxd/--txd
# 1024): all 1,024 frames come back, none is dropped anywhere.
. "$(dirname "$0")/lib.sh"

MAC_A=02:00:00:00:00:0a MAC_B=02:00:00:00:00:0b
RINGS=(--rxd=1024 --txd=1024)

daemon_start pw
ctl pw network add net1
ctl pw port add pod-a --network net1 --type vhost-user --socket "$T/a.sock" --mac $MAC_A
ctl pw port add pod-b --network net1 --type vhost-user --socket "$T/b.sock" --mac $MAC_B
pod_up pw pod-a a "$(vdev_virtio "$T/a.sock" $MAC_A queue_size=1024)" --forward-mode=macswap \
	"${RINGS[@]}"
pod_up pw pod-b b "$(vdev_virtio "$T/b.sock" $MAC_B queue_size=1024)" --eth-peer=0,$MAC_A \
	"${RINGS[@]}"
pod_send b 32
wait_for 20 "B to have its 1,024 frames back" pod_rx_ge b 1024
expect_eq "frames B sent" 1024 "$(pod_tx b)"
expect_eq "frames B received" 1024 "$(pod_rx b)"
for p in pod-a pod-b; do
	expect_eq "$p: drops" 0 "$(ctlj pw stats $p | jq '[.ports[0].drops[]] | add')"
done
"$PODWIRECTL" --socket "$T/pw.sock" stats
