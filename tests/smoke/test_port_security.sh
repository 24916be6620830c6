#!/bin/bash
# Port security and the learning and flood limits, with misbehaving pods
# next to two that talk at full speed.
#
# On one bridge network: pods a and b exchange frames at full speed
# (podwire-bench); then, while they go on, three pods misbehave:
#   m  claims a source MAC that is not its port's (spoofing), to b's MAC;
#   f  floods broadcasts, from a MAC its port allows (--allowed-macs);
#   r  (--no-port-security, --mac-limit 16, a pod that is itself a switch)
#      replays frames from 200 source MACs.
# Expected: every frame of m is dropped as spoofed_src and its MAC never
# learned; f's broadcasts beyond its flood limit are dropped as
# flood_limit; r gets 16 MACs learned and the rest counted as learn_limit;
# a's and b's entries stay where they are; a and b keep talking (their rate
# before and during is printed, not judged: every pod shares one core
# here). Bad settings are refused naming the field, and the settings
# survive a restart of podwired.
. "$(dirname "$0")/lib.sh"

BCAST=ff:ff:ff:ff:ff:ff
A=02:00:00:00:0a:0a B=02:00:00:00:0b:0b
M=02:00:00:00:0c:0c SPOOF=02:00:00:00:5f:5f
F0=02:00:00:00:0f:00 F=02:00:00:00:0f:0f
R=02:00:00:00:0e:0e

daemon_start pw
ctl pw network add net1

# ---- bad settings are refused, naming the field, and change nothing -----------
refused() { # FIELD podwirectl-args...: fails unless refused with FIELD named
	local field=$1 out rc=0
	shift
	out=$("$PODWIRECTL" --socket "$T/pw.sock" "$@" 2>&1) || rc=$?
	[ $rc = 1 ] || fail "podwirectl $*: exit $rc, expected 1 (refused): $out"
	grep -q "$field" <<<"$out" || fail "podwirectl $*: the error does not name $field: $out"
	ok "refused, naming $field: $out"
}
vh() { echo --network net1 --type vhost-user --socket "$T/$1.sock"; }
# shellcheck disable=SC2046
{
	refused mac_limit port add bad $(vh bad) --mac $A --mac-limit 0
	refused mac_limit port add bad $(vh bad) --mac $A --mac-limit 70000
	refused allowed_macs port add bad $(vh bad) --mac $A --allowed-macs 02:00:00:00:00:01,nonsense
	refused allowed_macs port add bad $(vh bad) --mac $A \
		--allowed-macs "$(printf '02:00:00:00:01:%02x,' $(seq 1 9))"
	refused flood_limit port add bad $(vh bad) --mac $A --flood-limit 20000000
	refused tx_retries port add bad $(vh bad) --mac $A --tx-retries 65
	refused port_security port add bad --network net1 --type af_packet --iface lo --port-security on
	refused mac_limit network add bad --mac-limit 0
	refused flood_limit network add bad --flood-limit -1
}
expect_eq "ports after the refused requests" 0 "$(ctlj pw port list | jq '.ports | length')"
expect_eq "networks after the refused requests" 1 "$(ctlj pw network list | jq '.networks | length')"
[ ! -e "$T/bad.sock" ] || fail "a refused port left its socket behind"

# ---- the ports ---------------------------------------------------------------
# shellcheck disable=SC2046
{
	ctl pw port add pod-a $(vh a) --mac $A
	ctl pw port add pod-b $(vh b) --mac $B
	ctl pw port add pod-m $(vh m) --mac $M
	ctl pw port add pod-f $(vh f) --mac $F0 --allowed-macs $F
	ctl pw port add pod-r $(vh r) --mac $R --no-port-security --mac-limit 16
}
guards() { ctlj pw port show "$1" | jq -c '{port_security, allowed_macs, mac_limit, flood_limit, tx_retries}'; }
expect_eq "pod-a's guards (the defaults)" \
	'{"port_security":true,"allowed_macs":null,"mac_limit":64,"flood_limit":10000,"tx_retries":8}' \
	"$(guards pod-a)"
expect_eq "pod-f's guards" \
	"{\"port_security\":true,\"allowed_macs\":\"$F\",\"mac_limit\":64,\"flood_limit\":10000,\"tx_retries\":8}" \
	"$(guards pod-f)"
expect_eq "pod-r's guards" \
	'{"port_security":false,"allowed_macs":null,"mac_limit":16,"flood_limit":10000,"tx_retries":8}' \
	"$(guards pod-r)"

# a and b: podwire-bench, the two pods in one process, each sending to the
# other from its own MAC at full speed (a closed loop on one core, so that
# the figure is not the kernel's scheduling of two pods on one core).
BENCH=$BUILD/podwire-bench
[ -x "$BENCH" ] || fail "$BENCH is not built; run: ninja -C $BUILD"
ab_run() { # OUT: 3 s of a<->b at full speed; JSON to OUT
	"$BENCH" --lcores "0@$POD_CPU" --file-prefix "pwt$$-ab" --in-memory \
		--single-file-segments --no-pci --log-level '*:notice' \
		--vdev "$(vdev_virtio "$T/a.sock" $A)" \
		--vdev "net_virtio_user1,path=$T/b.sock,mac=$B,queues=1" \
		-- --duration 3 --warmup 1 --size 64 --json >"$1" 2>"$T/pod-ab.log" &
	POD_PID[ab]=$!
	wait "${POD_PID[ab]}" || { cat "$T/pod-ab.log"; fail "podwire-bench exited with status $?"; }
	unset "POD_PID[ab]"
	jq -e '.rx_packets > 0' "$1" >/dev/null || fail "a and b exchanged nothing: $(cat "$1")"
}

# m's own MAC is not its port's.
pod_up pw pod-m m "$(vdev_virtio "$T/m.sock" $SPOOF)" --eth-peer=0,$B
pod_up pw pod-f f "$(vdev_virtio "$T/f.sock" $F)" --eth-peer=0,$BCAST
# r replays, per round: a broadcast from its port's MAC (learned first), then
# frames to that MAC from 200 other sources (so they go nowhere: same_port).
frames=("$(frame_hex $BCAST $R 64)")
for i in $(seq 0 199); do frames+=("$(frame_hex $R "$(printf '02:00:00:ee:%02x:%02x' $((i >> 8)) $((i & 255)))" 64)"); done
pcap_write "$T/r.pcap" 1 "${frames[@]}"
POD_EAL="--vdev net_pcap0,rx_pcap=$T/r.pcap,tx_pcap=/dev/null,infinite_rx=1" \
	pod_start r "$(vdev_virtio "$T/r.sock" $R)" --forward-mode=io --no-flush-rx
wait_link pw pod-r up

# ---- a <-> b at full speed, before and during the misbehaviour ------------------
# Before: m, f and r are there and polling (so they take the same share of
# the pods' core), but send nothing.
ab_run "$T/before.json"
owner() { ctlj pw mac list net1 | jq -r --arg m "$1" '[.entries[] | select(.mac == $m) | .port] | first // "none"'; }
expect_eq "A learned on" pod-a "$(owner $A)"
expect_eq "B learned on" pod-b "$(owner $B)"

txonly() {
	pod_cmd "$1" stop
	pod_cmd "$1" "set fwd txonly"
	pod_cmd "$1" start
}
drops() { port_stat pw "$1" ".drops.$2"; }
stat_ge() { [ "$(port_stat pw "$1" "$2")" -ge "$3" ]; }

txonly m
txonly f
pod_cmd r start
wait_for 10 "m's spoofed frames to be dropped" stat_ge pod-m .drops.spoofed_src 100000
wait_for 10 "f's floods to be limited" stat_ge pod-f .drops.flood_limit 100000
wait_for 10 "r's sources to hit its learn limit" stat_ge pod-r .learn_limit 100000
ab_run "$T/during.json"
for p in m f r; do pod_cmd $p stop; done

# Counters settle once every pod has stopped sending.
settled() {
	local now
	now=$(ctlj pw stats | jq -c '[.ports[] | .rx_packets]')
	[ "$now" = "${LAST:-}" ] && return 0
	LAST=$now
	return 1
}
wait_for 20 "the counters to settle" settled

# ---- what was dropped, learned and kept ------------------------------------------
m_rx=$(port_stat pw pod-m .rx_packets)
expect_eq "pod-m: every frame dropped as spoofed_src" "$m_rx" "$(drops pod-m spoofed_src)"
expect_eq "pod-m: MACs learned" 0 "$(port_stat pw pod-m .macs_learned)"
expect_eq "the spoofed MAC learned on" none "$(owner $SPOOF)"
f_rx=$(port_stat pw pod-f .rx_packets) f_lim=$(drops pod-f flood_limit)
[ "$f_lim" -gt 0 ] && [ "$f_lim" -lt "$f_rx" ] ||
	fail "pod-f: $f_lim of $f_rx floods limited; expected some, not all"
ok "pod-f: $f_lim of $f_rx broadcasts dropped as flood_limit"
expect_eq "pod-f: spoofed_src (F is allowed)" 0 "$(drops pod-f spoofed_src)"
expect_eq "F learned on" pod-f "$(owner $F)"
MACS=$(ctlj pw mac list net1)
r_ports=$(jq -c '.ports[] | select(.name == "pod-r") | {macs_learned, mac_limit}' <<<"$MACS")
expect_eq "pod-r's learning" '{"macs_learned":16,"mac_limit":16}' "$r_ports"
r_lim=$(port_stat pw pod-r .learn_limit)
[ "$r_lim" -gt 0 ] || fail "pod-r: no learn_limit counted"
ok "pod-r: $r_lim source MACs not learned (learn_limit)"
expect_eq "pod-r: spoofed_src (no port security)" 0 "$(drops pod-r spoofed_src)"
expect_eq "A still learned on" pod-a "$(owner $A)"
expect_eq "B still learned on" pod-b "$(owner $B)"
expect_eq "MACs learned on net1 (A, B, F, R and 15 of r's)" 19 "$(jq .macs_learned <<<"$MACS")"
expect_eq "a's and b's spoofed_src, flood_limit and learn_limit" 0 "$(ctlj pw stats |
	jq '[.ports[] | select(.name == "pod-a" or .name == "pod-b")
		| .drops.spoofed_src, .drops.flood_limit, .learn_limit] | add')"
"$PODWIRECTL" --socket "$T/pw.sock" mac list net1 | tail -n 7
"$PODWIRECTL" --socket "$T/pw.sock" stats | grep -E 'drops:|learn_limit'

mpps() { jq -r '.rx_mpps' "$1"; }
echo "a<->b at full speed: before $(mpps "$T/before.json") Mpps, during $(mpps "$T/during.json") Mpps" \
	"($(jq -n --slurpfile a "$T/before.json" --slurpfile b "$T/during.json" \
		'$b[0].rx_mpps / $a[0].rx_mpps * 100 | round') % of before; loss before" \
	"$(jq .loss "$T/before.json"), during $(jq .loss "$T/during.json"));" \
	"spoofed_src $m_rx, flood_limit $f_lim, learn_limit $r_lim"

# ---- the settings are kept across a restart -----------------------------------
ctl pw network add net2 --mac-limit 100 --flood-limit 500
netconf() { ctlj pw network list | jq -c '.networks[] | select(.name == "net2") | {mac_limit, flood_limit}'; }
for p in m f r; do pod_stop $p; done
before=$(for p in pod-a pod-f pod-r; do guards $p; done; netconf)
daemon_stop pw
daemon_start pw
after=$(for p in pod-a pod-f pod-r; do guards $p; done; netconf)
expect_eq "port and network guards after a restart" "$before" "$after"
