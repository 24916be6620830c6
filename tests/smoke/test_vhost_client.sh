#!/bin/bash
# vhost-user ports in client role (podwired connects to a socket the pod
# created; the pods run virtio-user with server=1). Two pods exchange a
# known number of frames and all counters agree exactly. A port created
# before its pod exists stays down, then comes up once the pod appears
# (librte_vhost retries the connection about once a second).
. "$(dirname "$0")/lib.sh"

MAC_A=02:00:00:00:0a:01
MAC_B=02:00:00:00:0b:01

daemon_start pw
ctl pw network add net1

# Pod a first: it creates its socket and waits (in accept) until podwired
# connects to it.
pod_spawn a "$(vdev_virtio "$T/a.sock" $MAC_A server=1)" --eth-peer=0,$MAC_B
wait_for 20 "pod a's socket" test -S "$T/a.sock"
ctl pw port add pod-a --network net1 --type vhost-user --client --socket "$T/a.sock" --mac $MAC_A
pod_ready a
wait_link pw pod-a up
pod_cmd a start

# Port b before its pod: nothing to connect to yet.
ctl pw port add pod-b --network net1 --type vhost-user --client --socket "$T/b.sock" --mac $MAC_B
[ ! -e "$T/b.sock" ] || fail "podwired created $T/b.sock although the port is a client"
expect_eq "client port link before its pod exists" down "$(port_link pw pod-b)"
daemon_alive pw || fail "podwired died while its client port had no peer"
pod_spawn b "$(vdev_virtio "$T/b.sock" $MAC_B server=1)" --eth-peer=0,$MAC_A
pod_ready b
wait_link pw pod-b up
ok "podwired connected to pod b once it appeared"
pod_cmd b start

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
expect_eq "podwired pod-a rx bytes" $((256 * 64)) "$(port_stat pw pod-a .rx_bytes)"
expect_eq "podwired pod-b rx bytes" $((32 * 64)) "$(port_stat pw pod-b .rx_bytes)"
expect_eq "podwired pod-b drops" 0 "$(ctlj pw stats pod-b | jq '[.ports[0].drops[]] | add')"

# The link follows the pod; when the pod comes back podwired reconnects.
pod_stop b
wait_link pw pod-b down
ok "link down after pod b left"
pod_spawn b "$(vdev_virtio "$T/b.sock" $MAC_B server=1)" --eth-peer=0,$MAC_A
pod_ready b
wait_link pw pod-b up
ok "podwired reconnected to the restarted pod b"
pod_cmd b start
pod_send a 1
wait_for 10 "restarted b to receive a's 32 frames" pod_rx_ge b 32
expect_eq "restarted pod b rx" 32 "$(pod_rx b)"
daemon_alive pw || fail "podwired died"
