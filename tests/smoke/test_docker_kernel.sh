#!/bin/bash
# Kernel containers on podwire networks, with a real dockerd: two busybox
# containers ping each other through podwired (traffic in `podwirectl
# stats`), see an ordinary eth0 with the network's MTU and Docker's MAC;
# two podwire networks are isolated; a VLAN network's frames leave tagged on
# an uplink; bad options are refused with the option named; removing
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
cleanup_uplink

# ---- removal leaves nothing ------------------------------------------------
dk rm -f c1 c2 c3 c4 c5 >/dev/null
dk network rm net1 net2 net3 >/dev/null
expect_eq "left behind" "ports=0 ifaces=0 dirs=0 endpoints=0" "$(leftovers)"
expect_eq "driver's networks" 0 "$(jq '.networks | length' "$T/dk-state/state.json")"
expect_eq "podwired networks" 0 "$(ctlj pw network list | jq '.networks | length')"
kill -0 "$DRIVER_PID" || fail "the driver died"
ok "docker network rm and container removal leave nothing behind"
