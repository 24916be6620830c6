#!/bin/bash
# Pods crash (SIGKILL) and come back with the same vdev, on the three kinds
# of pod port: vhost-user with podwired as server, memif, and vhost-user
# with podwired as client (the pod is the server and podwired reconnects by
# itself). While a pod is gone its port's link is down and frames flooded to
# it count drops.link_down; once it is back, frames flow with exact counts.
#
# All three ports are on one network and every pod sends to the broadcast
# address, so each frame a pod sends reaches each of the two other ports.
. "$(dirname "$0")/lib.sh"

MAC_A=02:00:00:00:0a:01 # vhost-user, podwired is the server
MAC_B=02:00:00:00:0b:01 # memif, podwired is the server
MAC_C=02:00:00:00:0c:01 # vhost-user, podwired is the client
BCAST=ff:ff:ff:ff:ff:ff

VDEV_A=$(vdev_virtio "$T/a.sock" $MAC_A)
VDEV_B=$(vdev_memif "$T/b.sock" $MAC_B)
VDEV_C=$(vdev_virtio "$T/c.sock" $MAC_C server=1)

pod_rx_is() { [ "$(pod_rx "$1")" = "$2" ]; }
drops_link_down() { port_stat pw "$1" .drops.link_down; }

# expect_rx POD N: waits for the pod to have received N frames, then checks
# that it got exactly N.
expect_rx() {
	wait_for 15 "pod $1 to receive $2 frames" pod_rx_ge "$1" "$2"
	expect_eq "pod $1 rx" "$2" "$(pod_rx "$1")"
}

# expect_link_down_drops PORT N: the same for podwired's link_down drops.
expect_link_down_drops() {
	wait_for 15 "$2 link_down drops on port $1" port_stat_ge pw "$1" .drops.link_down "$2"
	expect_eq "port $1 drops.link_down" "$2" "$(drops_link_down "$1")"
}

daemon_start pw
ctl pw network add net1
ctl pw port add va --network net1 --type vhost-user --socket "$T/a.sock" --mac $MAC_A
ctl pw port add mb --network net1 --type memif --socket "$T/b.sock" --mac $MAC_B
ctl pw port add vc --network net1 --type vhost-user --client --socket "$T/c.sock" --mac $MAC_C

pod_up pw va a "$VDEV_A" --eth-peer=0,$BCAST
pod_up pw mb b "$VDEV_B" --eth-peer=0,$BCAST
pod_up pw vc c "$VDEV_C" --eth-peer=0,$BCAST

# Everyone hears everyone before any crash.
pod_send b 1
expect_rx a 32
expect_rx c 32
A_RX=32 B_RX=0 C_RX=32

# ---- vhost-user, podwired is the server: pod a crashes ---------------------
pod_kill a
wait_link pw va down
ok "va: link down after pod a was killed"
pod_send b 2
C_RX=$((C_RX + 64))
expect_rx c $C_RX
expect_link_down_drops va 64
[ -S "$T/a.sock" ] || fail "va: podwired's socket $T/a.sock is gone after its pod crashed"

pod_up pw va a "$VDEV_A" --eth-peer=0,$BCAST
ok "va: link up after pod a restarted"
A_RX=0 # a new testpmd
pod_send b 1
A_RX=$((A_RX + 32)) C_RX=$((C_RX + 32))
expect_rx a $A_RX
expect_rx c $C_RX
pod_send a 1
B_RX=$((B_RX + 32)) C_RX=$((C_RX + 32))
expect_rx b $B_RX
expect_rx c $C_RX
expect_eq "va rx after the restart" 32 "$(port_stat pw va .rx_packets)"
expect_eq "va drops.link_down after the restart" 64 "$(drops_link_down va)"

# ---- memif, podwired is the server: pod b crashes --------------------------
pod_kill b
wait_link pw mb down
ok "mb: link down after pod b was killed"
pod_send a 2
C_RX=$((C_RX + 64))
expect_rx c $C_RX
expect_link_down_drops mb 64

pod_up pw mb b "$VDEV_B" --eth-peer=0,$BCAST
ok "mb: link up after pod b restarted"
B_RX=0
pod_send a 1
B_RX=$((B_RX + 32)) C_RX=$((C_RX + 32))
expect_rx b $B_RX
expect_rx c $C_RX
pod_send b 1
A_RX=$((A_RX + 32)) C_RX=$((C_RX + 32))
expect_rx a $A_RX
expect_rx c $C_RX
expect_eq "mb drops.link_down after the restart" 64 "$(drops_link_down mb)"

# ---- vhost-user, podwired is the client: pod c (the server) crashes --------
pod_kill c
wait_link pw vc down
ok "vc: link down after pod c was killed"
pod_send b 2
A_RX=$((A_RX + 64))
expect_rx a $A_RX
expect_link_down_drops vc 64

# The dead pod's listening socket stays behind, and virtio-user refuses to
# bind over it: removing it is the pod runtime's job, not podwired's.
rm -f "$T/c.sock"
pod_up pw vc c "$VDEV_C" --eth-peer=0,$BCAST
ok "vc: podwired reconnected to the restarted pod c"
C_RX=0
pod_send b 1
A_RX=$((A_RX + 32)) C_RX=$((C_RX + 32))
expect_rx c $C_RX
expect_rx a $A_RX
pod_send c 1
A_RX=$((A_RX + 32)) B_RX=$((B_RX + 32))
expect_rx a $A_RX
expect_rx b $B_RX
expect_eq "vc drops.link_down after the restart" 64 "$(drops_link_down vc)"

# Nothing was lost anywhere else.
for p in va mb vc; do
	expect_eq "port $p drops other than link_down" 0 \
		"$(ctlj pw stats $p | jq '.ports[0].drops | del(.link_down) | add')"
done
daemon_alive pw || fail "podwired died"

# ---- a pod that dies right after connecting ---------------------------------
# It connects to its port's socket and hangs up before podwired has said
# anything, or right after the first message: podwired must not care.
hang_up() { # SOCKET STREAM|SEQPACKET READ-FIRST
	python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX, getattr(socket, "SOCK_" + sys.argv[2]))
s.connect(sys.argv[1])
if sys.argv[3] == "1":
    s.recv(128)' "$@"
}
ctl pw port add vx --network net1 --type vhost-user --socket "$T/x.sock"
ctl pw port add mx --network net1 --type memif --socket "$T/mx.sock"
for i in $(seq 20); do
	hang_up "$T/x.sock" STREAM 0
	hang_up "$T/mx.sock" SEQPACKET $((i % 2))
	sleep 0.1
	daemon_alive pw || {
		tail -n 12 "$T/pw.log"
		fail "podwired died after a peer connected to a socket and hung up at once (try $i)"
	}
done
ok "20 vhost-user and 20 memif peers that hung up at once did not disturb podwired"
ctl pw port del vx
ctl pw port del mx
pod_send b 1
A_RX=$((A_RX + 32)) C_RX=$((C_RX + 32))
expect_rx a $A_RX
expect_rx c $C_RX
