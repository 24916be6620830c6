#!/bin/bash
# vhost-user offloads, negotiated per port. Pod a (testpmd asking for
# checksum, TSO and LRO) negotiates CSUM, GUEST_CSUM, HOST/GUEST_TSO4/6;
# pod b (testpmd as it comes) negotiates none; pod c asks like a but its
# port says "offloads": false and offers none. The port JSON says what each
# guest took.
#
# Then the hostile frontend (tests/vhost/hostile.c) sends frames whose
# virtio-net headers ask for checksum and segmentation:
#   - without having negotiated any host offload: librte_vhost does not
#     read the header, the frames go on as they are (one frame each, none
#     cut into segments);
#   - having negotiated them, with requests that lie (gso_size 0, csum_start
#     past the frame, a checksum field that is no TCP/UDP one, hdr_len
#     longer than the frame, TCP segmentation of UDP, TCPv6 of IPv4, UFO,
#     SCTP, ECN): each frame reaches pod b as one frame or is counted as a
#     drop, podwired stays up;
#   - a valid TSO request to pod a, which negotiated GUEST_TSO4: one
#     super-frame each, whole (dp.tx_ol of port a says it takes them).
. "$(dirname "$0")/lib.sh"

HOSTILE=$BUILD/vhost-hostile
[ -x "$HOSTILE" ] || fail "$HOSTILE is not built"
MAC_A=02:00:00:00:0a:01
MAC_B=02:00:00:00:0b:01
MAC_C=02:00:00:00:0c:02
# testpmd's offloads: rx UDP/TCP checksum and LRO (GUEST_CSUM,
# GUEST_TSO4/6), tx UDP/TCP checksum and TSO (CSUM, HOST_TSO4/6).
OFFLOADS=(--rx-offloads=0x1c --tx-offloads=0x2c)

daemon_start pw
ctl pw network add net1 >/dev/null
ctl pw port add pa --network net1 --type vhost-user --socket "$T/a.sock" --mac $MAC_A >/dev/null
ctl pw port add pb --network net1 --type vhost-user --socket "$T/b.sock" --mac $MAC_B >/dev/null
ctl pw port add pc --network net1 --type vhost-user --socket "$T/c.sock" --mac $MAC_C \
	--offloads off >/dev/null
ctl pw port add hx --network net1 --type vhost-user --socket "$T/hx.sock" >/dev/null
ctl pw port add hn --network net1 --type vhost-user --socket "$T/hn.sock" --offloads off >/dev/null

# A kind without offloads refuses the field, naming the ones that take it.
out=$(ctl pw port add m1 --network net1 --type memif --socket "$T/m1.sock" --offloads off 2>&1) &&
	fail "a memif port took \"offloads\": $out"
grep -qF '"offloads" applies to vhost-user ports only' <<<"$out" ||
	fail "memif with offloads: $out"
ok "memif port with \"offloads\" refused: $out"
expect_eq "port pc's config keeps offloads false" false "$(ctlj pw port show pc | jq .offloads)"
expect_eq "port pa's config says nothing of offloads (default on)" null \
	"$(ctlj pw port show pa | jq .offloads)"

pod_up pw pa a "$(vdev_virtio "$T/a.sock" $MAC_A)" --eth-peer=0,$MAC_B "${OFFLOADS[@]}"
pod_up pw pb b "$(vdev_virtio "$T/b.sock" $MAC_B)" --eth-peer=0,$MAC_A
pod_start c "$(vdev_virtio "$T/c.sock" $MAC_C)" --eth-peer=0,$MAC_A "${OFFLOADS[@]}"

negotiated() { ctlj pw port show "$1" | jq -c '.vhost_user.negotiated'; }
expect_eq "pod a negotiated" '["csum","guest_csum","host_tso4","host_tso6","guest_tso4","guest_tso6"]' \
	"$(negotiated pa)"
expect_eq "pod b negotiated" '[]' "$(negotiated pb)"
# Pod c asked for offloads its port does not offer: testpmd refuses to
# start its port without them (or starts without): either way none.
if link_is pw pc up; then
	expect_eq "pod c negotiated (port offloads off)" '[]' "$(negotiated pc)"
else
	grep -qiE 'offload|not available' "$T/pod-c.log" ||
		fail "pod c did not come up and did not say why: $(tail -n 5 "$T/pod-c.log")"
	ok "pod c asked for offloads its port does not offer: refused by its driver"
fi

# The pods exchange frames, offloads on or off.
pod_send a 1
wait_for 10 "pod b to receive a's frames" pod_rx_ge b 32
pod_send b 1
wait_for 10 "pod a to receive b's frames" pod_rx_ge a 32
ok "pods a (offloads) and b (none) exchange frames"

hx_free() { [ "$(ctlj pw port show "$1" | jq -r .vhost_user.state)" = listening ]; }

# ---- features ----------------------------------------------------------------
feature_case() {
	local port=$1 mode=$2 out why
	out=$("$HOSTILE" --wait 600 "$T/$port.sock" "$mode" 2>&1) ||
		fail "$mode on $port: $out (exit 1: an offload offered that must not be)"
	grep -q '^closed' <<<"$out" || fail "$mode on $port: expected closed, saw: $out"
	wait_for 10 "$port to be free" hx_free "$port"
	why=$(ctlj pw port show "$port" | jq -r .vhost_user.last_disconnect)
	grep -qF "features podwired does not offer" <<<"$why" || fail "$mode on $port: $why"
	ok "$mode on $port: $why"
	sleep 0.1 # past the back-off of a connection that never came up
}
feature_case hx features-offload
feature_case hn features-no-offload
out=$("$HOSTILE" --offloads "$T/hn.sock" ol-csum 2>&1) && rc=0 || rc=$?
expect_eq "hostile --offloads on a port without offloads: exit (none offered)" 3 "$rc"
wait_for 10 "hn to be free" hx_free hn

# ---- offload requests -----------------------------------------------------------
# drops PORT: the port's drops but same_port (the hostile tool's first
# frame is addressed to itself).
drops() { ctlj pw stats "$1" | jq '.ports[0].drops | del(.same_port) | add // 0'; }

# ol_case FLAGS MODE DEST_MAC POD WANT: runs MODE on hx with FLAGS, its 8
# frames to DEST_MAC (pod POD). WANT: "whole" each arrives as one frame;
# "or-drop" each arrives as one frame or is counted as a drop of hx;
# "bad" each is dropped as bad_offload; a number N: each arrives as N
# frames (segments).
ol_case() {
	local flags=$1 mode=$2 mac=$3 pod=$4 want=$5 out rx0 d0 bad0 n got dropped
	rx0=$(pod_rx "$pod")
	d0=$(drops hx)
	bad0=$(ctlj pw stats hx | jq .ports[0].drops.bad_offload)
	# shellcheck disable=SC2086
	out=$("$HOSTILE" $flags --to "$mac" "$T/hx.sock" "$mode" 2>&1) ||
		fail "$mode: the tool failed: $out"
	grep -q '^sent 8' <<<"$out" || fail "$mode: $out"
	wait_link pw hx down
	wait_for 10 "hx to be free" hx_free hx
	daemon_alive pw || fail "$mode: podwired died: $(tail -n 5 "$T/pw.log")"
	n=8
	case $want in [0-9]*) n=$((8 * want)) ;; esac
	settle() { [ $(($(pod_rx "$pod") - rx0 + $(drops hx) - d0)) -ge "$n" ]; }
	wait_for 10 "$mode's 8 frames to be received or dropped" settle
	sleep 0.2 # more frames than 8 (segments) would be here by now
	got=$(($(pod_rx "$pod") - rx0))
	dropped=$(($(drops hx) - d0))
	case $want in
	whole) [ "$got" = 8 ] && [ "$dropped" = 0 ] ||
		fail "$mode ${flags:-(no offloads)}: pod $pod received $got frames, hx dropped $dropped; expected 8 whole" ;;
	or-drop) [ $((got + dropped)) = 8 ] ||
		fail "$mode ${flags:-(no offloads)}: pod $pod received $got frames, hx dropped $dropped; expected 8 in all" ;;
	bad) [ "$got" = 0 ] && [ "$(($(ctlj pw stats hx | jq .ports[0].drops.bad_offload) - bad0))" = 8 ] ||
		fail "$mode ${flags:-(no offloads)}: pod $pod received $got frames, hx dropped $dropped; expected 8 bad_offload drops" ;;
	*) [ "$got" = $((8 * want)) ] && [ "$dropped" = 0 ] ||
		fail "$mode ${flags:-(no offloads)}: pod $pod received $got frames, hx dropped $dropped; expected $((8 * want)) segments" ;;
	esac
	ok "$mode ${flags:-(no offloads negotiated)}: pod $pod received $got, hx dropped $dropped ($(ctlj pw stats hx | jq -c '.ports[0].drops'))"
}

# Not negotiated: the header is not read; a 1000-byte frame asking for
# 100-byte segments arrives as one frame.
ol_case "" ol-plain $MAC_B b whole
ol_case "" ol-gso0 $MAC_B b whole
ol_case "" ol-ufo $MAC_B b whole
# Negotiated, requests librte_vhost refuses or podwired does not carry:
# the frames go on asking for nothing.
for mode in ol-csum-out ol-csum-field ol-gso-udp ol-ufo ol-sctp; do
	ol_case --offloads $mode $MAC_B b whole
done
# Negotiated, requests that pass librte_vhost's checks and lie or ask for
# what fits a frame anyway: one frame each, or a drop (bad_offload). A
# segment size of 0: DPDK 22.11.11's librte_vhost drops the request (the
# frame goes on asking for nothing), 22.11.0's let it through to
# offload_check (bad_offload).
for mode in ol-gso0 ol-hdr-len ol-gso-v6 ol-ecn ol-csum; do
	ol_case --offloads $mode $MAC_B b or-drop
done
# A TCP header length of 0 passes librte_vhost: offload_check refuses it.
ol_case --offloads ol-thl0 $MAC_B b bad
# A valid TSO request (946 bytes in segments of 100) to pod a, which
# negotiated GUEST_TSO4 (its port's dp.tx_ol takes TSO): whole. To pod b,
# which did not: cut into 10 segments each.
ol_case --offloads ol-plain $MAC_A a whole
ol_case --offloads ol-plain $MAC_B b 10

daemon_alive pw || fail "podwired died"
B_RX=$(pod_rx b)
pod_send a 1
wait_for 10 "pod b to receive a's frames after the hostile frontend" pod_rx_ge b $((B_RX + 32))
ok "podwired alive, pods a and b still exchange frames"
