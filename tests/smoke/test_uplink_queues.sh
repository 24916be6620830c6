#!/bin/bash
# Uplinks with two rx queues (issue 23), with two workers (--worker-cores
# 0,1 on this 2-core machine): AF_PACKET, then AF_XDP, on a veth made with
# two rx and two tx queues. Two networks share the uplink device: qa
# untagged, qb on VLAN 10, each with a vhost-user pod (testpmd, rxonly).
#
#   netns: veth peer (2 queues) --- veth (2 queues) = uplinks up-a, up-b --- pods pa, pb
#
# From the namespace, 16 UDP flows to each pod (raw frames, so nothing else
# crosses the veth). How frames reach the device's two queues:
#   AF_PACKET: net_af_packet's sockets form a PACKET_FANOUT_HASH group, so
#     the kernel spreads flows over them by their hash;
#   AF_XDP: a veth receives on the queue its peer sent on, which the peer
#     picks by the flow's hash (no XPS here), and a veth has no combined
#     channels, so net_af_xdp would take its queue 0 only: podwired makes a
#     net_af_xdp device per queue.
# Checked for each: every port of the device has 2 rx queues and the
# device a tx queue per worker (no lock); queue q of both ports on one
# worker, the two queues on different workers; every frame arrives, once;
# both rx queues of both ports carried frames (queue.list rx_packets_total,
# which also shows the per-queue stash at work: a queue of up-b gives up-b's
# frames that up-a's poll of the same device queue took); frames the pods
# send leave by the tx queue of the worker that polls them.
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2034 # read by daemon_start (lib.sh)
WORKER_CPU=0,1 # two workers, one on the main core (podwired warns)
NS=pwq$$ UP=pwq$$u PEER=pwq$$p
A=02:00:00:00:0a:01 B=02:00:00:00:0b:01 X=02:00:00:00:99:01
FLOWS=16 PER_FLOW=50
N=$((FLOWS * PER_FLOW))

ip netns add $NS 2>/dev/null || skip "cannot create network namespaces"
# podwired goes before the namespace (and the veth with it).
cleanup_ns() {
	[ -z "${DAEMON_PID[pw]:-}" ] || daemon_stop pw
	ip netns del $NS 2>/dev/null
}
on_exit cleanup_ns
ip link add $UP numrxqueues 2 numtxqueues 2 type veth \
	peer name $PEER netns $NS numrxqueues 2 numtxqueues 2 ||
	skip "cannot create a veth pair with two queues"
sysctl -qw "net.ipv6.conf.$UP.disable_ipv6=1"
ip netns exec $NS sysctl -qw net.ipv6.conf.all.disable_ipv6=1
ip link set $UP up
ip -n $NS link set $PEER up
# The peer's tx queue is the veth's rx queue, and so (AF_XDP) the uplink's.
# It would be picked by the flow's hash, but a raw socket's frames tagged
# with a VLAN all hash alike (all went to queue 0): XPS picks it by the
# sending CPU instead, and half the flows are sent from each CPU.
ip netns exec $NS sh -c "echo 1 >/sys/class/net/$PEER/queues/tx-0/xps_cpus &&
	echo 2 >/sys/class/net/$PEER/queues/tx-1/xps_cpus" ||
	skip "cannot set XPS on the veth in $NS"

# send.py IFACE DST VLAN FIRST FLOWS PER_FLOW: UDP frames from X, flow f
# (FIRST..FIRST+FLOWS-1) from port 1000+f, its frame i carrying (f, i); a
# frame of each flow at a time.
cat >"$T/send.py" <<'EOF'
import socket, struct, sys, time
ifname, dst, vlan, first, flows, per = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:7])
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((ifname, 0))
eth = bytes.fromhex(dst.replace(":", "")) + bytes.fromhex("020000009901")
if vlan:
    eth += struct.pack("!HH", 0x8100, vlan)
eth += b"\x08\x00"
def csum(b):
    t = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    t = (t >> 16) + (t & 0xFFFF)
    return ~(t + (t >> 16)) & 0xFFFF
for i in range(per):
    for f in range(first, first + flows):
        payload = struct.pack("!II", f, i) + bytes(10)
        udp = struct.pack("!HHHH", 1000 + f, 9000, 8 + len(payload), 0) + payload
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64, 17, 0,
                         socket.inet_aton("10.77.0.1"), socket.inet_aton("10.77.0.2"))
        ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
        s.send(eth + ip + udp)
    # Paced: the pods share the cores with podwired's workers and would
    # not drain their rings as fast as this can send.
    time.sleep(0.005)
EOF

daemon_start pw
ctl pw network add qa >/dev/null
ctl pw network add qb --vlan 10 >/dev/null
ctl pw port add pa --network qa --type vhost-user --socket "$T/pa.sock" --mac $A >/dev/null
ctl pw port add pb --network qb --type vhost-user --socket "$T/pb.sock" --mac $B >/dev/null
pod_up pw pa pa "$(vdev_virtio "$T/pa.sock" $A)" --eth-peer=0,$X
pod_up pw pb pb "$(vdev_virtio "$T/pb.sock" $B)" --eth-peer=0,$X

# q PORT QUEUE JQ: a field of one rx queue in queue.list.
q() { rpc pw queue.list | jq -r ".result.queues[] | select(.port == \"$1\" and .queue == $2)$3"; }
up() { ctlj pw port show "$1" | jq -r ".uplink$2"; }
peer_rx() { ip -n $NS -s -j link show $PEER | jq '.[0].stats64.rx.packets'; }
peer_rx_ge() { [ "$(peer_rx)" -ge "$1" ]; }

# check KIND SPREAD: one round over uplinks of type KIND.
check() {
	local kind=$1 spread=$2 p w0 w1 rx0 rx1 tx base_a base_b base_peer
	for p in up-a up-b; do
		local net=qa answer
		[ $p = up-b ] && net=qb
		answer=$(rpc pw port.create "{\"name\": \"$p\", \"network\": \"$net\", \"type\": \"$kind\",
			\"iface\": \"$UP\", \"queues\": 2}")
		jq -e .result >/dev/null <<<"$answer" || fail "$kind uplink $p with 2 queues refused: $answer"
		wait_link pw $p up
	done
	for p in up-a up-b; do
		expect_eq "$kind $p driver" "$kind" "$(up $p .driver)"
		expect_eq "$kind $p rx queues" 2 "$(ctlj pw port show $p | jq -r .rx_queues)"
		expect_eq "$kind $p tx queues (one per worker)" 2 "$(up $p .tx_queues)"
		expect_eq "$kind $p tx lock" false "$(up $p .tx_lock)"
		expect_eq "$kind $p spread" "$spread" "$(up $p .rx_spread)"
	done
	w0=$(q up-a 0 .worker) w1=$(q up-a 1 .worker)
	[ "$w0" != "$w1" ] || fail "$kind: both rx queues of up-a on core $w0"
	expect_eq "$kind: queue 0 of up-b on up-a's queue 0 core" "$w0" "$(q up-b 0 .worker)"
	expect_eq "$kind: queue 1 of up-b on up-a's queue 1 core" "$w1" "$(q up-b 1 .worker)"
	ok "$kind: device queue 0 on core $w0, queue 1 on core $w1, for both ports"

	base_a=$(pod_rx pa) base_b=$(pod_rx pb)
	# Half the flows from each CPU (queue), at the same time.
	local senders=()
	for cpu in 0 1; do
		ip netns exec $NS taskset -c $cpu python3 "$T/send.py" $PEER $A 0 \
			$((cpu * FLOWS / 2)) $((FLOWS / 2)) $PER_FLOW &
		senders+=($!)
		ip netns exec $NS taskset -c $cpu python3 "$T/send.py" $PEER $B 10 \
			$((cpu * FLOWS / 2)) $((FLOWS / 2)) $PER_FLOW &
		senders+=($!)
	done
	wait "${senders[@]}"
	wait_for 20 "pa to receive $N frames over $kind" pod_rx_ge pa $((base_a + N))
	wait_for 20 "pb to receive $N frames over $kind" pod_rx_ge pb $((base_b + N))
	sleep 1
	expect_eq "$kind: frames pa received" $((base_a + N)) "$(pod_rx pa)"
	expect_eq "$kind: frames pb received" $((base_b + N)) "$(pod_rx pb)"
	for p in up-a up-b; do
		rx0=$(q $p 0 .rx_packets_total) rx1=$(q $p 1 .rx_packets_total)
		log "$kind $p: rx queue 0 gave $rx0 frames, queue 1 $rx1"
		if [ "$rx0" -eq 0 ] || [ "$rx1" -eq 0 ]; then
			fail "$kind $p: an rx queue carried nothing (queue 0: $rx0, queue 1: $rx1)"
		fi
		expect_eq "$kind $p: frames over both queues" $N $((rx0 + rx1))
	done
	ok "$kind: $N frames to each pod, every one, over both rx queues of both ports"

	# The pods' frames (to X, unknown: flooded to the uplink) leave by
	# the tx queue of the worker polling the pod.
	base_peer=$(peer_rx)
	pod_send pa 4
	pod_send pb 4
	wait_for 20 "the namespace to receive 256 frames over $kind" peer_rx_ge $((base_peer + 256))
	# Worker i runs on core i here: a pod's worker's tx queue is the
	# queue numbered as the core queue.list shows for the pod.
	tx=$(($(q up-a 0 .tx_packets_total) + $(q up-a 1 .tx_packets_total)))
	expect_eq "$kind: frames sent by up-a's tx queues" 128 "$tx"
	expect_eq "$kind: of which on pa's worker's" 128 "$(q up-a "$(q pa 0 .worker)" .tx_packets_total)"
	tx=$(($(q up-b 0 .tx_packets_total) + $(q up-b 1 .tx_packets_total)))
	expect_eq "$kind: frames sent by up-b's tx queues" 128 "$tx"
	expect_eq "$kind: of which on pb's worker's" 128 "$(q up-b "$(q pb 0 .worker)" .tx_packets_total)"
	ctl pw port del up-a >/dev/null
	ctl pw port del up-b >/dev/null
}

check af_packet "fanout hash"
check af_xdp "the interface's (a device per queue)"
# More queues than the veth has: as many as it has, and the log says so.
answer=$(rpc pw port.create "{\"name\": \"up-a\", \"network\": \"qa\", \"type\": \"af_xdp\",
	\"iface\": \"$UP\", \"queues\": 4}")
jq -e .result >/dev/null <<<"$answer" || fail "af_xdp uplink with 4 queues refused: $answer"
wait_link pw up-a up
expect_eq "af_xdp: queues of 4 asked on a 2-queue veth" 2 "$(ctlj pw port show up-a | jq -r .rx_queues)"
grep -q "4 queues asked, but \"$UP\" has 2" "$T/pw.log" || fail "the log does not say why 2 queues of 4"
ok "af_xdp: 4 queues asked, the veth's 2 given, and said"
grep -q "does not match control/api.h" "$T/pw.log" && fail "an answer does not match control/api.h"
ok "uplinks with two queues"
