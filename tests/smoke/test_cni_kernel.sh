#!/bin/bash
# CNI iftype "kernel": pods without DPDK get an ordinary interface (the
# container end of a podwired veth pair) in their netns. The plugin is run
# as a runtime runs it, against real network namespaces: two kernel pods
# ping each other, carry TCP (iperf3) and UDP with valid checksums (tshark
# in the receiving pod), and have the name, MAC, MTU, addresses and routes
# the result says; CHECK passes, then fails once an address is removed;
# DEL twice leaves nothing; a failing IPAM and a taken CNI_IFNAME roll
# back whole; bad fields are refused naming the field; then a kernel pod
# and a DPDK pod (testpmd on virtio-user) on the same network exchange
# frames both ways; a DEL while podwired is down removes the pod's
# interface at once and the port once podwired is back.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cni_lib.sh"

command -v iperf3 >/dev/null || skip "iperf3 is not installed (apt-get install iperf3)"
command -v tshark >/dev/null || skip "tshark is not installed (apt-get install tshark)"

daemon_start pw

# Pods are network namespaces named as their container ids (cni() passes
# CNI_NETNS=/var/run/netns/<id>).
PA=pwk$$a PB=pwk$$b PC=pwk$$c PD=pwk$$d
NSS=("$PA" "$PB" "$PC")
for n in "${NSS[@]}"; do ip netns add "$n"; done
BG=()
ns_cleanup() {
	local p n
	for p in "${BG[@]}"; do kill "$p" 2>/dev/null || true; done
	for n in "${NSS[@]}"; do ip netns del "$n" 2>/dev/null || true; done
}
on_exit ns_cleanup
in_ns() {
	local n=$1
	shift
	ip netns exec "$n" "$@"
}
for n in "${NSS[@]}"; do in_ns "$n" ip link set lo up; done

# host-local's gateway .1 is nobody; the route says IPAM's routes are set.
cni_conf '.iftype = "kernel" | .mtu = 1400 | .ipam.routes = [{dst: "10.99.0.0/16"}]' >"$T/k.json"

# ---- bad fields: refused, naming the field and the fix; nothing made -----
cni_conf '.iftype = "tap"' >"$T/bad.json"
cni ADD "$PA" eth0 "$T/bad.json"
cni_err "iftype tap" 7 'or "kernel" (an ordinary interface, for a pod without DPDK)'
jq '.queues = 2' "$T/k.json" >"$T/bad.json"
cni ADD "$PA" eth0 "$T/bad.json"
cni_err "queues 2 on a kernel interface" 2 '"queues": 2 does not apply to iftype "kernel"'
jq '.mode = "client"' "$T/k.json" >"$T/bad.json"
cni ADD "$PA" eth0 "$T/bad.json"
cni_err "vhost-user mode on a kernel interface" 2 '"mode": "client" does not apply to iftype "kernel"'
jq '.physnet = "p0"' "$T/k.json" >"$T/bad.json"
cni ADD "$PA" eth0 "$T/bad.json"
cni_err "physnet on a kernel interface" 2 '"physnet": "p0" does not apply to iftype "kernel"'
expect_clean "after refused configs"

# ---- two kernel pods ------------------------------------------------------
cni ADD "$PA" eth0 "$T/k.json" "CNI_ARGS=IgnoreUnknown=true;MAC=02:00:00:77:01:0a"
cni_ok "ADD kernel pod a (MAC from CNI_ARGS)"
cp "$T/cni.out" "$T/a.result"
cni ADD "$PB" eth0 "$T/k.json"
cni_ok "ADD kernel pod b (MAC from podwired)"
cp "$T/cni.out" "$T/b.result"
R=$T/a.result
expect_eq "result: host end, then the pod's interface" "pwk eth0" \
	"$(jq -r '[.interfaces[0].name[0:3], .interfaces[1].name] | join(" ")' $R)"
expect_eq "host end has no sandbox, the pod's has its netns" "null /var/run/netns/$PA" \
	"$(jq -r '"\(.interfaces[0].sandbox) \(.interfaces[1].sandbox)"' $R)"
expect_eq "pod interface MAC and MTU in the result" "02:00:00:77:01:0a 1400" \
	"$(jq -r '"\(.interfaces[1].mac) \(.interfaces[1].mtu)"' $R)"
expect_eq "ips point at the pod's interface" 1 "$(jq -r '.ips[0].interface' $R)"
expect_eq "route from IPAM in the result" 10.99.0.0/16 "$(jq -r '.routes[0].dst' $R)"
IP_A=$(jq -r '.ips[0].address' "$T/a.result")
IP_B=$(jq -r '.ips[0].address' "$T/b.result")
MAC_B=$(jq -r '.interfaces[1].mac' "$T/b.result")
HOST_A=$(jq -r '.interfaces[0].name' "$T/a.result")
HOST_B=$(jq -r '.interfaces[0].name' "$T/b.result")
PORT_A=$(jq -r --arg h "$HOST_A" '.ports[] | select(.iface == $h) | .name' <(ctlj pw port list))
PORT_B=$(jq -r --arg h "$HOST_B" '.ports[] | select(.iface == $h) | .name' <(ctlj pw port list))
[ -n "$PORT_A" ] && [ -n "$PORT_B" ] || fail "no veth ports for $HOST_A/$HOST_B: $(ctl pw port list)"
expect_eq "podwired port: type, network, MAC, MTU" "veth cninet 02:00:00:77:01:0a 1400" \
	"$(ctlj pw port show "$PORT_A" | jq -r '[.type, .network, .mac, .mtu] | join(" ")')"
expect_eq "pod b's MAC is its port's" "$MAC_B" "$(ctlj pw port show "$PORT_B" | jq -r .mac)"
expect_eq "the host end's MAC in the result" "$(cat /sys/class/net/"$HOST_A"/address)" \
	"$(jq -r '.interfaces[0].mac' $R)"
[ ! -e "$T/pods/$(jq -r .port "$T"/pods/*/podwire.json | head -n1)/device.json" ] || true
expect_eq "no device-info for a kernel interface (podwire.json has none)" "null null" \
	"$(jq -rs '"\(.[0].deviceInfo) \(.[0].vdev)"' "$T"/pods/*/podwire.json)"

# The interface in the pod: name, MAC, MTU, up, the address, the routes.
J=$(in_ns "$PA" ip -j addr show eth0)
expect_eq "pod a's eth0: MAC, MTU, state" "02:00:00:77:01:0a 1400 UP" \
	"$(echo "$J" | jq -r '.[0] | "\(.address) \(.mtu) \(.operstate)"')"
expect_eq "pod a's eth0 address" "$IP_A" \
	"$(echo "$J" | jq -r '.[0].addr_info[] | select(.family == "inet") | "\(.local)/\(.prefixlen)"')"
expect_eq "pod a's routes" "10.77.0.0/24 dev eth0|10.99.0.0/16 via 10.77.0.1 dev eth0" \
	"$(in_ns "$PA" ip -4 route show | sed 's/ proto [a-z]*//; s/ scope link//; s/ src .*//; s/ *$//' | sort | paste -sd'|')"
expect_eq "pod a has lo and eth0, nothing else" "eth0 lo" "$(in_ns "$PA" ls /sys/class/net | sort | paste -sd' ')"
expect_eq "pod b's eth0 MAC" "$MAC_B" "$(in_ns "$PB" cat /sys/class/net/eth0/address)"

# ---- traffic between them -------------------------------------------------
wait_link pw "$PORT_A" up
wait_link pw "$PORT_B" up
in_ns "$PA" ping -c 3 -W 2 "${IP_B%/*}" >/dev/null || fail "pod a cannot ping pod b (${IP_B%/*})"
in_ns "$PB" ping -c 3 -W 2 "${IP_A%/*}" >/dev/null || fail "pod b cannot ping pod a (${IP_A%/*})"
ok "pods a and b ping each other through podwired"

# ---- "acl": the pod's own lists -------------------------------------------
# A bad rule: podwired's error (rule index, field) under the config's
# field, and the rollback leaves no port and no list.
jq '.acl = {ingress: {rules: [{action: "permit"}, {action: "deny", src: "10.0.0.1/8"}]}}' \
	"$T/k.json" >"$T/acl.json"
cni ADD "$PC" eth0 "$T/acl.json"
cni_err "acl with a host-bits prefix" 7 '"acl.ingress": list "pw-'
grep -q 'rule 1: \\"src\\" 10.0.0.1/8 has host bits set' "$T/cni.out" ||
	fail "the error does not name rule 1 and src: $(cat "$T/cni.out")"
expect_eq "no list left by the refused ADD" "" "$(ctlj pw acl list | jq -r '.lists[].name' | paste -sd' ')"
# Deny ICMP from pod c: its pings to pod b are dropped at its port.
jq '.acl = {ingress: {default: "permit", rules: [{action: "deny", proto: "icmp"}]}}' \
	"$T/k.json" >"$T/acl.json"
cni ADD "$PC" eth0 "$T/acl.json"
cni_ok "ADD pod c with an ingress list denying ICMP"
PORT_C=$(ctlj pw acl list | jq -r '.lists[] | select(.name | endswith("-in")) | .attachments[0].port')
expect_eq "list <port>-in attached to pod c's port, ingress" "$PORT_C-in ingress" \
	"$(ctlj pw acl list | jq -r '.lists[] | "\(.name) \(.attachments[0].direction)"')"
jq --slurpfile r "$T/cni.out" '. + {prevResult: $r[0]}' "$T/acl.json" >"$T/c-prev.json"
cni CHECK "$PC" eth0 "$T/c-prev.json"
cni_ok "CHECK pod c with its list"
wait_link pw "$PORT_C" up
! in_ns "$PC" ping -c 2 -W 1 "${IP_B%/*}" >/dev/null || fail "pod c pings pod b through a deny-ICMP list"
[ "$(port_stat pw "$PORT_C" .drops.acl_deny)" -ge 2 ] ||
	fail "no acl_deny drops on $PORT_C: $(ctlj pw port stats "$PORT_C")"
ok "pod c's pings are dropped (acl_deny) by its own list"
ctl pw acl detach "$PORT_C-in" --port "$PORT_C" >/dev/null
cni CHECK "$PC" eth0 "$T/c-prev.json"
cni_err "CHECK with the list detached" 103 "is not attached to the pod's port"
cni DEL "$PC" eth0 "$T/acl.json"
cni_ok "DEL pod c"
expect_eq "DEL deleted the pod's list" "" "$(ctlj pw acl list | jq -r '.lists[].name' | paste -sd' ')"
# Default deny with ARP and ICMP permitted: pings pass.
jq '.acl = {ingress: {default: "deny", rules: [{action: "permit", ethertype: "0x0806"},
	{action: "permit", proto: "icmp"}]}}' "$T/k.json" >"$T/acl.json"
cni ADD "$PC" eth0 "$T/acl.json"
cni_ok "ADD pod c with a default-deny list permitting ARP and ICMP"
PORT_C=$(ctlj pw acl list | jq -r '.lists[0].attachments[0].port')
wait_link pw "$PORT_C" up
in_ns "$PC" ping -c 2 -W 2 "${IP_B%/*}" >/dev/null || fail "pod c cannot ping pod b through a permit-ICMP list"
ok "pod c pings pod b through its permit rules"
cni DEL "$PC" eth0 "$T/acl.json"
cni_ok "DEL pod c"
cni DEL "$PC" eth0 "$T/acl.json"
cni_ok "DEL pod c again (its lists are gone already)"
expect_eq "no list left" "" "$(ctlj pw acl list | jq -r '.lists[].name' | paste -sd' ')"
expect_eq "podwired counted pod a's frames" true \
	"$([ "$(port_stat pw "$PORT_A" .rx_packets)" -ge 6 ] && echo true || echo false)"

# tshark in the receiving pod: every frame that arrives from pod a (not
# pod b's own, whose checksums the kernel may leave to a later stage),
# headers only.
in_ns "$PB" tshark -q -i eth0 -f "ether src 02:00:00:77:01:0a" -s 128 -c 30000 \
	-w "$T/b.pcap" >"$T/tshark.log" 2>&1 &
TSHARK=$!
BG+=("$TSHARK")
wait_for 10 "tshark to capture" grep -q "Capturing on" "$T/tshark.log"
in_ns "$PB" iperf3 -s -1 -p 5201 >"$T/iperf-s.log" 2>&1 &
BG+=($!)
sleep 0.5
in_ns "$PA" iperf3 -c "${IP_B%/*}" -p 5201 -t 3 -J >"$T/tcp.json" || fail "iperf3 TCP failed: $(tail -n 5 "$T/tcp.json")"
TCP_BYTES=$(jq -r .end.sum_received.bytes "$T/tcp.json")
TCP_GBPS=$(jq -r '.end.sum_received.bits_per_second / 1e9 * 100 | floor / 100' "$T/tcp.json")
[ "$TCP_BYTES" -gt 10000000 ] || fail "TCP a -> b received $TCP_BYTES bytes in 3 s"
ok "TCP a -> b: $TCP_BYTES bytes received, $TCP_GBPS Gbit/s (retransmits $(jq -r .end.sum_sent.retransmits "$T/tcp.json"))"
in_ns "$PB" iperf3 -s -1 -p 5202 >"$T/iperf-s2.log" 2>&1 &
BG+=($!)
sleep 0.5
in_ns "$PA" iperf3 -c "${IP_B%/*}" -p 5202 -u -b 200M -l 1200 -t 2 -J >"$T/udp.json" ||
	fail "iperf3 UDP failed: $(tail -n 5 "$T/udp.json")"
UDP_PKTS=$(jq -r '.end.sum.packets' "$T/udp.json")
UDP_LOST=$(jq -r '.end.sum.lost_packets' "$T/udp.json")
[ "$UDP_PKTS" -gt 1000 ] && [ "$UDP_LOST" -lt $((UDP_PKTS / 2)) ] ||
	fail "UDP a -> b: $UDP_PKTS datagrams sent, $UDP_LOST lost"
ok "UDP a -> b: $UDP_PKTS datagrams of 1200 bytes, $UDP_LOST lost"
kill -INT "$TSHARK" 2>/dev/null || true
wait "$TSHARK" 2>/dev/null || true
# Checksums: valid, or the pseudo-header sum a sender with checksum
# offload leaves (pod a's veth keeps its offloads: the kernel in pod b
# trusts such a frame, as from a Linux bridge); never anything else.
read -r FRAMES VALID PARTIAL BAD OVER LARGEST UNCHECKED <<<"$(pcap_check "$T/b.pcap" 1414 | sed 's/[a-z]*=//g')"
[ "$FRAMES" -gt 1000 ] || fail "tshark in pod b saw $FRAMES frames"
[ $((VALID + PARTIAL)) -gt 1000 ] || fail "pod b's capture: $VALID valid and $PARTIAL partial checksums"
expect_eq "frames with a wrong checksum among the $FRAMES pod b received ($VALID valid, $PARTIAL partial, $UNCHECKED cut short)" 0 "$BAD"
# Only TCP super-frames (GSO: their segments fit the MTU, podwired checks
# that at every egress) may be longer than the MTU inside the pod.
expect_eq "frames other than TCP over the MTU (1400 + 14) pod b received" 0 \
	"$(tshark -r "$T/b.pcap" -Y 'frame.len > 1414 && !tcp' 2>/dev/null | wc -l)"
expect_eq "TCP checksum errors in pod b's kernel" 0 \
	"$(in_ns "$PB" cat /proc/net/snmp | awk '$1 == "Tcp:" { if (!h) { for (i = 2; i <= NF; i++) if ($i == "InCsumErrors") c = i; h = 1 } else print $c + 0 }')"

# ---- CHECK ------------------------------------------------------------------
jq --slurpfile r "$T/a.result" '. + {prevResult: $r[0]}' "$T/k.json" >"$T/a-prev.json"
cni CHECK "$PA" eth0 "$T/a-prev.json"
cni_ok "CHECK pod a"
in_ns "$PA" ip addr del "$IP_A" dev eth0
cni CHECK "$PA" eth0 "$T/a-prev.json"
cni_err "CHECK after the address is removed" 103 "lacks the address $IP_A"
in_ns "$PA" ip link set eth0 mtu 1300
in_ns "$PA" ip addr add "$IP_A" dev eth0
cni CHECK "$PA" eth0 "$T/a-prev.json"
cni_err "CHECK after the MTU changed" 103 "has MTU 1300, the config says 1400"

# ---- DEL twice: nothing left ---------------------------------------------
for i in 1 2; do
	cni DEL "$PA" eth0 "$T/a-prev.json"
	cni_ok "DEL pod a ($i)"
done
cni DEL "$PB" eth0 "$T/k.json"
cni_ok "DEL pod b"
expect_clean "after DEL"
in_ns "$PA" ip link show eth0 >/dev/null 2>&1 && fail "pod a still has eth0 after DEL"
left=$(ip -o link show | grep -oE '(pwk|pwc)[0-9a-f]{8}' | paste -sd' ' || true)
[ -z "$left" ] || fail "veths left in the node's namespace after DEL: $left"
ok "DEL left no veth in the pods or the node"
# GC: an attachment not among the valid ones goes whole; so does a kernel
# port no record owns (its record lost).
jq '. + {"cni.dev/valid-attachments": []}' "$T/k.json" >"$T/gc.json"
cni ADD "$PA" eth0 "$T/k.json"
cni_ok "ADD pod a for GC"
cni GC "" "" "$T/gc.json"
cni_ok "GC without valid attachments"
expect_clean "after GC"
in_ns "$PA" ip link show eth0 >/dev/null 2>&1 && fail "pod a still has eth0 after GC"
cni ADD "$PA" eth0 "$T/acl.json"
cni_ok "ADD pod a (with an \"acl\" list), whose record is then lost"
rm -f "$T"/cnidata/????????.json
cni GC "" "" "$T/gc.json"
cni_ok "GC with a kernel port no record owns"
expect_eq "GC deleted the lost pod's list" "" "$(ctlj pw acl list | jq -r '.lists[].name' | paste -sd' ')"
expect_eq "ports after GC" 0 "$(ctlj pw port list | jq '.ports | length')"
in_ns "$PA" ip link show eth0 >/dev/null 2>&1 && fail "pod a still has eth0 after GC of its port"
cni DEL "$PA" eth0 "$T/k.json" # no record: releases the IP
cni_ok "DEL pod a without a record"
expect_clean "after GC of an unrecorded port"
# The pod's netns gone before DEL: no error.
cni ADD "$PC" eth0 "$T/k.json"
cni_ok "ADD pod c"
ip netns del "$PC"
cni DEL "$PC" eth0 "$T/k.json"
cni_ok "DEL pod c after its netns went"
expect_clean "after DEL without the netns"
ip netns add "$PC"

# ---- ADD failures roll back whole -----------------------------------------
cat >"$CNI_BIN/failipam" <<-'EOF'
	#!/bin/sh
	cat >/dev/null
	[ "$CNI_COMMAND" = ADD ] || exit 0
	echo '{"cniVersion":"1.1.0","code":11,"msg":"no address for you"}'
	exit 1
EOF
chmod +x "$CNI_BIN/failipam"
jq '.ipam = {type: "failipam"}' "$T/k.json" >"$T/fail.json"
cni ADD "$PA" eth0 "$T/fail.json"
cni_err "ADD with a failing IPAM" 11 "no address for you"
expect_clean "after the IPAM failure"
in_ns "$PA" ip link show eth0 >/dev/null 2>&1 && fail "pod a has eth0 after a failed ADD"
# The pod's name is taken: the interface cannot move in, after IPAM gave
# an address (released again).
in_ns "$PC" ip link add eth0 type veth peer name other0
cni ADD "$PC" eth0 "$T/k.json"
cni_err "ADD when the pod has an eth0 already" 3 "already has an interface eth0"
expect_clean "after the move failure"
expect_eq "the pod's own eth0 is left alone" "veth other0" \
	"$(in_ns "$PC" ip -j -d link show eth0 | jq -r '.[0] | "\(.linkinfo.info_kind) \(.link)"')"
left=$(ip -o link show | grep -oE '(pwk|pwc)[0-9a-f]{8}' | paste -sd' ' || true)
[ -z "$left" ] || fail "veths left in the node's namespace after failed ADDs: $left"
ok "failed ADDs left no veth"

# ---- a kernel pod and a DPDK pod on one network -----------------------------
cni ADD "$PA" eth0 "$T/k.json"
cni_ok "ADD kernel pod a again"
cp "$T/cni.out" "$T/a.result"
MAC_A=$(jq -r '.interfaces[1].mac' "$T/a.result")
HOST_A=$(jq -r '.interfaces[0].name' "$T/a.result")
PORT_A=$(jq -r --arg h "$HOST_A" '.ports[] | select(.iface == $h) | .name' <(ctlj pw port list))
cni_conf '.runtimeConfig = {mac: "02:00:00:77:01:0d"}' >"$T/d.json"
cni ADD "$PD" net1 "$T/d.json"
cni_ok "ADD DPDK pod d (vhost-user)"
cp "$T/cni.out" "$T/d.result"
IP_D=$(jq -r '.ips[0].address' "$T/d.result")
SOCK_D=$(jq -r '.interfaces[0].socketPath' "$T/d.result")
PORT_D=$(jq -r .port "$(dirname "$SOCK_D")/podwire.json")
wait_link pw "$PORT_A" up
pod_up pw "$PORT_D" d "$(vdev_virtio "$SOCK_D" 02:00:00:77:01:0d)" --eth-peer=0,"$MAC_A"
# testpmd answers neither ARP nor ping: pod a knows d's MAC, d counts.
in_ns "$PA" ip neigh replace "${IP_D%/*}" lladdr 02:00:00:77:01:0d dev eth0
in_ns "$PA" ping -c 20 -i 0.05 -s 1300 -W 1 "${IP_D%/*}" >/dev/null 2>&1 || true
wait_for 10 "DPDK pod d to receive kernel pod a's 20 pings" pod_rx_ge d 20
ok "kernel pod a -> DPDK pod d: $(pod_rx d) frames"
rx0=$(in_ns "$PA" cat /sys/class/net/eth0/statistics/rx_packets)
pod_send d 2
wait_for 10 "kernel pod a to receive DPDK pod d's 64 frames" \
	bash -c "[ \$(ip netns exec $PA cat /sys/class/net/eth0/statistics/rx_packets) -ge $((rx0 + 64)) ]"
ok "DPDK pod d -> kernel pod a: 64 frames arrived on eth0"
pod_stop d
cni DEL "$PD" net1 "$T/d.json"
cni_ok "DEL DPDK pod d"
cni DEL "$PA" eth0 "$T/k.json"
cni_ok "DEL kernel pod a"
expect_clean "after the kernel and DPDK pods"

# ---- DEL while podwired is down: the pod's end goes at once (by its
# alias), the port once podwired is back (pending) --------------------------
cni ADD "$PA" eth0 "$T/k.json"
cni_ok "ADD pod a before podwired stops"
daemon_stop pw
cni DEL "$PA" eth0 "$T/k.json"
cni_ok "DEL pod a while podwired is down"
in_ns "$PA" ip link show eth0 >/dev/null 2>&1 && fail "pod a kept eth0 while podwired was down"
[ -n "$(ls "$T"/cnidata/pending/ 2>/dev/null)" ] || fail "DEL left no pending entry for the port"
ok "pod a's eth0 went with podwired down; the port is pending"
daemon_start pw
cni DEL "$PA" eth0 "$T/k.json"
cni_ok "DEL again once podwired is back"
expect_clean "after podwired came back"
left=$(ip -o link show | grep -oE '(pwk|pwc)[0-9a-f]{8}' | paste -sd' ' || true)
[ -z "$left" ] || fail "veths left in the node's namespace at the end: $left"
ok "no veth left at the end"
