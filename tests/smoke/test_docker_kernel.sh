#!/bin/bash
# Kernel containers on podwire networks, with a real dockerd: two busybox
# containers ping each other through podwired (traffic in `podwirectl
# stats`), see an ordinary eth0 with the network's MTU and Docker's MAC and
# the offloads podwired's veth port kind sets; TCP (iperf3, and 8 MB whose
# digest must arrive unchanged) and UDP cross podwired, and tshark where
# they arrive finds every checksum valid (or a sender's partial sum, on a
# veth that carries offloads) and no frame over the MTU where none may be;
# TCP leaving through an uplink without offloads arrives as MTU frames with
# complete checksums; docker run's options (podwire.queues refused,
# --ip, --mac-address, network connect) work on kernel endpoints; an
# endpoint's podwire.acl list denying ICMP stops its pings; two
# podwire networks are isolated; a VLAN network's frames leave tagged on an
# uplink; bad options are refused with the option named; removing
# containers and networks leaves nothing behind.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/docker_lib.sh"

docker_setup net

# ---- options: refused, naming the option and the fix; nothing made ------
expect_refused() { # WHAT NEEDLE docker network create args...
	local what=$1 needle=$2 out
	shift 2
	if out=$(dk network create -d podwire "$@" bad 2>&1); then
		fail "$what: network created"
	fi
	case "$out" in *"$needle"*) ok "$what refused: $out" ;; *) fail "$what: message lacks \"$needle\": $out" ;; esac
	dk network inspect bad >/dev/null 2>&1 && fail "$what: network \"bad\" exists"
	return 0
}
expect_refused "unknown podwire option" "unknown option podwire.bogus" -o podwire.bogus=1
expect_refused "bad VLAN" "option podwire.vlan: \"5000\" is not a VLAN id; give 1-4094" \
	-o podwire.vlan=5000
expect_refused "bad iftype" "option podwire.iftype: \"tap\"" -o podwire.iftype=tap
expect_refused "bad MTU" "com.docker.network.driver.mtu: \"20\" is not an MTU" \
	-o com.docker.network.driver.mtu=20
expect_refused "bad mode" "option podwire.mode: \"hub\"" -o podwire.mode=hub
expect_eq "podwired networks after refusals" 0 "$(ctlj pw network list | jq '.networks | length')"

# ---- two containers ping each other ---------------------------------------
dk network create -d podwire --subnet 10.80.0.0/24 --gateway 10.80.0.1 \
	-o com.docker.network.driver.mtu=1400 net1 >/dev/null
ct_run c1 net1
ct_run c2 net1
ip2=$(ct_ip c2 net1)
p1=$(ct_port c1 net1)
p2=$(ct_port c2 net1)
wait_link pw "$p1" up
wait_link pw "$p2" up
dk exec c1 ping -c 3 -W 2 "$ip2" >/dev/null || fail "c1 cannot ping c2 ($ip2)"
ok "c1 pings c2 through podwired"
rx1=$(port_stat pw "$p1" .rx_packets)
tx2=$(port_stat pw "$p2" .tx_packets)
[ "$rx1" -ge 3 ] && [ "$tx2" -ge 3 ] || fail "podwirectl stats: $p1 rx $rx1, $p2 tx $tx2"
ok "podwirectl stats: $p1 received $rx1 frames, $p2 was sent $tx2"

# An operator's list on one container's port (endpoint option podwire.acl):
# its pings are dropped there, c1's (no list) pass above.
ctl pw acl set noicmp --default permit --rule '{"action":"deny","proto":"icmp"}' >/dev/null
ct_run c8 name=net1,driver-opt=podwire.acl=noicmp
p8=$(ct_port c8 net1)
wait_link pw "$p8" up
expect_eq "podwire.acl=noicmp attached to c8's port" "$p8 ingress" \
	"$(ctlj pw acl list | jq -r '.lists[] | select(.name == "noicmp") | .attachments[] | "\(.port) \(.direction)"')"
! dk exec c8 ping -c 2 -W 1 "$ip2" >/dev/null || fail "c8 pings c2 through a list denying ICMP"
[ "$(port_stat pw "$p8" .drops.acl_deny)" -ge 2 ] || fail "no acl_deny drops on $p8"
ok "c8's pings are dropped by its endpoint's list (acl_deny $(port_stat pw "$p8" .drops.acl_deny))"
dk rm -f c8 >/dev/null
ctl pw acl del noicmp >/dev/null || fail "list noicmp still attached after c8 went: $(ctl pw acl list)"

# An ordinary eth0: the network's MTU, Docker's MAC, the gateway route.
link=$(dk exec c1 ip -o link show eth0)
case "$link" in *"mtu 1400"*) ok "eth0 has the network's MTU 1400" ;; *) fail "eth0: $link" ;; esac
mac=$(dk exec c1 cat /sys/class/net/eth0/address)
expect_eq "eth0 MAC is Docker's" "$(ct_mac c1 net1)" "$mac"
expect_eq "eth0 MAC is the port's" "$mac" "$(ctlj pw port show "$p1" | jq -r .mac)"
dk exec c1 ip route | grep -q "default via 10.80.0.1 dev eth0" ||
	fail "no default route via the gateway: $(dk exec c1 ip route)"
ok "default route via the network's gateway"
expect_eq "c1 has one interface besides lo (no docker_gwbridge)" 1 \
	"$(dk exec c1 ls /sys/class/net | grep -vc '^lo$')"

# ---- offloads: as podwired's veth port kind sets them ----------------------
# The driver only names the pair and hands dockerd its end: the offloads on
# eth0 are the ones the port kind chose for both ends (off for AF_XDP, which
# takes frames as they are on the wire; on for podwire's AF_PACKET with
# virtio-net headers, which carries super-frames and partial checksums).
want=$(veth_offloads "$p1")
pid2=$(ct_pid c2)
for ct in c1 c2; do
	port=$(ct_port "$ct" net1)
	host=$(ctlj pw port show "$port" | jq -r .iface)
	offloads_are "$want" "$(ct_pid "$ct")" eth0 ||
		fail "$ct: eth0's offloads are not as port $port's I/O ($(ctlj pw port show "$port" |
			jq -r .veth.driver)) sets them"
	# Over AF_XDP only the host end's checksum offload matters (XDP sends
	# podwired's frames as they are); over podwire's AF_PACKET the host
	# end sends podwired's super-frames: all must be on.
	if [ "$want" = on ]; then
		offloads_are on - "$host" || fail "$ct: the host end $host has offloads off"
	else
		expect_eq "$ct: checksum offload of the host end $host" "tx=off" \
			"$(offloads - "$host" | cut -d' ' -f1)"
	fi
	ok "$ct: eth0 $(offloads "$(ct_pid "$ct")" eth0), host end $(offloads - "$host"), as port $port's veth I/O sets them (offloads $want)"
done

# ---- TCP and UDP across podwired, seen where they arrive -------------------
# iperf3 gives the throughput (printed, not asserted); busybox nc carries
# 8 MB whose digest must arrive unchanged; tshark in c2's namespace checks
# every TCP and UDP frame that reached it: checksums that verify or that are
# a sender's partial sum (offload), never a wrong one; nothing over eth0's
# MTU 1400 unless the veths carry super-frames (offloads on). c2's stack
# must count no checksum errors either: a partial checksum podwired passed
# on without its "needs checksum" flag would be one.
dk exec -d c2 iperf3 -s
_iperf_listens() { nsenter -t "$pid2" -n ss -ltn | grep -q ':5201 '; }
wait_for 20 "iperf3 -s in c2 to listen" _iperf_listens
dk exec c1 iperf3 -c "$ip2" -t 3 -J >"$T/tcp.json" || fail "iperf3 TCP c1 -> c2: $(cat "$T/tcp.json")"
got=$(jq '.end.sum_received.bytes' "$T/tcp.json")
[ "$got" -gt 0 ] || fail "iperf3 TCP: nothing received: $(jq -c .end.sum_received "$T/tcp.json")"
ok "TCP c1 -> c2 through podwired: $(jq -r '.end.sum_received.bits_per_second / 1e9 * 100 | round / 100' \
	"$T/tcp.json") Gbit/s ($got bytes, $(jq .end.sum_sent.retransmits "$T/tcp.json") retransmissions; offloads $want)"

csum0=$(($(snmp "$pid2" Tcp InCsumErrors) + $(snmp "$pid2" Udp InCsumErrors)))
rcvbuf0=$(snmp "$pid2" Udp RcvbufErrors)
capture_start c2 "$pid2" eth0 "tcp port 5000 or udp port 5201 or (ip[6:2] & 0x1fff != 0)"
# (nc -e: a plain `nc -l` ends at the end of its own stdin, with the data.)
dk exec -d c2 nc -l -p 5000 -e sh -c 'md5sum >/tmp/got.md5'
_nc_listens() { nsenter -t "$pid2" -n ss -ltn | grep -q ':5000 '; }
wait_for 20 "nc -l in c2 to listen" _nc_listens
sent=$(dk exec c1 sh -c "head -c 8000000 /dev/urandom >/tmp/data && md5sum </tmp/data &&
	nc $ip2 5000 </tmp/data")
_nc_done() { dk exec c2 test -s /tmp/got.md5; }
wait_for 20 "c2 to have the whole 8 MB" _nc_done
expect_eq "digest of the 8 MB c2 received" "$sent" "$(dk exec c2 cat /tmp/got.md5)"
# UDP: 1000-byte datagrams at a pace c2 keeps up with, then 3000-byte ones
# (IP fragments, each within the MTU).
for len in 1000 3000; do
	dk exec c1 iperf3 -c "$ip2" -u -b 8M -l "$len" -t 2 -J >"$T/udp$len.json" ||
		fail "iperf3 UDP ($len bytes) c1 -> c2: $(cat "$T/udp$len.json")"
	rcvbuf1=$(snmp "$pid2" Udp RcvbufErrors)
	read -r n lost < <(jq -r '.end.sum | "\(.packets) \(.lost_packets)"' "$T/udp$len.json")
	[ "$n" -gt 0 ] || fail "iperf3 UDP ($len bytes): nothing sent"
	# Datagrams c2's own socket dropped (receive buffer full) reached it.
	[ "$lost" -le $((rcvbuf1 - rcvbuf0)) ] ||
		fail "UDP $len bytes: $lost of $n datagrams lost on the way ($((rcvbuf1 - rcvbuf0)) in c2's full socket); stats: $(ctl pw stats)"
	ok "UDP c1 -> c2, $len-byte datagrams: $n sent, $lost lost (c2's socket dropped $((rcvbuf1 - rcvbuf0)))"
	rcvbuf0=$rcvbuf1
done
capture_stop c2
csum1=$(($(snmp "$pid2" Tcp InCsumErrors) + $(snmp "$pid2" Udp InCsumErrors)))
expect_eq "checksum errors c2's stack counted" "$csum0" "$csum1"
res=$(pcap_check "$T/c2.pcap" 1414)
log "c2's capture: $res"
read -r frames valid partial bad over largest _ < <(sed 's/[a-z]*=//g' <<<"$res")
[ "$frames" -gt 1000 ] || fail "c2's capture has $frames frames: $(cat "$T/c2.tshark")"
expect_eq "frames with a wrong checksum in c2's capture" 0 "$bad"
if [ "$want" = off ]; then
	expect_eq "frames over MTU 1400 in c2's capture (offloads off: none may be)" 0 "$over"
	expect_eq "partial checksums in c2's capture (offloads off: none may be)" 0 "$partial"
else
	[ "$largest" -le 65549 ] || fail "a frame of $largest bytes in c2's capture"
fi
ok "c2 received $frames frames: $valid checksums verify, $partial partial (offload), none wrong; $over super-frames (largest $largest bytes)"

# ---- docker run's options on kernel endpoints --------------------------------
# podwire.queues is for DPDK containers: refused, naming the option, and
# nothing made. --ip and --mac-address are honoured; a second podwire
# network connected to a running container is its eth1, with the same
# offloads, and goes with `docker network disconnect`.
ports_before=$(ctlj pw port list | jq '.ports | length')
if out=$(dk run -d --name q1 --network name=net1,driver-opt=podwire.queues=2 podwire/net \
	sleep 100000 2>&1); then
	fail "podwire.queues=2 on a kernel network: container started: $out"
fi
case "$out" in
*"endpoint option podwire.queues applies to DPDK containers"*) ok "podwire.queues=2 refused: $out" ;;
*) fail "podwire.queues=2 on a kernel network: the message lacks the option: $out" ;;
esac
dk rm -f q1 >/dev/null 2>&1 || true
expect_eq "podwired ports after the refusal" "$ports_before" "$(ctlj pw port list | jq '.ports | length')"
ct_run c6 net1 --ip 10.80.0.66 --mac-address 02:42:0a:50:00:42
expect_eq "c6's eth0 MAC (--mac-address)" 02:42:0a:50:00:42 "$(dk exec c6 cat /sys/class/net/eth0/address)"
expect_eq "c6's port's MAC" 02:42:0a:50:00:42 "$(ctlj pw port show "$(ct_port c6 net1)" | jq -r .mac)"
dk exec c6 ip -o -4 addr show eth0 | grep -q "inet 10.80.0.66/24" ||
	fail "c6 lacks --ip 10.80.0.66: $(dk exec c6 ip -o -4 addr show eth0)"
wait_link pw "$(ct_port c6 net1)" up
dk exec c6 ping -c 2 -W 2 "$ip2" >/dev/null || fail "c6 (--ip 10.80.0.66) cannot ping c2"
ok "c6 with --ip and --mac-address pings c2"
dk network create -d podwire --subnet 10.83.0.0/24 -o com.docker.network.driver.mtu=9000 net4 >/dev/null
dk network connect net4 c6
p6b=$(ct_port c6 net4)
wait_link pw "$p6b" up
expect_eq "c6's eth1 (docker network connect): MTU" 9000 "$(dk exec c6 cat /sys/class/net/eth1/mtu)"
offloads_are "$(veth_offloads "$p6b")" "$(ct_pid c6)" eth1 ||
	fail "c6's eth1: offloads not as port $p6b's I/O sets them"
dk network disconnect net4 c6
dk network rm net4 >/dev/null
dk rm -f c6 >/dev/null
expect_eq "podwired ports after c6 and net4 went" "$ports_before" "$(ctlj pw port list | jq '.ports | length')"

# ---- two podwire networks are isolated ------------------------------------
dk network create -d podwire --subnet 10.81.0.0/24 net2 >/dev/null
ct_run c3 net2
p3=$(ct_port c3 net2)
wait_link pw "$p3" up
ip3=$(ct_ip c3 net2)
before=$(port_stat pw "$p3" .tx_packets)
# c4 on net1 claims an address in net2's subnet and tries to reach c3.
ct_run c4 net1 --cap-add NET_ADMIN
dk exec c4 ip addr add 10.81.0.50/24 dev eth0
if dk exec c4 ping -c 2 -W 1 "$ip3" >/dev/null 2>&1; then
	fail "a container on net1 reached c3 on net2"
fi
expect_eq "frames sent to c3's port while net1 tried to reach it" "$before" \
	"$(port_stat pw "$p3" .tx_packets)"

# ---- a VLAN network's frames leave tagged on an uplink --------------------
# The uplink is a veth: podwired holds one end (af_packet), the other end is
# in a namespace where tcpdump reads what leaves.
UPNS=pwup$$
ip netns add "$UPNS"
ip link add "pwu$$a" type veth peer name "pwu$$b" netns "$UPNS"
ip link set "pwu$$a" up
ip -n "$UPNS" link set "pwu$$b" up
cleanup_uplink() {
	ip netns del "$UPNS" 2>/dev/null || true
	ip link del "pwu$$a" 2>/dev/null || true
}
on_exit cleanup_uplink
dk network create -d podwire --subnet 10.82.0.0/24 -o podwire.vlan=100 \
	-o podwire.network=vlan100 net3 >/dev/null
expect_eq "podwired network vlan100's VLAN" 100 \
	"$(ctlj pw network list | jq '.networks[] | select(.name == "vlan100") | .vlan')"
ctl pw port add up100 --network vlan100 --type af_packet --iface "pwu$$a" >/dev/null
ct_run c5 net3
ip netns exec "$UPNS" timeout 30 tcpdump -c 2 -nei "pwu$$b" 'vlan 100 and arp' \
	>"$T/tcpdump.out" 2>&1 &
TCPDUMP=$!
wait_for 10 "tcpdump to listen" grep -q "listening on" "$T/tcpdump.out"
# c5 asks who has 10.82.0.99, again and again until tcpdump has seen it.
dk exec -d c5 ping -c 20 -W 1 10.82.0.99
wait "$TCPDUMP" || true
grep -q "vlan 100.*ARP.*10.82.0.99" "$T/tcpdump.out" ||
	{ cleanup_uplink; fail "no VLAN 100 ARP frame seen on the uplink: $(cat "$T/tcpdump.out")"; }
ok "c5's frames leave the uplink tagged VLAN 100: $(grep -m1 'vlan 100' "$T/tcpdump.out")"

ctl pw port del up100 >/dev/null

# ---- TCP out of an uplink that takes no offloads ----------------------------
# The uplink (net_af_packet, no offloads) is a veth whose other end is in a
# namespace running iperf3 -s. Whatever c7 hands its eth0 (super-frames and
# partial checksums when the veths carry them), what leaves the uplink is
# frames within c7's MTU with checksums that verify (captured where they
# arrive), and the receiver counts no checksum errors.
TXNS=pwtx$$
ip netns add "$TXNS"
ip link add "pwt$$a" type veth peer name "pwt$$b" netns "$TXNS"
ip link set "pwt$$a" up
ip -n "$TXNS" addr add 10.84.0.200/24 dev "pwt$$b"
ip -n "$TXNS" link set "pwt$$b" up
# The namespace's end stands for a NIC's wire: what it sends has complete
# checksums (a veth's default, checksum offload, would hand the packet
# socket podwired reads it with partial ones).
ip netns exec "$TXNS" ethtool -K "pwt$$b" tx off >/dev/null
cleanup_txns() {
	[ -z "${TX_IPERF:-}" ] || kill "$TX_IPERF" 2>/dev/null || true
	ip netns del "$TXNS" 2>/dev/null || true
	ip link del "pwt$$a" 2>/dev/null || true
}
on_exit cleanup_txns
dk network create -d podwire --subnet 10.84.0.0/24 -o podwire.network=up84 net5 >/dev/null
ctl pw port add up84 --network up84 --type af_packet --iface "pwt$$a" >/dev/null
ct_run c7 net5
wait_link pw "$(ct_port c7 net5)" up
ip7=$(ct_ip c7 net5)
mtu7=$(dk exec c7 cat /sys/class/net/eth0/mtu)
ip netns exec "$TXNS" iperf3 -s -1 >"$T/iperf3-up.log" 2>&1 &
TX_IPERF=$!
_up_listens() { ip netns exec "$TXNS" ss -ltn | grep -q ':5201 '; }
wait_for 20 "iperf3 -s in the uplink's namespace to listen" _up_listens
capture_start up "ns:$TXNS" "pwt$$b" "src host $ip7"
upcsum0=$(snmp "ns:$TXNS" Tcp InCsumErrors)
dk exec c7 iperf3 -c 10.84.0.200 -t 2 -b 200M -J >"$T/tcp-up.json" || true
capture_stop up
kill "$TX_IPERF" 2>/dev/null || true
wait "$TX_IPERF" || true
TX_IPERF=""
[ "$(jq '.end.sum_received.bytes // 0' "$T/tcp-up.json")" -gt 0 ] ||
	fail "iperf3 TCP c7 -> uplink: $(jq -c .error "$T/tcp-up.json"); stats: $(ctl pw stats)"
upcsum1=$(snmp "ns:$TXNS" Tcp InCsumErrors)
res=$(pcap_check "$T/up.pcap" $((mtu7 + 14)))
log "the uplink's capture (c7's MTU $mtu7): $res"
read -r frames valid partial bad over largest _ < <(sed 's/[a-z]*=//g' <<<"$res")
[ "$frames" -gt 100 ] || fail "the uplink's capture has $frames frames: $(cat "$T/up.tshark")"
expect_eq "frames over c7's MTU $mtu7 leaving the uplink" 0 "$over"
expect_eq "frames with a wrong or partial checksum leaving the uplink" "0 0" "$bad $partial"
expect_eq "TCP checksum errors the uplink's receiver counted" "$upcsum0" "$upcsum1"
ok "TCP c7 -> uplink: $(jq -r '.end.sum_received.bits_per_second / 1e6 | round' "$T/tcp-up.json") Mbit/s, $frames frames, all within MTU $mtu7 (largest $largest bytes), checksums verify"
ctl pw port del up84 >/dev/null
cleanup_txns

# ---- removal leaves nothing ------------------------------------------------
dk rm -f c1 c2 c3 c4 c5 c7 >/dev/null
dk network rm net1 net2 net3 net5 >/dev/null
expect_eq "left behind" "ports=0 ifaces=0 dirs=0 endpoints=0" "$(leftovers)"
expect_eq "driver's networks" 0 "$(jq '.networks | length' "$T/dk-state/state.json")"
expect_eq "podwired networks" 0 "$(ctlj pw network list | jq '.networks | length')"
kill -0 "$DRIVER_PID" || fail "the driver died"
ok "docker network rm and container removal leave nothing behind"
