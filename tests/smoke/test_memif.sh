#!/bin/bash
# memif ports (podwired is the server, the pods' net_memif the clients):
# two pods exchange a known number of frames and every counter agrees.
# Then a port with a secret: a pod that knows it connects, a pod with a
# wrong secret never brings the link up.
. "$(dirname "$0")/lib.sh"

MAC_A=02:00:00:00:0a:01
MAC_B=02:00:00:00:0b:01
MAC_C=02:00:00:00:0c:01
SECRET=s3cret-pw
WRONG=not-the-secret

daemon_start pw
ctl pw network add net1
ctl pw port add pod-a --network net1 --type memif --socket "$T/a.sock" --mac $MAC_A
ctl pw port add pod-b --network net1 --type memif --socket "$T/b.sock" --mac $MAC_B
[ -S "$T/a.sock" ] && [ -S "$T/b.sock" ] || fail "memif sockets were not created"
expect_eq "link before the pod connects" down "$(port_link pw pod-a)"

pod_up pw pod-a a "$(vdev_memif "$T/a.sock" $MAC_A)" --eth-peer=0,$MAC_B
pod_up pw pod-b b "$(vdev_memif "$T/b.sock" $MAC_B)" --eth-peer=0,$MAC_A

# b speaks first so that podwired learns it; a's frames then go to b only.
pod_send b 1
wait_for 10 "a to receive b's 32 frames" pod_rx_ge a 32
pod_send a 8
wait_for 10 "b to receive 256 frames" pod_rx_ge b 256

expect_eq "pod a tx" 256 "$(pod_tx a)"
expect_eq "pod a rx" 32 "$(pod_rx a)"
expect_eq "pod b tx" 32 "$(pod_tx b)"
expect_eq "pod b rx" 256 "$(pod_rx b)"
expect_eq "pod b rx bytes" $((256 * 64)) "$(pod_bytes b | cut -d' ' -f1)"
expect_eq "podwired pod-a rx" 256 "$(port_stat pw pod-a .rx_packets)"
expect_eq "podwired pod-a tx" 32 "$(port_stat pw pod-a .tx_packets)"
expect_eq "podwired pod-b rx" 32 "$(port_stat pw pod-b .rx_packets)"
expect_eq "podwired pod-b tx" 256 "$(port_stat pw pod-b .tx_packets)"
expect_eq "podwired pod-a rx bytes" $((256 * 64)) "$(port_stat pw pod-a .rx_bytes)"
expect_eq "podwired pod-b tx bytes" $((256 * 64)) "$(port_stat pw pod-b .tx_bytes)"
expect_eq "MAC of pod b learned on pod-b" pod-b \
	"$(ctlj pw mac list net1 | jq -r ".entries[] | select(.mac==\"$MAC_B\") | .port")"

pod_stop a
wait_link pw pod-a down
ok "link down after pod a left"

# ---- secret ----------------------------------------------------------------
ctl pw port add pod-c --network net1 --type memif --socket "$T/c.sock" --mac $MAC_C \
	--secret "$SECRET"

# A wrong secret first: the pod reaches its prompt, but podwired refuses it.
pod_start w "$(vdev_memif "$T/c.sock" 02:00:00:00:0c:99 "secret=$WRONG")"
# Bounded wait to show the link does NOT come up (a good peer connects in
# well under a second, as the right-secret pod below shows).
for _ in $(seq 30); do
	link_is pw pod-c down || fail "port pod-c came up for a pod with a wrong secret"
	sleep 0.1
done
ok "wrong secret: link stays down after 3s"
daemon_alive pw || fail "podwired died after a wrong secret"
pod_stop w

pod_up pw pod-c c "$(vdev_memif "$T/c.sock" $MAC_C "secret=$SECRET")" --eth-peer=0,$MAC_B
ok "right secret: link up"
pod_send c 1
wait_for 10 "b to receive c's 32 frames" pod_rx_ge b $((256 + 32))
expect_eq "podwired pod-c rx" 32 "$(port_stat pw pod-c .rx_packets)"
expect_eq "pod b rx after c sent" $((256 + 32)) "$(pod_rx b)"

# ---- podwired as the memif client ------------------------------------------
# The port exists before the pod's server socket does; podwired keeps
# trying and connects once the pod is there, and again after a pod restart.
MAC_D=02:00:00:00:0d:01
ctl pw port add pod-d --network net1 --type memif --socket "$T/d.sock" --mac $MAC_D --client
[ ! -e "$T/d.sock" ] || fail "a client-role port must not create the socket"
expect_eq "client-role link before the pod exists" down "$(port_link pw pod-d)"
vdev_d="net_memif0,role=server,socket=$T/d.sock,socket-abstract=no,mac=$MAC_D"
pod_up pw pod-d d "$vdev_d" --eth-peer=0,$MAC_B
pod_send d 1
wait_for 10 "b to receive d's 32 frames" pod_rx_ge b $((256 + 64))
expect_eq "podwired pod-d rx" 32 "$(port_stat pw pod-d .rx_packets)"
pod_kill d
wait_link pw pod-d down
# A killed memif server leaves its socket file; the restarted app must
# remove it (DPDK's memif server does not), as a real pod would.
rm -f "$T/d.sock"
pod_up pw pod-d d "$vdev_d" --eth-peer=0,$MAC_B
pod_send d 1
wait_for 10 "b to receive d's frames after the pod restarted" pod_rx_ge b $((256 + 96))
expect_eq "podwired pod-d rx after reconnect" 64 "$(port_stat pw pod-d .rx_packets)"
