#!/bin/bash
# Two nodes on one machine, joined by an uplink. Each node is a network
# namespace with its own podwired; a veth pair (one tx and one rx queue,
# as AF_XDP wants) has one end in each. On both nodes network red has VLAN
# 100 and network blue VLAN 200, and each has an uplink port on the node's
# veth end: the two networks share one uplink device.
#
#   node A: pod ar (red), pod ab (blue)   --- veth va <-> vb ---   node B: pod br (red), pod bb (blue)
#
# Checked, with AF_XDP uplinks, then AF_PACKET uplinks, then af_xdp uplinks
# where XDP is unavailable (they must fall back to AF_PACKET, on a second
# veth pair), then AF_XDP again on the first pair:
# - red frames go A -> B and B -> A; blue pods never see them (broadcast,
#   unknown unicast and known unicast alike), and the other way round;
# - on the wire red frames carry VLAN 100 and blue ones VLAN 200 (tcpdump
#   on vb: before node B's uplink is attached, when its kernel still sees
#   every frame, and while AF_PACKET uplinks share the interface with it);
# - frames with a VLAN no network of the device has, or none, are counted
#   in the uplink's unknown_vlan and delivered to nobody;
# - bad uplink requests are refused with a clear message and change nothing.
#
# Cores: both podwireds' workers on core 1 and their control threads on
# core 0 with the pods (lib.sh's WORKER_CPU and POD_CPU). Every assertion
# waits for a condition: nothing relies on a sleep.
. "$(dirname "$0")/lib.sh"

command -v tcpdump >/dev/null || fail "tcpdump is not installed (apt-get install tcpdump; .ci/setup installs it)"

NA=pwA$$
NB=pwB$$
VA=va # node A's end of the veth pair, in $NA
VB=vb # node B's end, in $NB
BCAST=ff:ff:ff:ff:ff:ff
NOBODY=02:00:00:00:ee:ee
declare -A MAC=([ar]=02:00:00:00:a1:01 [ab]=02:00:00:00:a2:01
	[br]=02:00:00:00:b1:01 [bb]=02:00:00:00:b2:01)
NETNS_MADE=()
CAPTURE_PID=""

# ---- cleanup: our own part, then lib.sh's ------------------------------------
# podwired must be gone before its namespace (and the veth in it) is, and
# its state must be dumped on failure while it still answers.
_two_nodes_cleanup() {
	local rc=$1 n h s ns
	if [ $rc -ne 0 ] && [ $rc -ne 77 ]; then
		_dump
		for n in "${!DAEMON_PID[@]}"; do
			echo "---- podwired $n: uplinks"
			for s in up-red up-blue; do ctlj "$n" port show $s 2>/dev/null | jq -c .uplink; done
		done
		for ns in "${NETNS_MADE[@]}"; do ip -n "$ns" -s -d link show 2>/dev/null; done
		echo "---- tcpdump (stopped now: its counters, then what it wrote)"
		[ -z "$CAPTURE_PID" ] || capture_stop
		cat "$T/cap.log" 2>/dev/null
		tcpdump -r "$T/cap.pcap" -tt -e -nn 2>/dev/null | awk '{print $1, $2}' | uniq -c -f1
	fi
	[ -z "$CAPTURE_PID" ] || _stop_pid "$CAPTURE_PID"
	for n in "${!POD_PID[@]}"; do _stop_pid "${POD_PID[$n]}"; done
	for n in "${!DAEMON_PID[@]}"; do
		_stop_pid "${DAEMON_PID[$n]}"
		wait "${DAEMON_PID[$n]}" 2>/dev/null
		# podwired's DPDK runtime dir, named after its socket (see
		# dataplane/main.c), is left behind only when it was killed.
		h=$(python3 -c 'import sys
h = 5381
for c in sys.argv[1].encode(): h = (h * 33 + c) & 0xffffffffffffffff
print("%08x" % (h & 0xffffffff))' "$T/$n.sock")
		rm -rf "/var/run/dpdk/podwired-$h"
	done
	POD_PID=()
	DAEMON_PID=()
	for ns in "${NETNS_MADE[@]}"; do ip netns del "$ns"; done
}
on_exit _two_nodes_cleanup

# ---- the two nodes -----------------------------------------------------------
for ns in $NA $NB; do
	ip netns add "$ns" 2>/dev/null || skip "cannot create network namespace $ns"
	NETNS_MADE+=("$ns")
	# No IPv6: the kernels must not send router solicitations or MLD
	# reports onto the wire, where they would count as unknown_vlan.
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1 2>/dev/null || true
	ip -n "$ns" link set lo up
done
ip -n $NA link add $VA numtxqueues 1 numrxqueues 1 type veth \
	peer name $VB netns $NB numtxqueues 1 numrxqueues 1 2>/dev/null ||
	skip "cannot create a veth pair between $NA and $NB"
ip -n $NA link set $VA up
ip -n $NB link set $VB up
ok "nodes: $NA ($VA) <-> $NB ($VB)"

# node_start NAME NETNS: daemon_start inside a network namespace. `ip netns
# exec` execs podwired, so the PID is podwired's.
node_start() {
	local name=$1 ns=$2
	ip netns exec "$ns" "$PODWIRED" --main-core "$POD_CPU" --worker-cores "$WORKER_CPU" \
		--socket "$T/$name.sock" --state-dir "$T/$name.state" --cdi-dir "$T/$name.cdi" \
		>>"$T/$name.log" 2>&1 &
	DAEMON_PID[$name]=$!
	wait_for 30 "podwired $name to answer" ctl "$name" info
}

node_start a $NA
node_start b $NB
for n in a b; do
	ctl $n network add red --vlan 100 >/dev/null
	ctl $n network add blue --vlan 200 >/dev/null
done

# uplinks NODE TYPE IFACE: red's and blue's uplink ports on IFACE.
uplinks() {
	ctl "$1" port add up-red --network red --type "$2" --iface "$3"
	ctl "$1" port add up-blue --network blue --type "$2" --iface "$3"
	wait_link "$1" up-red up
	wait_link "$1" up-blue up
}
uplinks_del() {
	ctl "$1" port del up-red >/dev/null
	ctl "$1" port del up-blue >/dev/null
}
# up NODE PORT JQ: a field of the port's "uplink" object.
up() { ctlj "$1" port show "$2" | jq -r ".uplink$3"; }
unknown_ge() { [ "$(up "$1" up-red .unknown_vlan)" -ge "$2" ]; }

pod_port() {
	local node=$1 p=$2 net=$3
	ctl $node port add pod-$p --network $net --type vhost-user --socket "$T/$p.sock" \
		--mac ${MAC[$p]} >/dev/null
}
pod_port a ar red
pod_port a ab blue
pod_port b br red
pod_port b bb blue
pod_up a pod-ar ar "$(vdev_virtio "$T/ar.sock" ${MAC[ar]})" --eth-peer=0,$BCAST
pod_up a pod-ab ab "$(vdev_virtio "$T/ab.sock" ${MAC[ab]})" --eth-peer=0,$BCAST
pod_up b pod-br br "$(vdev_virtio "$T/br.sock" ${MAC[br]})" --eth-peer=0,$BCAST
pod_up b pod-bb bb "$(vdev_virtio "$T/bb.sock" ${MAC[bb]})" --eth-peer=0,$BCAST

# rx_is POD N: the pod received exactly N frames.
rx_is() { expect_eq "pod $1 rx" "$2" "$(pod_rx "$1")"; }
stat_is() { expect_eq "podwired $1 $2 $3" "$4" "$(port_stat "$1" "$2" "$3")"; }

# ---- capture on vb -----------------------------------------------------------
MARKER=02:00:00:00:99:99
# capture_start: tcpdump on vb, in node B's namespace, until capture_stop.
# Returns once a marker frame sent by node A's kernel (untagged, from
# MARKER; no uplink may be attached to vb yet, nor an AF_PACKET one to va)
# is in the capture: "listening on" alone does not prove that tcpdump
# already gets frames.
capture_start() {
	rm -f "$T/cap.pcap" "$T/cap.log"
	# -s 128 -B 8192: in immediate mode libpcap's ring has one slot per
	# snapshot length (256 KiB by default: 8 slots), too few to hold a burst
	# that arrives while tcpdump waits for a core shared with busy pollers.
	ip netns exec $NB tcpdump -i $VB -Z root -U --immediate-mode -s 128 -B 8192 -nn \
		-w "$T/cap.pcap" >"$T/cap.log" 2>&1 &
	CAPTURE_PID=$!
	wait_for 20 "tcpdump to listen on $VB" grep -q 'listening on' "$T/cap.log"
	wait_for 20 "tcpdump to capture a marker frame" _marker_captured
}
_marker_captured() {
	captured_from_ge $MARKER 1 && return 0
	ip netns exec $NA python3 "$T/inject.py" $VA 1 "$BCAST,$MARKER,0"
	return 1
}
capture_stop() {
	_stop_pid "$CAPTURE_PID"
	wait "$CAPTURE_PID" 2>/dev/null || true
	CAPTURE_PID=""
}
captured() { tcpdump -r "$T/cap.pcap" -t -e -nn 2>/dev/null || true; }
captured_from_ge() { [ "$(captured | grep -c "^$1 > ")" -ge "$2" ]; }
# wire_check SRC VLAN N: the capture holds exactly N frames from SRC, all
# 68 bytes (64 + the tag) and tagged VLAN.
wire_check() {
	local all tagged
	all=$(captured | grep -c "^$1 > " || true)
	tagged=$(captured | grep -c "^$1 > [0-9a-f:]*, ethertype 802.1Q (0x8100), length 68: vlan $2," || true)
	expect_eq "frames from $1 on the wire" "$3" "$all"
	expect_eq "frames from $1 on the wire tagged VLAN $2" "$3" "$tagged"
}

# ---- frames from node A's kernel: other VLANs, untagged ---------------------
cat >"$T/inject.py" <<-'EOF'
	# inject.py IFACE COUNT DST,SRC,VLAN...: COUNT rounds of 64-byte frames
	# (ethertype 0x88b5) written to IFACE; VLAN 0 means untagged.
	import socket, struct, sys
	iface, count, frames = sys.argv[1], int(sys.argv[2]), []
	for spec in sys.argv[3:]:
	    dst, src, vlan = spec.split(",")
	    tag = struct.pack("!HH", 0x8100, int(vlan)) if int(vlan) else b""
	    hdr = bytes.fromhex(dst.replace(":", "")) + bytes.fromhex(src.replace(":", "")) + tag
	    frames.append(hdr + b"\x88\xb5" + bytes(64 - 14))
	s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
	s.bind((iface, 0))
	for _ in range(count):
	    for f in frames:
	        s.send(f)
EOF
# inject N VLAN...: N broadcasts per VLAN from node A's kernel onto va.
inject() {
	local n=$1 v specs=()
	shift
	for v in "$@"; do specs+=("$BCAST,02:00:00:00:99:$(printf %02x $((v % 256))),$v"); done
	ip netns exec $NA python3 "$T/inject.py" $VA "$n" "${specs[@]}"
}

# =============================================================================
log "phase 1: AF_XDP uplinks"
uplinks a af_xdp $VA
expect_eq "node A uplink driver" af_xdp "$(up a up-red .driver)"
expect_eq "node A uplink ports on $VA" 2 "$(up a up-blue .ports_on_device)"
ip -n $NA link show $VA | grep -q ' xdp' || fail "no XDP program on $VA after af_xdp uplinks"

# Node B's uplinks are not attached yet, so its kernel receives every
# frame on vb and tcpdump sees them as they are on the wire. (Once AF_XDP
# runs on vb in native mode the XDP program hands frames to the socket
# before any capture point; and on va, AF_XDP's transmit bypasses the
# kernel's taps.)
capture_start
pod_send ar 1
pod_send ab 1
wait_for 20 "ar's 32 frames on $VB" captured_from_ge "${MAC[ar]}" 32
wait_for 20 "ab's 32 frames on $VB" captured_from_ge "${MAC[ab]}" 32
capture_stop
wire_check "${MAC[ar]}" 100 32
wire_check "${MAC[ab]}" 200 32
expect_eq "frames on the wire (but markers)" 64 \
	"$(captured | grep '^[0-9a-f][0-9a-f]:' | grep -vc "^$MARKER > " || true)"
rx_is ar 0
rx_is ab 0
stat_is a up-red .tx_packets 32
stat_is a up-blue .tx_packets 32

uplinks b af_xdp $VB
expect_eq "node B uplink driver" af_xdp "$(up b up-blue .driver)"

# 1. A red broadcast reaches B's red pod only.
pod_send ar 1
wait_for 20 "br to receive ar's broadcast" pod_rx_ge br 32
# 2. A blue broadcast reaches B's blue pod only.
pod_send ab 1
wait_for 20 "bb to receive ab's broadcast" pod_rx_ge bb 32
rx_is br 32
# 3. Back: B red -> A red, unicast to the MAC B learned on its uplink.
pod_peer br "${MAC[ar]}"
pod_send br 1
wait_for 20 "ar to receive br's unicast" pod_rx_ge ar 32
pod_peer bb "${MAC[ab]}"
pod_send bb 1
wait_for 20 "ab to receive bb's unicast" pod_rx_ge ab 32
# 4. Unknown unicast from A red floods to B red only; then known unicast.
pod_peer ar $NOBODY
pod_send ar 1
wait_for 20 "br to receive ar's unknown unicast" pod_rx_ge br 64
pod_peer ar "${MAC[br]}"
pod_send ar 1
wait_for 20 "br to receive ar's unicast" pod_rx_ge br 96
# 5. From node A's kernel: 10 broadcasts each tagged 100 (red), 300 (no
# network), and untagged (no network without VLAN): only red's arrive.
inject 10 100 300 0
wait_for 20 "br to receive the 10 frames tagged 100" pod_rx_ge br 106
wait_for 20 "node B to count 20 unknown-VLAN frames" unknown_ge b 20
expect_eq "node B unknown_vlan" 20 "$(up b up-red .unknown_vlan)"
expect_eq "node B unknown_vlan (device-wide, seen from blue)" 20 "$(up b up-blue .unknown_vlan)"
# A last unicast on blue, after which a red frame leaked to blue would
# have arrived.
pod_send bb 1
wait_for 20 "ab to receive bb's second unicast" pod_rx_ge ab 64

rx_is ar 32
rx_is ab 64
rx_is br 106
rx_is bb 32
stat_is a up-red .tx_packets 128
stat_is a up-red .rx_packets 32
stat_is a up-blue .tx_packets 64
stat_is a up-blue .rx_packets 64
stat_is b up-red .rx_packets 106
stat_is b up-red .tx_packets 32
stat_is b up-blue .rx_packets 32
stat_is b up-blue .tx_packets 64
stat_is b up-red .rx_bytes $((106 * 64)) # tags removed
expect_eq "node A unknown_vlan" 0 "$(up a up-red .unknown_vlan)"
for n in a b; do
	expect_eq "node $n stash_full" 0 "$(up $n up-red .stash_full)"
done

# ---- bad uplink requests -----------------------------------------------------
snapshot() {
	ctlj a port list
	ctlj a network list | jq -c '[.networks[] | {name, vlan}]'
}
# refused WHAT 'WORD;...' ARGS...: podwirectl (node A) exits non-zero with
# every WORD in its message, and the ports are as before.
refused() {
	local what=$1 words=$2 out rc=0 before w list
	shift 2
	before=$(snapshot)
	out=$(ctl a "$@" 2>&1) || rc=$?
	[ $rc != 0 ] || fail "$what: podwirectl $* succeeded; output: $out"
	IFS=';' read -ra list <<<"$words"
	for w in "${list[@]}"; do
		grep -qF -- "$w" <<<"$out" || fail "$what: message lacks \"$w\": $out"
	done
	[ "$(snapshot)" = "$before" ] || fail "$what: the request changed node A's ports"
	ctl a info >/dev/null || fail "$what: podwired stopped answering"
	ok "$what (exit $rc): $out"
}
ctl a network add green --vlan 300 >/dev/null
ctl a network add red2 --vlan 100 >/dev/null
refused "af_xdp without --iface" 'x1;iface' \
	port add x1 --network green --type af_xdp
refused "af_packet without --iface" 'x1;iface' \
	port add x1 --network green --type af_packet
refused "interface of the other node" "x1;$VB;does not exist" \
	port add x1 --network green --type af_xdp --iface $VB
refused "interface name too long" 'x1' \
	port add x1 --network green --type af_xdp --iface abcdefghijklmnopq
refused "second network with VLAN 100 on $VA" "x1;VLAN 100;up-red;distinct VLANs" \
	port add x1 --network red2 --type af_xdp --iface $VA
refused "af_packet on an af_xdp device" "x1;af_xdp;$VA" \
	port add x1 --network green --type af_packet --iface $VA
expect_eq "node A uplink ports on $VA after the refusals" 2 "$(up a up-red .ports_on_device)"
ctl a network del green >/dev/null
ctl a network del red2 >/dev/null
# The uplink still works.
pod_peer ar "${MAC[br]}"
pod_send ar 1
wait_for 20 "br to receive ar's unicast after the refusals" pod_rx_ge br 138

# =============================================================================
log "phase 2: AF_PACKET uplinks"
uplinks_del a
uplinks_del b
for n in a b; do expect_eq "node $n ports after deleting the uplinks" 2 "$(ctlj $n port list | jq '.ports | length')"; done
! ip -n $NA link show $VA | grep -q ' xdp' || fail "XDP program left on $VA after its uplinks were deleted"
! ip -n $NB link show $VB | grep -q ' xdp' || fail "XDP program left on $VB after its uplinks were deleted"
ok "no XDP program left on $VA or $VB"

# AF_PACKET and tcpdump both tap vb: the capture sees what node B receives.
capture_start
uplinks a af_packet $VA
uplinks b af_packet $VB
expect_eq "node A uplink driver" af_packet "$(up a up-red .driver)"
expect_eq "node B uplink driver" af_packet "$(up b up-blue .driver)"
# Both nodes forgot the MACs learned on the deleted uplinks: these flood.
pod_send ar 1 # to br
wait_for 20 "br to receive ar's unicast over af_packet" pod_rx_ge br 170
pod_send br 1 # to ar
wait_for 20 "ar to receive br's unicast over af_packet" pod_rx_ge ar 64
pod_peer ab $BCAST
pod_send ab 1
wait_for 20 "bb to receive ab's broadcast over af_packet" pod_rx_ge bb 64
wait_for 20 "ar's 32 frames on $VB" captured_from_ge "${MAC[ar]}" 32
wait_for 20 "ab's 32 frames on $VB" captured_from_ge "${MAC[ab]}" 32
capture_stop
wire_check "${MAC[ar]}" 100 32
wire_check "${MAC[ab]}" 200 32
# Node A's kernel sends 10 broadcasts each tagged 200 (blue), 300, and
# untagged: node B delivers blue's and counts the rest.
inject 10 200 300 0
wait_for 20 "bb to receive the 10 frames tagged 200" pod_rx_ge bb 74
wait_for 20 "node B to count 20 unknown-VLAN frames" unknown_ge b 20
expect_eq "node B unknown_vlan" 20 "$(up b up-red .unknown_vlan)"
# Node A must not take what its own kernel sent out of va for frames
# received from the wire (AF_XDP never sees them; an AF_PACKET socket
# does unless told to ignore outgoing frames). bb's unicast to ab comes
# after them on va, so once ab has it anything taken wrongly has arrived.
pod_send bb 1 # to ab
wait_for 20 "ab to receive bb's unicast over af_packet" pod_rx_ge ab 96
expect_eq "node A unknown_vlan (frames its own kernel sent on $VA)" 0 "$(up a up-red .unknown_vlan)"
expect_eq "pod ab rx (not the 10 frames node A's kernel sent tagged 200)" 96 "$(pod_rx ab)"
rx_is ar 64
rx_is br 170
rx_is bb 74

# =============================================================================
log "phase 3: af_xdp uplinks where XDP is unavailable"
uplinks_del a
uplinks_del b
# A second veth pair, on which AF_XDP was never opened (see phase 4).
VA=va3
VB=vb3
ip -n $NA link add $VA numtxqueues 1 numrxqueues 1 type veth \
	peer name $VB netns $NB numtxqueues 1 numrxqueues 1
# Two ways native XDP is refused on a veth, one per node:
# - node A: an XDP program is already attached to va3 (libxdp's allow-all
#   filter; it passes every frame to the kernel, where AF_PACKET sees it);
# - node B: va3's MTU is 9000, and the kernel refuses XDP on vb3 while its
#   peer's MTU exceeds what an XDP frame can hold ("veth: Peer MTU is too
#   large to set XDP").
ip -n $NA link set $VA mtu 9000
XDP_OBJ=$(ls /usr/lib/*/bpf/xdpfilt_alw_all.o 2>/dev/null | head -n1 || true)
if [ -n "$XDP_OBJ" ]; then
	ip -n $NA link set dev $VA xdp obj "$XDP_OBJ" sec xdp
	ip -n $NA link show $VA | grep -q ' xdp' || fail "could not attach $XDP_OBJ to $VA"
else
	# Without libxdp's programs, the MTU refuses XDP on va3 as well.
	ip -n $NB link set $VB mtu 9000
fi
ip -n $NA link set $VA up
ip -n $NB link set $VB up
declare -A IFACE=([a]=$VA [b]=$VB)
for n in a b; do
	ctl $n port add up-red --network red --type af_xdp --iface ${IFACE[$n]} ||
		fail "node $n: af_xdp uplink refused where XDP is unavailable (expected a fallback to AF_PACKET; see the log above)"
	ctl $n port add up-blue --network blue --type af_xdp --iface ${IFACE[$n]}
	wait_link $n up-red up
	wait_link $n up-blue up
	expect_eq "node $n up-red driver" "af_packet (AF_XDP unavailable)" "$(up $n up-red .driver)"
	expect_eq "node $n up-blue driver" "af_packet (AF_XDP unavailable)" "$(up $n up-blue .driver)"
	expect_eq "node $n up-red type" af_xdp "$(ctlj $n port show up-red | jq -r .type)"
done
pod_send ar 1 # to br
wait_for 20 "br to receive ar's unicast over the fallback" pod_rx_ge br 202
pod_send br 1 # to ar
wait_for 20 "ar to receive br's unicast over the fallback" pod_rx_ge ar 96
pod_send ab 1 # broadcast
wait_for 20 "bb to receive ab's broadcast over the fallback" pod_rx_ge bb 106
pod_send bb 1 # to ab
wait_for 20 "ab to receive bb's unicast over the fallback" pod_rx_ge ab 128
rx_is ar 96
rx_is ab 128
rx_is br 202
rx_is bb 106
for n in a b; do expect_eq "node $n unknown_vlan" 0 "$(up $n up-red .unknown_vlan)"; done

# =============================================================================
log "phase 4: AF_XDP again on the first pair"
# A device whose AF_XDP uplinks were all deleted (phase 1) takes AF_XDP
# uplinks again, in the same podwired.
uplinks_del a
uplinks_del b
VA=va
VB=vb
uplinks a af_xdp $VA
uplinks b af_xdp $VB
for n in a b; do expect_eq "node $n uplink driver" af_xdp "$(up $n up-red .driver)"; done
pod_send ar 1 # to br
wait_for 20 "br to receive ar's unicast over AF_XDP again" pod_rx_ge br 234
pod_send br 1 # to ar
wait_for 20 "ar to receive br's unicast over AF_XDP again" pod_rx_ge ar 128
rx_is ab 128
rx_is bb 106
