#!/bin/bash
# Kernel pods talking TCP through a DPDK pod: A (a veth port, its end in
# netns NA) on network neta, B likewise on netb, and between the two
# networks a "bump in the wire" CNF: testpmd io-forwarding between its
# two ports, one on each network: first two vhost-user ports (virtio-user
# without any offload negotiated), then two memif ports. The kernel
# sends TCP super-frames (its veth keeps TSO and checksum offload on);
# the DPDK pod cannot take them, so podwired cuts them into frames of the
# MTU with complete checksums. Checked where it matters: podwired's
# capture of what it received from A (super-frames larger than the MTU)
# and of what it sent to the CNF (none larger than the MTU, no bad IPv4,
# TCP or UDP checksum), B's kernel counts no checksum error, iperf3's
# bytes all arrive, and nothing is dropped as bad_offload or mtu_exceeded.
. "$(dirname "$0")/lib.sh"

for c in iperf3 tshark; do
	command -v $c >/dev/null || skip "$c is not installed"
done

NA=pwkc-a$$
NB=pwkc-b$$
netns_add $NA $NB

daemon_start pw
ctl pw network add neta
ctl pw network add netb

# kpod PORT NETNS IP NETWORK MAC: a veth port whose container end is eth0 in NETNS.
kpod() {
	ctl pw port add "$1" --network "$4" --type veth --iface "pw$1$$" --mac "$5"
	veth_into_ns pw "$1" "$2" "$3/24"
}
kpod ka $NA 10.99.0.1 neta 02:00:00:99:00:0a
kpod kb $NB 10.99.0.2 netb 02:00:00:99:00:0b
wait_link pw ka up
wait_link pw kb up
for n in $NA $NB; do
	expect_eq "TSO on the container's end in $n" on \
		"$(ip netns exec $n ethtool -k eth0 | awk '/^tcp-segmentation-offload:/ {print $2}')"
done

# cap PORT DIRECTION FILE: a capture in the background (CAP_PIDS).
CAP_PIDS=()
cap() {
	local n
	n=$(ctlj pw capture list | jq '.captures | length')
	taskset -c "$POD_CPU" "$PODWIRECTL" --socket "$T/pw.sock" capture "$1" --direction "$2" \
		-w "$3" 2>>"$T/cap.err" &
	CAP_PIDS+=($!)
	wait_for 10 "the capture of $1 to start" captures_more "$n"
}
captures_more() { [ "$(ctlj pw capture list | jq '.captures | length')" -gt "$1" ]; }
cap_stop() {
	for p in "${CAP_PIDS[@]}"; do
		kill -INT "$p"
		wait "$p" || fail "podwirectl capture exited with $?: $(tail -n 3 "$T/cap.err")"
	done
	CAP_PIDS=()
}

bad_csums() { # PCAPNG: frames with a bad IPv4, TCP or UDP checksum
	tshark -r "$1" -o ip.check_checksum:TRUE -o tcp.check_checksum:TRUE -o udp.check_checksum:TRUE \
		-Y 'ip.checksum.status == "Bad" || tcp.checksum.status == "Bad" || udp.checksum.status == "Bad"' \
		2>/dev/null | wc -l
}

csum_errors() { # NETNS: TCP segments its kernel found with a bad checksum
	ip netns exec "$1" cat /proc/net/snmp | awk '/^Tcp:/ { if (!h) { for (i = 1; i <= NF; i++) if ($i == "InCsumErrors") c = i; h = 1 } else print $c }'
}

# through KIND TO_PORT: 20 MB of TCP from A to B (and UDP), the CNF
# between them; what podwired sent to TO_PORT is checked.
through() {
	local kind=$1 to=$2 sent bytes big over
	ip netns exec $NB taskset -c "$POD_CPU" iperf3 -s -1 -p 5201 >"$T/iperf-s-$kind.log" 2>&1 &
	local srv=$!
	sleep 0.5
	cap ka rx "$T/ka-$kind.pcapng"
	cap "$to" tx "$T/to-$kind.pcapng"
	ip netns exec $NA taskset -c "$POD_CPU" iperf3 -c 10.99.0.2 -p 5201 -n 20M -J \
		>"$T/iperf-c-$kind.json" 2>&1 || fail "$kind: iperf3 failed: $(tail -n 5 "$T/iperf-c-$kind.json")"
	wait $srv || true
	cap_stop
	# iperf3 ends when the last byte was sent; its receiver's count
	# may miss the last moment: most of it, and a clean end, suffice.
	sent=$(jq '.end.sum_sent.bytes' "$T/iperf-c-$kind.json")
	bytes=$(jq '.end.sum_received.bytes' "$T/iperf-c-$kind.json")
	[ "$sent" -ge $((20 << 20)) ] && [ "$bytes" -ge $((sent * 8 / 10)) ] ||
		fail "$kind: $sent bytes of TCP sent, $bytes received"
	ok "$kind: $bytes bytes of TCP through the CNF ($(jq '.end.sum_received.bits_per_second / 1e9 * 1000 | floor / 1000' "$T/iperf-c-$kind.json") Gbit/s)"
	big=$(tshark -r "$T/ka-$kind.pcapng" -Y 'frame.len > 1514' 2>/dev/null | wc -l)
	[ "$big" -gt 0 ] || fail "$kind: podwired received no super-frame from A (offloads off?)"
	ok "$kind: $big super-frames from A"
	over=$(tshark -r "$T/to-$kind.pcapng" -Y 'frame.len > 1514' 2>/dev/null | wc -l)
	expect_eq "$kind: frames sent to $to larger than the MTU" 0 "$over"
	[ "$(tshark -r "$T/to-$kind.pcapng" -Y tcp 2>/dev/null | wc -l)" -gt 100 ] ||
		fail "$kind: the capture of $to has (almost) no TCP"
	# A's frames carry the pseudo-header sum where the checksum goes
	# (the kernel left it to the "hardware"): the check sees them as bad,
	# so it would see a frame podwired forgot to complete.
	[ "$(bad_csums "$T/ka-$kind.pcapng")" -gt 0 ] ||
		fail "$kind: tshark finds no partial checksum in A's frames: the check below proves nothing"
	expect_eq "$kind: frames sent to $to with a bad checksum" 0 "$(bad_csums "$T/to-$kind.pcapng")"
	expect_eq "$kind: TCP checksum errors in B's kernel" 0 "$(csum_errors $NB)"
	# UDP: 1 s, datagrams of 1400 bytes and of 4000 (IP fragments).
	ip netns exec $NB taskset -c "$POD_CPU" iperf3 -s -1 -p 5202 >>"$T/iperf-s-$kind.log" 2>&1 &
	srv=$!
	sleep 0.5
	ip netns exec $NA taskset -c "$POD_CPU" iperf3 -c 10.99.0.2 -p 5202 -u -b 50M -l 1400 -t 1 -J \
		>"$T/iperf-u-$kind.json" 2>&1 || fail "$kind: iperf3 UDP failed"
	wait $srv || true
	[ "$(jq '.end.sum.packets - .end.sum.lost_packets' "$T/iperf-u-$kind.json")" -gt 100 ] ||
		fail "$kind: UDP did not get through: $(jq -c .end.sum "$T/iperf-u-$kind.json")"
	ok "$kind: UDP through the CNF"
	for p in ka kb "$to"; do
		expect_eq "$kind: $p bad_offload + mtu_exceeded" 0 \
			"$(port_stat pw "$p" '.drops | (.bad_offload // 0) + .mtu_exceeded')"
	done
}

# 1. The CNF on vhost-user: testpmd's virtio-user negotiates no offload.
ctl pw port add va --network neta --type vhost-user --socket "$T/va.sock" --mac 02:00:00:99:01:0a --no-port-security
ctl pw port add vb --network netb --type vhost-user --socket "$T/vb.sock" --mac 02:00:00:99:01:0b --no-port-security
POD_EAL="--vdev net_virtio_user1,path=$T/vb.sock,mac=02:00:00:99:01:0b,queues=1" \
	pod_up pw va cnf "$(vdev_virtio "$T/va.sock" 02:00:00:99:01:0a)" --forward-mode=io \
	--total-num-mbufs=16384
wait_link pw vb up
through vhost va
pod_stop cnf
ctl pw port del va
ctl pw port del vb

# 2. The same CNF on memif.
ctl pw port add ma --network neta --type memif --socket "$T/ma.sock" --mac 02:00:00:99:02:0a --no-port-security
ctl pw port add mb --network netb --type memif --socket "$T/mb.sock" --mac 02:00:00:99:02:0b --no-port-security
POD_EAL="--vdev net_memif1,role=client,socket=$T/mb.sock,socket-abstract=no,mac=02:00:00:99:02:0b" \
	pod_up pw ma cnfm "$(vdev_memif "$T/ma.sock" 02:00:00:99:02:0a)" --forward-mode=io \
	--total-num-mbufs=16384
wait_link pw mb up
through memif ma
pod_stop cnfm
