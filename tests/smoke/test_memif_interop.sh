#!/bin/bash
# podwire's memif against DPDK's net_memif (dpdk-testpmd) in the cases the
# other memif tests leave out, with the counters of both sides compared:
# - memif <-> memif at 64, 512, 1518 and 9014 bytes (a jumbo frame is a
#   chain of the pods' 2 KiB buffers), podwired the server of both pods;
# - podwired as the client of a pod that is the memif server, with a
#   secret, both ways, and a wrong secret refused by the pod;
# - a pod with 2 queue pairs: podwired takes both and reads both;
# - memif <-> an uplink (AF_PACKET on a veth into another namespace),
#   untagged and on a VLAN network, both ways, checked on the wire with
#   tcpdump and counted by the kernel.
. "$(dirname "$0")/lib.sh"

declare -A MAC=([a]=02:00:00:00:0a:01 [b]=02:00:00:00:0b:01 [c]=02:00:00:00:0c:01
	[d]=02:00:00:00:0d:01 [q]=02:00:00:00:0e:01 [u]=02:00:00:00:0f:01
	[v]=02:00:00:00:0f:02)
SECRET=pod-secret-42

NA=pwi$$a NB=pwi$$b VA=pwi$$a0 VB=pwi$$b0
NETNS_MADE=()
_interop_cleanup() {
	local n
	for n in "${!POD_PID[@]}"; do _stop_pid "${POD_PID[$n]}"; done
	for n in "${!DAEMON_PID[@]}"; do
		_stop_pid "${DAEMON_PID[$n]}"
		wait "${DAEMON_PID[$n]}" 2>/dev/null
	done
	POD_PID=()
	DAEMON_PID=()
	for n in "${NETNS_MADE[@]}"; do ip netns del "$n"; done
}
on_exit _interop_cleanup

for n in $NA $NB; do
	ip netns add "$n" 2>/dev/null || skip "cannot create network namespace $n"
	NETNS_MADE+=("$n")
	# No IPv6: the kernel must not send router solicitations onto the
	# wire, where they would count as frames.
	ip netns exec "$n" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1 2>/dev/null || true
	ip -n "$n" link set lo up
done
ip -n $NA link add $VA numtxqueues 1 numrxqueues 1 type veth \
	peer name $VB netns $NB numtxqueues 1 numrxqueues 1 2>/dev/null ||
	skip "cannot create a veth pair"
ip -n $NA link set $VA up
ip -n $NB link set $VB up
KMAC=$(ip -n $NB -j link show $VB | jq -r '.[0].address')

# podwired in NA (its uplink sees VA); the pods reach it by socket path.
ip netns exec $NA "$PODWIRED" --main-core "$POD_CPU" --worker-cores "$WORKER_CPU" \
	--socket "$T/pw.sock" --state-dir "$T/pw.state" --cdi-dir "$T/pw.cdi" >>"$T/pw.log" 2>&1 &
DAEMON_PID[pw]=$!
wait_for 30 "podwired to answer" ctl pw info

# both POD_A POD_B WHAT: pod and podwired counters agree on both sides:
# A's tx = A's port's rx and B's port's tx = B's rx, in frames and bytes.
both() {
	local a=$1 b=$2 what=$3 at ar bt br
	read -r ar at <<<"$(pod_stats "$a")"
	read -r br bt <<<"$(pod_stats "$b")"
	expect_eq "$what: podwired pod-$a rx = pod $a tx" "$at" "$(port_stat pw "pod-$a" .rx_packets)"
	expect_eq "$what: podwired pod-$b tx = pod $b rx" "$br" "$(port_stat pw "pod-$b" .tx_packets)"
	expect_eq "$what: podwired pod-$b rx = pod $b tx" "$bt" "$(port_stat pw "pod-$b" .rx_packets)"
	expect_eq "$what: podwired pod-$a tx = pod $a rx" "$ar" "$(port_stat pw "pod-$a" .tx_packets)"
	read -r ar at <<<"$(pod_bytes "$a")"
	read -r br bt <<<"$(pod_bytes "$b")"
	expect_eq "$what: pod-$a rx bytes" "$at" "$(port_stat pw "pod-$a" .rx_bytes)"
	expect_eq "$what: pod-$b tx bytes" "$br" "$(port_stat pw "pod-$b" .tx_bytes)"
}

# ---- memif <-> memif, 64 B to 9014 B ----------------------------------------
ctl pw network add sizes
for p in a b; do
	ctl pw port add pod-$p --network sizes --type memif --socket "$T/$p.sock" --mac ${MAC[$p]} \
		--mtu 9000
done
pod_up pw pod-a a "$(vdev_memif "$T/a.sock" ${MAC[a]})" --eth-peer=0,${MAC[b]}
pod_up pw pod-b b "$(vdev_memif "$T/b.sock" ${MAC[b]})" --eth-peer=0,${MAC[a]}
pod_send b 1 # b first: podwired learns it, a's frames then go to b only
wait_for 10 "a to receive b's frames" pod_rx_ge a 32
sent=0
bytes=0
for size in 64 512 1518 9014; do
	segs=$size
	[ "$size" != 9014 ] || segs=2048,2048,2048,2048,822
	pod_txpkts a $segs
	pod_send a 2
	sent=$((sent + 64))
	bytes=$((bytes + 64 * size))
	wait_for 10 "b to receive 64 frames of $size bytes" pod_rx_ge b $sent
	expect_eq "pod b rx bytes after $size-byte frames" "$bytes" "$(pod_bytes b | cut -d' ' -f1)"
done
pod_txpkts b 2048,2048,2048,2048,822
pod_send b 1
wait_for 10 "a to receive b's 9014-byte frames" pod_rx_ge a 64
both a b "memif <-> memif, 64..9014 B"
for p in pod-a pod-b; do
	expect_eq "$p drops" 0 "$(ctlj pw stats $p | jq '[.ports[0].drops[]] | add')"
done

# ---- podwired as client, with a secret --------------------------------------
ctl pw network add cli
ctl pw port add pod-c --network cli --type memif --socket "$T/c.sock" --mac ${MAC[c]} --client \
	--secret "$SECRET"
ctl pw port add pod-d --network cli --type memif --socket "$T/d.sock" --mac ${MAC[d]}
pod_up pw pod-d d "$(vdev_memif "$T/d.sock" ${MAC[d]})" --eth-peer=0,${MAC[c]}
# The pod is the server and wants another secret: it refuses podwired.
pod_start w "net_memif0,role=server,socket=$T/c.sock,socket-abstract=no,mac=${MAC[c]},secret=other"
for _ in $(seq 20); do
	link_is pw pod-c down || fail "pod-c came up with a pod that wants another secret"
	sleep 0.1
done
ok "a pod (server) with another secret keeps pod-c (client) down"
pod_stop w
rm -f "$T/c.sock"
pod_up pw pod-c c "net_memif0,role=server,socket=$T/c.sock,socket-abstract=no,mac=${MAC[c]},secret=$SECRET" \
	--eth-peer=0,${MAC[d]}
expect_eq "pod-c's memif state" connected "$(ctlj pw port show pod-c | jq -r .memif.state)"
pod_send c 2
wait_for 10 "d to receive c's frames" pod_rx_ge d 64
pod_send d 3
wait_for 10 "c to receive d's frames" pod_rx_ge c 96
both c d "podwired client of a pod with a secret"

# ---- two queue pairs -----------------------------------------------------------
ctl pw port add pod-q --network cli --type memif --socket "$T/q.sock" --mac ${MAC[q]}
pod_up pw pod-q q "$(vdev_memif "$T/q.sock" ${MAC[q]})" --rxq=2 --txq=2 --eth-peer=0,${MAC[d]}
expect_eq "queue pairs podwired took from q" 2 "$(ctlj pw port show pod-q | jq .memif.queue_pairs)"
d_rx=$(pod_rx d)
pod_send q 2 # 2 bursts on each of q's two tx queues
wait_for 10 "d to receive q's frames from both queues" pod_rx_ge d $((d_rx + 128))
expect_eq "podwired pod-q rx (both rings)" "$(pod_tx q)" "$(port_stat pw pod-q .rx_packets)"
expect_eq "pod q tx" 128 "$(pod_tx q)"
pod_peer d ${MAC[q]}
pod_send d 2
wait_for 10 "q to receive d's frames" pod_rx_ge q 64
expect_eq "podwired pod-q tx = pod q rx" "$(pod_rx q)" "$(port_stat pw pod-q .tx_packets)"

# ---- memif <-> uplink -------------------------------------------------------------
ctl pw network add wire
ctl pw network add wire100 --vlan 100
ctl pw port add up0 --network wire --type af_packet --iface $VA
ctl pw port add up100 --network wire100 --type af_packet --iface $VA
ctl pw port add pod-u --network wire --type memif --socket "$T/u.sock" --mac ${MAC[u]}
ctl pw port add pod-v --network wire100 --type memif --socket "$T/v.sock" --mac ${MAC[v]}
wait_link pw up0 up
wait_link pw up100 up
pod_up pw pod-u u "$(vdev_memif "$T/u.sock" ${MAC[u]})" --eth-peer=0,$KMAC
pod_up pw pod-v v "$(vdev_memif "$T/v.sock" ${MAC[v]})" --eth-peer=0,$KMAC
kstat() { ip netns exec $NB cat "/sys/class/net/$VB/statistics/$1"; }
kstat_ge() { [ "$(kstat "$1")" -ge "$2" ]; }

cat >"$T/send.py" <<-'EOF'
	# send.py IFACE COUNT DST SRC VLAN LEN: COUNT frames of LEN bytes
	# (ethertype 0x88b5) written to IFACE, with an 802.1Q tag unless VLAN
	# is 0 (LEN is without the tag).
	import socket, struct, sys
	iface, count, dst, src = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
	vlan, n = int(sys.argv[5]), int(sys.argv[6])
	tag = struct.pack("!HH", 0x8100, vlan) if vlan else b""
	f = bytes.fromhex(dst.replace(":", "") + src.replace(":", "")) + tag + b"\x88\xb5"
	f += bytes(n + len(tag) - len(f))
	s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
	s.bind((iface, 0))
	for _ in range(count):
	    s.send(f)
EOF
MARKER=02:00:00:00:99:99
# A capture on VB that is known to run: it holds a frame sent after it started.
ip netns exec $NB tcpdump -i $VB -Z root -U --immediate-mode -s 128 -B 8192 -nn -w "$T/cap.pcap" \
	>"$T/cap.log" 2>&1 &
POD_PID[tcpdump]=$!
captured() { tcpdump -r "$T/cap.pcap" -t -e -nn 2>/dev/null || true; }
captured_from_ge() { [ "$(captured | grep -c "^$1 > ")" -ge "$2" ]; }
marker_seen() {
	captured_from_ge $MARKER 1 && return 0
	ip netns exec $NA python3 "$T/send.py" $VA 1 ff:ff:ff:ff:ff:ff $MARKER 0 60
	return 1
}
wait_for 20 "tcpdump to listen on $VB" grep -q 'listening on' "$T/cap.log"
wait_for 20 "tcpdump to capture a marker frame" marker_seen

# pod -> wire: untagged from u, tagged 100 from v.
k0=$(kstat rx_packets)
pod_txpkts u 1514
pod_send u 2
pod_send v 3
wait_for 10 "the kernel to receive 160 frames from u and v" kstat_ge rx_packets $((k0 + 160))
wait_for 10 "tcpdump to have v's frames" captured_from_ge "${MAC[v]}" 96
_stop_pid "${POD_PID[tcpdump]}"
wait "${POD_PID[tcpdump]}" 2>/dev/null || true
unset "POD_PID[tcpdump]"
expect_eq "frames on the wire" 160 $(($(kstat rx_packets) - k0))
expect_eq "frames from u on the wire, untagged, 1514 bytes" 64 \
	"$(captured | grep -c "^${MAC[u]} > $KMAC, ethertype [^,]*, length 1514:" || true)"
expect_eq "frames from v on the wire, tagged VLAN 100, 68 bytes" 96 \
	"$(captured | grep -c "^${MAC[v]} > $KMAC, ethertype 802.1Q (0x8100), length 68: vlan 100," || true)"
expect_eq "podwired up0 tx" 64 "$(port_stat pw up0 .tx_packets)"
expect_eq "podwired up100 tx" 96 "$(port_stat pw up100 .tx_packets)"
expect_eq "podwired pod-u rx = pod u tx" "$(pod_tx u)" "$(port_stat pw pod-u .rx_packets)"
expect_eq "podwired pod-v rx = pod v tx" "$(pod_tx v)" "$(port_stat pw pod-v .rx_packets)"

# wire -> pod: the kernel sends to the pods' MACs, untagged and on VLAN 100.
u_rx=$(pod_rx u)
v_rx=$(pod_rx v)
v_bytes=$(pod_bytes v | cut -d' ' -f1)
ip netns exec $NB python3 "$T/send.py" $VB 50 ${MAC[u]} "$KMAC" 0 1514
ip netns exec $NB python3 "$T/send.py" $VB 70 ${MAC[v]} "$KMAC" 100 60
wait_for 10 "u to receive the kernel's 50 frames" pod_rx_ge u $((u_rx + 50))
wait_for 10 "v to receive the kernel's 70 frames" pod_rx_ge v $((v_rx + 70))
expect_eq "pod u rx" $((u_rx + 50)) "$(pod_rx u)"
expect_eq "pod v rx" $((v_rx + 70)) "$(pod_rx v)"
expect_eq "podwired pod-u tx" "$(pod_rx u)" "$(port_stat pw pod-u .tx_packets)"
expect_eq "podwired pod-v tx" "$(pod_rx v)" "$(port_stat pw pod-v .tx_packets)"
expect_eq "pod v rx bytes: the tag came off" $((v_bytes + 70 * 60)) \
	"$(pod_bytes v | cut -d' ' -f1)"
expect_eq "podwired up100 rx" 70 "$(port_stat pw up100 .rx_packets)"
daemon_alive pw || fail "podwired died"
