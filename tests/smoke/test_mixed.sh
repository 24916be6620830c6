#!/bin/bash
# One vhost-user pod and one memif pod on one bridge network: frames go
# both ways across the two port kinds and every counter agrees exactly.
. "$(dirname "$0")/lib.sh"

MAC_V=02:00:00:00:0a:01
MAC_M=02:00:00:00:0b:01

daemon_start pw
ctl pw network add net1
ctl pw port add pod-v --network net1 --type vhost-user --socket "$T/v.sock" --mac $MAC_V
ctl pw port add pod-m --network net1 --type memif --socket "$T/m.sock" --mac $MAC_M

pod_up pw pod-v v "$(vdev_virtio "$T/v.sock" $MAC_V)" --eth-peer=0,$MAC_M
pod_up pw pod-m m "$(vdev_memif "$T/m.sock" $MAC_M)" --eth-peer=0,$MAC_V

# memif -> vhost first (podwired learns m), then vhost -> memif, then
# memif -> vhost again, now as known unicast.
pod_send m 2
wait_for 10 "v to receive m's 64 frames" pod_rx_ge v 64
pod_send v 8
wait_for 10 "m to receive v's 256 frames" pod_rx_ge m 256
pod_send m 4
wait_for 10 "v to receive m's 192 frames" pod_rx_ge v 192

expect_eq "pod v tx" 256 "$(pod_tx v)"
expect_eq "pod v rx" 192 "$(pod_rx v)"
expect_eq "pod m tx" 192 "$(pod_tx m)"
expect_eq "pod m rx" 256 "$(pod_rx m)"
expect_eq "pod v rx bytes" $((192 * 64)) "$(pod_bytes v | cut -d' ' -f1)"
expect_eq "pod m rx bytes" $((256 * 64)) "$(pod_bytes m | cut -d' ' -f1)"
expect_eq "podwired pod-v rx" 256 "$(port_stat pw pod-v .rx_packets)"
expect_eq "podwired pod-v tx" 192 "$(port_stat pw pod-v .tx_packets)"
expect_eq "podwired pod-m rx" 192 "$(port_stat pw pod-m .rx_packets)"
expect_eq "podwired pod-m tx" 256 "$(port_stat pw pod-m .tx_packets)"
expect_eq "podwired pod-v tx bytes" $((192 * 64)) "$(port_stat pw pod-v .tx_bytes)"
expect_eq "podwired pod-m tx bytes" $((256 * 64)) "$(port_stat pw pod-m .tx_bytes)"
for p in pod-v pod-m; do
	expect_eq "podwired $p drops" 0 "$(ctlj pw stats $p | jq '[.ports[0].drops[]] | add')"
done
expect_eq "MAC of pod v learned on pod-v" pod-v \
	"$(ctlj pw mac list net1 | jq -r ".entries[] | select(.mac==\"$MAC_V\") | .port")"
expect_eq "MAC of pod m learned on pod-m" pod-m \
	"$(ctlj pw mac list net1 | jq -r ".entries[] | select(.mac==\"$MAC_M\") | .port")"
