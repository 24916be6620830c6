#!/bin/bash
# veth ports through podwired's own AF_PACKET I/O (the default "io"):
# two kernel namespaces on one bridge network exchange TCP and UDP
# (iperf3) with the offloads on at both ends of each pair, so a
# namespace's GSO super-frames cross podwired whole, with their
# virtio-net header:
#   - TCP and UDP work, ping works (throughput printed, not asserted);
#   - TCP arrives in order: the host ends steer a flow to one CPU (RPS);
#   - podwired received frames larger than the MTU (rx_bytes/rx_packets
#     above MTU + 14: super-frames) and dropped none as bad_offload;
#   - in the receiving namespace (tshark) every TCP checksum is complete
#     and right, or partial and exactly the pseudo-header sum (what a
#     veth hands on for the receiver to trust), and IPv4 headers are right;
#   - kernel_drops (PACKET_STATISTICS) counts the frames a stopped podwired
#     could not take;
#   - "io": "xdp" still works (ping through AF_XDP, offloads off), and a
#     bad "io" is refused with the fix named.
. "$(dirname "$0")/lib.sh"

missing() {
	[ "${CI:-}" != true ] || fail "$1"
	skip "$1"
}
command -v iperf3 >/dev/null || missing "iperf3 is not installed (apt-get install iperf3)"
command -v tshark >/dev/null || missing "tshark is not installed (apt-get install tshark)"

NS1=pwo1$$
NS2=pwo2$$
NS3=pwo3$$
H1=pwoa$$
H2=pwob$$
H3=pwoc$$
MTU=1500
NETNS_MADE=()
IPERF_PID=

_veth_cleanup() {
	local ns
	[ -z "$IPERF_PID" ] || _stop_pid "$IPERF_PID"
	for ns in "${NETNS_MADE[@]}"; do ip netns del "$ns" 2>/dev/null; done
	ip link del "$H1" 2>/dev/null
	ip link del "$H2" 2>/dev/null
	ip link del "$H3" 2>/dev/null
}
on_exit _veth_cleanup

for ns in $NS1 $NS2 $NS3; do
	ip netns add "$ns" 2>/dev/null || skip "cannot create network namespace $ns"
	NETNS_MADE+=("$ns")
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1 2>/dev/null || true
	ip -n "$ns" link set lo up
done

daemon_start pw
ctl pw network add net1 >/dev/null

# port_into NAME HOST_END NS IP [port add options...]: a veth port whose
# container end goes into NS with IP.
port_into() {
	local name=$1 host=$2 ns=$3 ip=$4
	shift 4
	ctl pw port add "$name" --network net1 --type veth --iface "$host" --mtu $MTU "$@" >/dev/null
	veth_into_ns pw "$name" "$ns" "$ip/24"
	wait_link pw "$name" up
}
port_into k1 "$H1" "$NS1" 10.77.0.1
port_into k2 "$H2" "$NS2" 10.77.0.2

expect_eq "k1's I/O" "packet af_packet" "$(ctlj pw port show k1 | jq -r '"\(.veth.io) \(.veth.driver)"')"
# The container's end keeps its offloads (TSO, checksum): that is the point.
tso=$(ip netns exec "$NS1" ethtool -k eth0 | awk '/^tcp-segmentation-offload:/ {print $2}')
expect_eq "TSO on k1's container end" on "$tso"

ip netns exec "$NS1" ping -c 3 -i 0.2 -W 2 10.77.0.2 >"$T/ping.txt" ||
	fail "ping 10.77.0.1 -> 10.77.0.2 through podwired failed: $(tail -n 3 "$T/ping.txt")"
ok "ping through the packet I/O: $(tail -n 1 "$T/ping.txt")"

# ---- TCP: super-frames cross whole -----------------------------------------
ip netns exec "$NS2" iperf3 -s -1 -p 5201 >"$T/iperf-s.txt" 2>&1 &
IPERF_PID=$!
wait_for 10 "iperf3 to listen in $NS2" ip netns exec "$NS2" ss -ltn 'sport = :5201'
# tcp_ext NS NAME: a TcpExt counter of NS (/proc/net/netstat).
tcp_ext() {
	ip netns exec "$1" cat /proc/net/netstat |
		awk -v k="$2" '$1 == "TcpExt:" { if (!h) { for (i = 2; i <= NF; i++) if ($i == k) c = i; h = 1 }
			else print $c + 0 }'
}
ofo0=$(tcp_ext "$NS2" TCPOFOQueue)
kd0=$(ctlj pw port show k1 | jq -r '.veth.kernel_drops')
# The client on another core than podwired's worker: its data leaves from
# its own core (the syscall) and from the worker's (sent in the softirq of
# the sendmmsg that delivered an ACK), as in perf/bench_docker.sh.
ip netns exec "$NS1" taskset -c "$POD_CPU" iperf3 -c 10.77.0.2 -p 5201 -t 3 -J >"$T/tcp.json" ||
	fail "iperf3 TCP 10.77.0.1 -> 10.77.0.2 failed: $(jq -r .error "$T/tcp.json" 2>/dev/null)"
wait "$IPERF_PID" 2>/dev/null || true
IPERF_PID=
gbps=$(jq -r '.end.sum_received.bits_per_second / 1e9 | . * 100 | floor / 100' "$T/tcp.json")
retr=$(jq -r '.end.sum_sent.retransmits' "$T/tcp.json")
log "TCP over podwired's packet I/O: $gbps Gbit/s, $retr retransmissions"
[ "$(jq -r '.end.sum_received.bytes' "$T/tcp.json")" -gt 0 ] || fail "iperf3 TCP moved no bytes"
ok "TCP works ($gbps Gbit/s)"

ctlj pw stats k1 >"$T/k1.json"
rx=$(jq -r '.ports[0].rx_packets' "$T/k1.json")
rxb=$(jq -r '.ports[0].rx_bytes' "$T/k1.json")
avg=$((rxb / (rx > 0 ? rx : 1)))
log "k1 received $rx frames, $rxb bytes: $avg bytes a frame"
[ "$avg" -gt $((MTU + 14)) ] ||
	fail "k1's frames average $avg bytes, not above MTU+14 ($((MTU + 14))): no super-frames crossed"
ok "super-frames crossed whole (average frame $avg bytes > $((MTU + 14)))"
for p in k1 k2; do
	expect_eq "$p bad_offload drops" 0 "$(port_stat pw "$p" .drops.bad_offload)"
done

# ---- TCP: a flow stays in order --------------------------------------------
# The host end steers each flow to one CPU's backlog (RPS over every CPU
# but the workers', which a backlog run would preempt): without it the
# frames sent from two CPUs reach the packet socket reordered
# (bench_docker.sh: 140-150 out-of-order super-frames and 300-560
# retransmissions in 5 s, no frame lost).
ncpu=$(getconf _NPROCESSORS_CONF)
want=$(python3 -c "
import sys
n, workers = int(sys.argv[1]), {int(c) for c in sys.argv[2].split(',') if c}
cpus = {c for c in range(n) if c not in workers} or set(range(n))
mask = sum(1 << c for c in cpus)
print(','.join('%x' % ((mask >> (32 * g)) & 0xffffffff) for g in range((n - 1) // 32, -1, -1)))" \
	"$ncpu" "$WORKER_CPU")
for h in "$H1" "$H2"; do
	got=$(sed 's/^0*,*//; s/^0*//' "/sys/class/net/$h/queues/rx-0/rps_cpus" 2>/dev/null || echo none)
	got=${got:-0}
	expect_eq "$h's RPS mask ($ncpu CPUs less the workers' $WORKER_CPU)" "$want" "$got"
done
ofo=$(($(tcp_ext "$NS2" TCPOFOQueue) - ofo0))
lost=$(($(ctlj pw port show k1 | jq -r '.veth.kernel_drops') - kd0))
lost=$((lost + $(ctlj pw stats k1 | jq '[.ports[0].drops[]?] | add // 0') +
	$(ctlj pw stats k2 | jq '[.ports[0].drops[]?] | add // 0')))
log "TCP: $ofo segments out of order at the receiver, $lost frames lost on the way"
# A lost frame leaves a hole that later ones fill out of order; none lost,
# none may come out of order.
[ "$lost" -gt 0 ] || expect_eq "segments out of order with no frame lost" 0 "$ofo"
ok "TCP arrived in order (out of order: $ofo, lost: $lost)"

# tcp_sums PCAP: "frames complete partial wrong" of its TCP/IPv4 frames.
tcp_sums() {
	python3 - "$1" <<'PY'
import struct, sys

def fold(s):
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s

def ones(b):
    if len(b) % 2:
        b += b"\0"
    return sum(struct.unpack("!%dH" % (len(b) // 2), b))

data = open(sys.argv[1], "rb").read()
off, n, good, partial, bad = 24, 0, 0, 0, 0
while off + 16 <= len(data):
    incl, orig = struct.unpack("<II", data[off + 8:off + 16])
    f = data[off + 16:off + 16 + incl]
    off += 16 + incl
    if incl != orig or len(f) < 34 or f[12:14] != b"\x08\x00" or f[23] != 6:
        continue
    n += 1
    ihl = (f[14] & 15) * 4
    tot = struct.unpack("!H", f[16:18])[0]
    ip = f[14:14 + ihl]
    seg = bytearray(f[14 + ihl:14 + tot])
    field = struct.unpack("!H", seg[16:18])[0]
    pseudo = ones(ip[12:20]) + 6 + len(seg)
    # A checksum verifies when everything, itself included, sums to
    # 0xffff: a sum that comes to zero may be sent as 0x0000 or as 0xffff
    # (both are zero in ones' complement; a receiving kernel takes both).
    if fold(pseudo + ones(bytes(seg))) == 0xffff:
        good += 1
    elif field == fold(pseudo):
        partial += 1
    else:
        bad += 1
print(n, good, partial, bad)
PY
}

# ---- what arrives in the receiving namespace --------------------------------
# A shorter, slower transfer, captured whole in NS2 where it arrives.
ip netns exec "$NS2" tshark -q -i eth0 -f "tcp port 5202" -F pcap -w "$T/rx.pcap" \
	>"$T/tshark.txt" 2>&1 &
TSHARK_PID=$!
on_exit "_stop_tshark"
_stop_tshark() { _stop_pid "$TSHARK_PID"; }
wait_for 15 "tshark to capture in $NS2" grep -q "Capturing on" "$T/tshark.txt"
ip netns exec "$NS2" iperf3 -s -1 -p 5202 >"$T/iperf-s2.txt" 2>&1 &
IPERF_PID=$!
wait_for 10 "iperf3 to listen in $NS2" ip netns exec "$NS2" ss -ltn 'sport = :5202'
ip netns exec "$NS1" iperf3 -c 10.77.0.2 -p 5202 -t 1 -b 300M -J >"$T/tcp2.json" ||
	fail "iperf3 TCP (captured) failed: $(jq -r .error "$T/tcp2.json" 2>/dev/null)"
wait "$IPERF_PID" 2>/dev/null || true
IPERF_PID=
sleep 0.5
_stop_pid "$TSHARK_PID"
wait "$TSHARK_PID" 2>/dev/null || true
# Every TCP checksum is either complete and right, or "partial" (the
# pseudo-header sum a sender leaves for the device, which the receiving
# stack trusts on a veth): then it must be exactly that sum, so that the
# sum made from it is right. tshark calls both kinds bad on a veth (the
# kernel's own bridge shows the same), so the frames are checked here.
tcp_sums "$T/rx.pcap" >"$T/sums.txt"
read -r frames good partial bad <"$T/sums.txt"
big=$(tshark -r "$T/rx.pcap" -Y "frame.len > $((MTU + 14))" 2>/dev/null | wc -l)
log "tshark in $NS2: $frames TCP frames ($big super-frames: one frame on a veth), checksums: $good complete, $partial partial (pseudo-header sum, right), $bad wrong"
[ "$frames" -gt 100 ] || fail "tshark in $NS2 saw only $frames TCP frames of the transfer"
expect_eq "TCP frames with a wrong checksum in $NS2" 0 "$bad"
bad_ip=$(tshark -r "$T/rx.pcap" -o ip.check_checksum:TRUE -Y 'ip.checksum.status == "Bad"' \
	2>/dev/null | wc -l)
expect_eq "IPv4 headers with a bad checksum in $NS2" 0 "$bad_ip"

# ---- UDP -------------------------------------------------------------------
ip netns exec "$NS2" iperf3 -s -1 -p 5203 >"$T/iperf-s3.txt" 2>&1 &
IPERF_PID=$!
wait_for 10 "iperf3 to listen in $NS2" ip netns exec "$NS2" ss -ltn 'sport = :5203'
ip netns exec "$NS1" iperf3 -c 10.77.0.2 -p 5203 -u -b 200M -t 2 -J >"$T/udp.json" ||
	fail "iperf3 UDP failed: $(jq -r .error "$T/udp.json" 2>/dev/null)"
wait "$IPERF_PID" 2>/dev/null || true
IPERF_PID=
udp_pkts=$(jq -r '.end.sum.packets' "$T/udp.json")
udp_lost=$(jq -r '.end.sum.lost_percent | floor' "$T/udp.json")
log "UDP: $udp_pkts datagrams, $udp_lost% lost"
[ "$udp_pkts" -gt 0 ] && [ "$udp_lost" -lt 50 ] || fail "UDP through podwired: $udp_pkts sent, $udp_lost% lost"
ok "UDP works"

# ---- kernel_drops: frames the kernel could not put in podwired's ring -------
kd0=$(ctlj pw port show k1 | jq -r .veth.kernel_drops)
[[ "$kd0" =~ ^[0-9]+$ ]] || fail "k1's veth.kernel_drops is \"$kd0\", not a count"
# podwired stopped for a second while 20,000 datagrams come: its ring of
# 256 slots fills and the kernel drops the rest, which it must say.
kill -STOP "${DAEMON_PID[pw]}"
ip netns exec "$NS1" python3 -c '
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(20000):
    s.sendto(b"x" * 64, ("10.77.0.2", 9))
    if i % 1000 == 999:
        time.sleep(0.05)
'
kill -CONT "${DAEMON_PID[pw]}"
kd=$(ctlj pw port show k1 | jq -r .veth.kernel_drops)
log "k1 kernel_drops: $kd0 before, $kd after 20,000 datagrams sent while podwired was stopped"
[ "$kd" -gt $((kd0 + 10000)) ] || fail "k1's kernel_drops rose from $kd0 to $kd only"
ok "kernel_drops counts what the kernel dropped ($kd)"

# ---- "io": "xdp" still works, a bad "io" is refused -------------------------
port_into k3 "$H3" "$NS3" 10.77.0.3 --io xdp
drv=$(ctlj pw port show k3 | jq -r .veth.driver)
log "k3 (io xdp) through $drv"
tso=$(ip netns exec "$NS3" ethtool -k eth0 | awk '/^tcp-segmentation-offload:/ {print $2}')
expect_eq "TSO on k3's container end (AF_XDP: off)" off "$tso"
ip netns exec "$NS3" ping -c 3 -i 0.2 -W 2 10.77.0.1 >"$T/ping3.txt" ||
	fail "ping from the AF_XDP port to the packet port failed: $(tail -n 3 "$T/ping3.txt")"
ok "ping through \"io\": \"xdp\" ($drv): $(tail -n 1 "$T/ping3.txt")"
# TCP from the packet port's namespace (super-frames) to the AF_XDP one,
# which takes no offload requests (tx_ol 0): podwired cuts them into MTU
# frames with complete checksums on the way.
ip netns exec "$NS3" tshark -q -i eth0 -f "tcp port 5205" -F pcap -w "$T/rx3.pcap" \
	>"$T/tshark3.txt" 2>&1 &
TSHARK_PID=$!
wait_for 15 "tshark to capture in $NS3" grep -q "Capturing on" "$T/tshark3.txt"
ip netns exec "$NS3" iperf3 -s -1 -p 5205 >"$T/iperf-s5.txt" 2>&1 &
IPERF_PID=$!
wait_for 10 "iperf3 to listen in $NS3" ip netns exec "$NS3" ss -ltn 'sport = :5205'
ip netns exec "$NS1" iperf3 -c 10.77.0.3 -p 5205 -t 1 -b 300M -J >"$T/tcp5.json" ||
	fail "iperf3 TCP packet port -> AF_XDP port failed: $(jq -r .error "$T/tcp5.json" 2>/dev/null)"
wait "$IPERF_PID" 2>/dev/null || true
IPERF_PID=
sleep 0.5
_stop_pid "$TSHARK_PID"
wait "$TSHARK_PID" 2>/dev/null || true
read -r frames good partial bad < <(tcp_sums "$T/rx3.pcap")
big=$(tshark -r "$T/rx3.pcap" -Y "frame.len > $((MTU + 14))" 2>/dev/null | wc -l)
log "tshark in $NS3 (AF_XDP port): $frames TCP frames, $big over MTU+14; checksums $good complete, $partial partial, $bad wrong"
[ "$frames" -gt 100 ] || fail "tshark in $NS3 saw only $frames TCP frames"
expect_eq "frames over MTU+14 reaching the AF_XDP port" 0 "$big"
expect_eq "TCP frames reaching the AF_XDP port without a complete checksum" 0 "$((partial + bad))"

rpc pw port.create '{"name":"bad","network":"net1","type":"veth","iface":"pwobad","io":"tap"}' \
	>"$T/bad.json"
jq -r .error.message "$T/bad.json" | grep -q '"io" is "tap"; use "packet"' ||
	fail "a bad io was not refused as expected: $(cat "$T/bad.json")"
rpc pw port.create '{"name":"bad","network":"net1","type":"null","io":"xdp"}' >"$T/bad2.json"
jq -r .error.message "$T/bad2.json" | grep -q '"io" applies to veth ports' ||
	fail "io on a null port was not refused as expected: $(cat "$T/bad2.json")"
ip link show pwobad >/dev/null 2>&1 && fail "a refused port left interface pwobad behind"
expect_eq "ports after the refused ones" 3 "$(ctlj pw port list | jq '.ports | length')"
ok "bad \"io\" refused, nothing left behind"
rc=0
out=$("$PODWIRED" --veth-io tap --socket "$T/x.sock" --state-dir "$T/x.state" 2>&1) || rc=$?
[ $rc -ne 0 ] && grep -q -- '--veth-io: "tap" is neither packet nor xdp' <<<"$out" ||
	fail "podwired --veth-io tap: exit $rc, $out"
ok "podwired --veth-io tap refused: $out"

# ---- deleting takes the pairs along ------------------------------------------
for p in k1 k2 k3; do ctl pw port del "$p" >/dev/null; done
for h in $H1 $H2 $H3; do
	ip link show "$h" >/dev/null 2>&1 && fail "port deleted, but $h is still there"
done
ok "ports deleted with their pairs"
