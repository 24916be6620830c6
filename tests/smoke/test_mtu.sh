#!/bin/bash
# Port MTU. With --mtu 1000, frames up to 1014 bytes (MTU + Ethernet
# header) pass; bigger ones are dropped and counted (drops.mtu_exceeded),
# never delivered truncated, whichever way they go. With --mtu 9000, 9014-
# byte frames (segmented in the pods' mbufs) are delivered whole, between
# two vhost-user pods and between a vhost-user and a memif pod.
. "$(dirname "$0")/lib.sh"

declare -A MAC=([a]=02:00:00:00:0a:01 [b]=02:00:00:00:0b:01 [c]=02:00:00:00:0c:01
	[d]=02:00:00:00:0d:01 [e]=02:00:00:00:0e:01 [f]=02:00:00:00:0f:01)
JUMBO=2048,2048,2048,2048,822    # 9014 bytes
JUMBO_1=2048,2048,2048,2048,823  # 9015 bytes
# The pods can receive (scatter into chained mbufs) and send 9018 bytes.
POD_JUMBO=(--max-pkt-len=9018 --enable-scatter)

daemon_start pw
ctl pw network add net1
ctl pw network add net2
ctl pw network add net3
ctl pw port add pod-a --network net1 --type vhost-user --socket "$T/a.sock" --mac ${MAC[a]} \
	--mtu 1000
ctl pw port add pod-b --network net1 --type vhost-user --socket "$T/b.sock" --mac ${MAC[b]}
for p in c d; do
	ctl pw port add pod-$p --network net2 --type vhost-user --socket "$T/$p.sock" \
		--mac ${MAC[$p]} --mtu 9000
done
ctl pw port add pod-e --network net3 --type vhost-user --socket "$T/e.sock" --mac ${MAC[e]} \
	--mtu 9000
ctl pw port add pod-f --network net3 --type memif --socket "$T/f.sock" --mac ${MAC[f]} \
	--mtu 9000
expect_eq "pod-a mtu" 1000 "$(ctlj pw port show pod-a | jq -r .mtu)"

pod_up pw pod-a a "$(vdev_virtio "$T/a.sock" ${MAC[a]})" --eth-peer=0,${MAC[b]}
pod_up pw pod-b b "$(vdev_virtio "$T/b.sock" ${MAC[b]})" --eth-peer=0,${MAC[a]}
pod_up pw pod-c c "$(vdev_virtio "$T/c.sock" ${MAC[c]})" --eth-peer=0,${MAC[d]} "${POD_JUMBO[@]}"
pod_up pw pod-d d "$(vdev_virtio "$T/d.sock" ${MAC[d]})" --eth-peer=0,${MAC[c]} "${POD_JUMBO[@]}"
pod_up pw pod-e e "$(vdev_virtio "$T/e.sock" ${MAC[e]})" --eth-peer=0,${MAC[f]} "${POD_JUMBO[@]}"
# net_memif refuses an MTU above 1500 (and has no scatter offload to ask
# for), but carries any frame as a chain of buffers: no options needed.
pod_up pw pod-f f "$(vdev_memif "$T/f.sock" ${MAC[f]})" --eth-peer=0,${MAC[e]}

mtu_drops() { port_stat pw "$1" .drops.mtu_exceeded; }
mtu_drops_net1_ge() { [ "$(($(mtu_drops pod-a) + $(mtu_drops pod-b)))" -ge "$1" ]; }

# ---- MTU 1000 ----------------------------------------------------------------
# a -> b: 1014 bytes pass; 1015 bytes are dropped where they come in.
pod_txpkts a 1014
pod_send a 1
wait_for 10 "b to receive a's 32 frames of 1014 bytes" pod_rx_ge b 32
pod_txpkts a 1015
pod_send a 2
wait_for 10 "podwired to drop a's 64 frames of 1015 bytes" port_stat_ge pw pod-a \
	.drops.mtu_exceeded 64
expect_eq "podwired pod-a rx (all counted)" 96 "$(port_stat pw pod-a .rx_packets)"
# After these last frames have arrived, the oversize ones would have too.
pod_txpkts a 1014
pod_send a 1
wait_for 10 "b to receive 32 more frames of 1014 bytes" pod_rx_ge b 64
expect_eq "pod b rx" 64 "$(pod_rx b)"
expect_eq "pod b rx bytes (none truncated)" $((64 * 1014)) "$(pod_bytes b | cut -d' ' -f1)"
expect_eq "podwired pod-b tx bytes" $((64 * 1014)) "$(port_stat pw pod-b .tx_bytes)"
expect_eq "podwired pod-a drops.mtu_exceeded" 64 "$(mtu_drops pod-a)"

# b -> a: b's MTU is 1500, a's is 1000: 1015 bytes must not reach a either.
pod_txpkts b 1015
pod_send b 1
wait_for 10 "podwired to drop b's 32 frames of 1015 bytes" mtu_drops_net1_ge 96
pod_txpkts b 1014
pod_send b 1
wait_for 10 "a to receive b's 32 frames of 1014 bytes" pod_rx_ge a 32
expect_eq "pod a rx" 32 "$(pod_rx a)"
expect_eq "pod a rx bytes (none truncated)" $((32 * 1014)) "$(pod_bytes a | cut -d' ' -f1)"
expect_eq "podwired pod-a tx" 32 "$(port_stat pw pod-a .tx_packets)"
expect_eq "drops.mtu_exceeded on pod-a and pod-b" 96 \
	"$(($(mtu_drops pod-a) + $(mtu_drops pod-b)))"

# ---- MTU 9000 ------------------------------------------------------------------
# One burst (32 frames) at a time: a 9014-byte frame takes five 2 KB
# descriptors and a virtio ring has 256.

# vhost-user <-> vhost-user ---------------------------------------
pod_txpkts c $JUMBO
pod_send c 1
wait_for 10 "d to receive c's 32 frames of 9014 bytes" pod_rx_ge d 32
pod_txpkts d $JUMBO
pod_send d 1
wait_for 10 "c to receive d's 32 frames of 9014 bytes" pod_rx_ge c 32
pod_txpkts c $JUMBO_1
pod_send c 1
wait_for 10 "podwired to drop c's 32 frames of 9015 bytes" port_stat_ge pw pod-c \
	.drops.mtu_exceeded 32
pod_txpkts c $JUMBO
pod_send c 1
wait_for 10 "d to receive 32 more frames of 9014 bytes" pod_rx_ge d 64
expect_eq "pod c tx" 96 "$(pod_tx c)"
expect_eq "pod d rx" 64 "$(pod_rx d)"
expect_eq "pod d rx bytes" $((64 * 9014)) "$(pod_bytes d | cut -d' ' -f1)"
expect_eq "pod c rx" 32 "$(pod_rx c)"
expect_eq "pod c rx bytes" $((32 * 9014)) "$(pod_bytes c | cut -d' ' -f1)"
expect_eq "podwired pod-c rx bytes" $((64 * 9014 + 32 * 9015)) "$(port_stat pw pod-c .rx_bytes)"
expect_eq "podwired pod-d tx bytes" $((64 * 9014)) "$(port_stat pw pod-d .tx_bytes)"
expect_eq "podwired pod-c drops.mtu_exceeded" 32 "$(mtu_drops pod-c)"

# vhost-user <-> memif
pod_txpkts e $JUMBO
pod_send e 1
wait_for 10 "f (memif) to receive e's 32 frames of 9014 bytes" pod_rx_ge f 32
pod_send e 1
wait_for 10 "f (memif) to receive e's 64 frames of 9014 bytes" pod_rx_ge f 64
pod_txpkts f $JUMBO
pod_send f 1
wait_for 10 "e to receive f's 32 frames of 9014 bytes" pod_rx_ge e 32
expect_eq "pod e tx" 64 "$(pod_tx e)"
expect_eq "pod f tx" 32 "$(pod_tx f)"
expect_eq "pod f rx" 64 "$(pod_rx f)"
expect_eq "pod f rx bytes" $((64 * 9014)) "$(pod_bytes f | cut -d' ' -f1)"
expect_eq "pod e rx" 32 "$(pod_rx e)"
expect_eq "pod e rx bytes" $((32 * 9014)) "$(pod_bytes e | cut -d' ' -f1)"
expect_eq "podwired pod-f rx bytes" $((32 * 9014)) "$(port_stat pw pod-f .rx_bytes)"
expect_eq "podwired pod-f tx bytes" $((64 * 9014)) "$(port_stat pw pod-f .tx_bytes)"
for p in pod-c pod-d pod-e pod-f; do
	expect_eq "podwired $p tx_full drops" 0 "$(port_stat pw $p .drops.tx_full)"
done
