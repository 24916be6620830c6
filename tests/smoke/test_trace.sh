#!/bin/bash
# podwirectl trace: the path of the next N frames, VPP-style and as JSON.
# On a network with VLAN 100: an unknown unicast (flooded), a known
# unicast (learned), a broadcast, a frame tagged with the network's VLAN
# (tag removed) and one with another VLAN (vlan_mismatch), and a frame for
# a pod whose link went down (link_down at its port). Bad input is
# refused naming the field, and changes nothing.
. "$(dirname "$0")/lib.sh"

A=02:00:00:00:0a:01 B=02:00:00:00:0b:01 R=02:00:00:00:0c:01 BCAST=ff:ff:ff:ff:ff:ff

daemon_start pw
ctl pw network add net1 --vlan 100
for p in a b r; do
	ctl pw port add "pod-$p" --network net1 --type vhost-user --socket "$T/$p.sock" \
		--mac "$(eval echo \$${p^^})"
done

# ---- bad input -------------------------------------------------------------------------
refused() { # EXIT TEXT podwirectl-args...
	local want=$1 text=$2 out rc=0
	shift 2
	out=$("$PODWIRECTL" --socket "$T/pw.sock" "$@" 2>&1) || rc=$?
	[ "$rc" = "$want" ] || fail "$*: exit $rc, expected $want: $out"
	grep -q -- "$text" <<<"$out" || fail "$*: the error does not name $text: $out"
	ok "$* refused ($rc): $(head -n1 <<<"$out")"
}
refused 1 '"count" is 0, it must be 1-1000' trace add 0
refused 1 '"count" is 5000, it must be 1-1000' trace add 5000
refused 1 'port "nope" does not exist' trace add 1 --port nope
refused 2 'is not a number' trace add lots
refused 2 'missing N' trace add
expect_eq "frames to trace after the refused requests" 0 "$(ctlj pw trace show | jq .remaining)"
expect_eq "ports traced after the refused requests" 0 "$(ctlj pw trace show | jq '.traces | length')"

pod_up pw pod-a a "$(vdev_virtio "$T/a.sock" $A)" --eth-peer=0,$B
pod_up pw pod-b b "$(vdev_virtio "$T/b.sock" $B)" --eth-peer=0,$A
# r replays four frames: for A tagged with VLAN 200 (not the network's),
# for B tagged with VLAN 100 (the network's), a broadcast, and for A.
pcap_write "$T/r.pcap" 1 "$(frame_hex $A $R 64 200)" "$(frame_hex $B $R 64 100)" \
	"$(frame_hex $BCAST $R 64)" "$(frame_hex $A $R 64)"
POD_EAL="--vdev net_pcap0,rx_pcap=$T/r.pcap,tx_pcap=/dev/null" \
	pod_start r "$(vdev_virtio "$T/r.sock" $R)" --forward-mode=io --no-flush-rx
wait_link pw pod-r up

shown() { ctlj pw trace show; }
traced() { [ "$(shown | jq '.traces | length')" -ge "$1" ]; }
# trace_of N JQ: field(s) of the Nth frame traced, compact JSON.
trace_of() { shown | jq -c ".traces[$(($1 - 1))] | $2"; }

# ---- unknown unicast: flooded ------------------------------------------------------------
out=$(ctl pw trace add 1 --port pod-b)
grep -q 'tracing the next 1 frames received on pod-b' <<<"$out" || fail "trace add said: $out"
pod_send b 1
wait_for 10 "a frame of b to be traced" traced 1
expect_eq "b's frame to A, not yet learned" \
	"{\"port\":\"pod-b\",\"network\":\"net1\",\"src\":\"$B\",\"dst\":\"$A\",\"tag\":0,\"vlan_action\":\"untagged\",\"lookup\":\"unknown\",\"outputs\":[{\"port\":\"pod-a\",\"result\":\"queued\"},{\"port\":\"pod-r\",\"result\":\"queued\"}],\"destinations\":2,\"drop\":\"\"}" \
	"$(trace_of 1 '{port, network, src, dst, tag, vlan_action, lookup, outputs, destinations, drop}')"
expect_eq "frames still to trace" 0 "$(shown | jq .remaining)"
wait_for 10 "a to receive b's frames" pod_rx_ge a 32

# ---- known unicast: to the port it was learned on ------------------------------------
ctl pw trace add 1 --port pod-a >/dev/null
pod_send a 1
wait_for 10 "a frame of a to be traced" traced 2
expect_eq "a's frame to B, learned" \
	"{\"port\":\"pod-a\",\"lookup\":\"learned\",\"outputs\":[{\"port\":\"pod-b\",\"result\":\"queued\"}],\"drop\":\"\"}" \
	"$(trace_of 2 '{port, lookup, outputs, drop}')"
text=$(ctl pw trace show)
for want in "Packet 2" "podwire-input" "port pod-a, network net1, 64 bytes" "$A -> $B, type 0x0800" \
	"l2-lookup" "destination learned: pod-b" "l2-output" "pod-b: queued"; do
	grep -qF -- "$want" <<<"$text" || fail "trace show does not say \"$want\": $text"
done
ok "trace show, VPP-style: $(grep -c '^Packet' <<<"$text") packets"

# ---- VLANs and a broadcast: r's four frames ---------------------------------------------
ctl pw trace add 4 --port pod-r >/dev/null
pod_cmd r start
wait_for 10 "r's four frames to be traced" traced 6
expect_eq "tagged with VLAN 200" \
	'{"tag":200,"vlan_action":"tag 200 is not the network'"'"'s VLAN","lookup":"none","outputs":[],"drop":"vlan_mismatch"}' \
	"$(trace_of 3 '{tag, vlan_action, lookup, outputs, drop}')"
expect_eq "tagged with VLAN 100" \
	'{"tag":100,"vlan_action":"tag 100 removed (the network'"'"'s VLAN)","lookup":"learned","outputs":[{"port":"pod-b","result":"queued"}],"drop":""}' \
	"$(trace_of 4 '{tag, vlan_action, lookup, outputs, drop}')"
expect_eq "a broadcast" \
	'{"lookup":"flood","outputs":[{"port":"pod-a","result":"queued"},{"port":"pod-b","result":"queued"}],"drop":""}' \
	"$(trace_of 5 '{lookup, outputs, drop}')"
text=$(ctl pw trace show)
grep -qF "error-drop" <<<"$text" && grep -qF "vlan_mismatch" <<<"$text" ||
	fail "trace show does not show the VLAN drop: $text"
ok "the VLAN mismatch, VPP-style: $(grep -A1 error-drop <<<"$text" | tr '\n' ' ')"

# ---- link down: a frame for b after b's pod left ----------------------------------------
pod_stop b
wait_link pw pod-b down
ctl pw trace add 1 --port pod-a >/dev/null
pod_send a 1
wait_for 10 "a's frame for the gone b to be traced" traced 7
expect_eq "a's frame to B, b's link down" \
	'{"lookup":"learned","outputs":[{"port":"pod-b","result":"link_down"}]}' \
	"$(trace_of 7 '{lookup, outputs}')"
wait_for 10 "the link_down drop to be counted" port_stat_ge pw pod-b .drops.link_down 32

# ---- only N frames, then nothing; clear forgets -----------------------------------------
sleep 0.5
expect_eq "frames traced in all (N asked, N recorded)" 7 "$(shown | jq '.traces | length')"
expect_eq "their order" "[1,2,3,4,5,6,7]" "$(shown | jq -c '[.traces[].seq]')"
out=$(ctl pw trace clear)
expect_eq "trace clear" "trace cleared: 7 frames forgotten" "$out"
pod_send a 1
sleep 0.5
expect_eq "frames traced after clear" 0 "$(shown | jq '.traces | length')"
grep -q 'no frames traced' <<<"$(ctl pw trace show)" || fail "trace show after clear: $(ctl pw trace show)"
