#!/bin/bash
# Access lists against a reference model (tests/smoke/acl_model.py):
#   - random lists (40 rules each) on a bridge (VLAN 100: a port's
#     ingress list, the network's egress list) and on a cross-connect
#     (the network's and the port's ingress lists, the peer's egress
#     list); 3,000 random frames each (IPv4, IPv6, ARP, another
#     EtherType; tagged 100, 200 and untagged) sent with AF_PACKET from
#     one namespace, received in the other: the frames delivered and
#     every rule's hit counter equal the model's exactly;
#   - trace names the list and rule that decided a frame;
#   - bad lists are refused naming the rule, field and fix, and change
#     nothing; a list attached somewhere cannot be deleted;
#   - a list replaced 1,000 times while a generator sends into its port:
#     the hits of all its versions and defaults add up to the frames the
#     port received (no frame met no list), and podwired lives;
#   - lists and attachments come back after a restart; a port's go with it.
. "$(dirname "$0")/lib.sh"

MODEL="python3 $ROOT/tests/smoke/acl_model.py"
SEED=${ACL_SEED:-$RANDOM}
N_FRAMES=3000
NS=()
HOSTS=()
BG=()

_acl_cleanup() {
	local p ns h
	touch "$T/stop"
	for p in "${BG[@]}"; do _stop_pid "$p"; done
	for ns in "${NS[@]}"; do ip netns del "$ns" 2>/dev/null; done
	for h in "${HOSTS[@]}"; do ip link del "$h" 2>/dev/null; done
}
on_exit _acl_cleanup

log "seed $SEED (ACL_SEED=$SEED repeats this run)"
MPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
daemon_start pw --metrics "127.0.0.1:$MPORT"

# port NAME NET NS: a veth port whose container end is eth0 in NS, up,
# without addresses (the kernel there sends nothing of its own).
port() {
	local peer ns=$3$$
	ip netns add "$ns" 2>/dev/null || skip "cannot create network namespace $ns"
	NS+=("$ns")
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1 2>/dev/null || true
	HOSTS+=("pwa$1$$")
	ctl pw port add "$1" --network "$2" --type veth --iface "pwa$1$$" >/dev/null
	peer=$(ctlj pw port show "$1" | jq -r .veth.peer)
	ip link set "$peer" netns "$ns"
	ip -n "$ns" link set "$peer" name eth0
	ip -n "$ns" link set eth0 up
	wait_link pw "$1" up
}

ctl pw network add bn --vlan 100 --flood-limit 0 >/dev/null
ctl pw network add xn --mode xconnect >/dev/null
port k1 bn an1
port k2 bn an2
port x1 xn an3
port x2 xn an4

$MODEL lists "$SEED" 40 "$T" b_in b_net_out x_net_in x_in x_out
for l in b_in b_net_out x_net_in x_in x_out; do
	ctl pw acl set "$l" --file "$T/$l.list.json" >/dev/null
done
ctl pw acl attach b_in --port k1 --direction ingress >/dev/null
ctl pw acl attach b_net_out --network bn --direction egress >/dev/null
ctl pw acl attach x_net_in --network xn --direction ingress >/dev/null
ctl pw acl attach x_in --port x1 --direction ingress >/dev/null
ctl pw acl attach x_out --port x2 --direction egress >/dev/null
expect_eq "lists" 5 "$(ctlj pw acl list | jq '.lists | length')"

rx() { port_stat pw "$1" .rx_packets; }
rx_is() { [ "$(rx "$1")" -ge "$2" ]; }

# run SCENARIO IN_PORT IN_NS OUT_NS NET_VLAN VLANS: the frames through,
# then podwired's verdicts and counters against the model's.
run() {
	local name=$1 in=$2 ns_in=$3$$ ns_out=$4$$ vlan=$5 vlans=$6 rx0 p
	$MODEL frames "$SEED" $N_FRAMES "$vlans" "$T/$name.frames"
	rm -f "$T/stop"
	ip netns exec "$ns_out" $MODEL recv eth0 "$T/$name.recv" "$T/stop" &
	p=$!
	BG+=("$p")
	sleep 0.5
	rx0=$(rx "$in")
	ip netns exec "$ns_in" $MODEL send eth0 "$T/$name.frames" >/dev/null
	for _ in $(seq 200); do
		rx_is "$in" $((rx0 + N_FRAMES)) && break
		sleep 0.1
	done
	expect_eq "frames $in received (stats: $(ctlj pw stats "$in" | jq -c '.ports[0] | {kernel_drops, drops}'))" \
		$((rx0 + N_FRAMES)) "$(rx "$in")"
	sleep 1
	touch "$T/stop"
	wait "$p"
	for l in b_in b_net_out x_net_in x_in x_out; do
		ctlj pw acl show "$l" >"$T/$l.show.json"
	done
	$MODEL check "$name" "$T/$name.frames" "$T/$name.recv" "$T" "$vlan" >"$T/$name.check" ||
		fail "$name: podwired and the model disagree (seed $SEED): $(cat "$T/$name.check")"
	ok "podwired's verdicts and counters are the model's: $(tail -n 1 "$T/$name.check")"
}
run bridge k1 an1 an2 100 none,none,100,200
run xconnect x1 an3 an4 0 none,100,200

# ---- Prometheus: per-list per-rule hits, promtool clean ---------------------
curl -sf "http://127.0.0.1:$MPORT/metrics" >"$T/m.txt" || fail "cannot read /metrics"
if command -v promtool >/dev/null; then
	promtool check metrics <"$T/m.txt" >"$T/promtool.out" 2>&1 ||
		fail "promtool check metrics: $(cat "$T/promtool.out")"
	ok "promtool check metrics: clean"
fi
for l in b_in x_out; do
	for r in 0 5 default; do
		if [ $r = default ]; then want=$(jq .default_hits "$T/$l.show.json"); else
			want=$(jq ".rules[$r].hits" "$T/$l.show.json"); fi
		expect_eq "podwire_acl_rule_hits_total $l rule $r" "$want" \
			"$(awk -v k="podwire_acl_rule_hits_total{list=\"$l\",rule=\"$r\"}" '$1 == k {print $2}' "$T/m.txt")"
	done
done

# ---- trace names the list and rule ----------------------------------------
ctl pw trace add 1 --port k1 >/dev/null
$MODEL frames 7 1 none "$T/one.frames"
ip netns exec "an1$$" $MODEL send eth0 "$T/one.frames" >/dev/null
wait_for 10 "a frame of k1 traced" bash -c "[ \"\$('$PODWIRECTL' --socket '$T/pw.sock' --json trace show | jq '.traces | length')\" -ge 1 ]"
acl=$(ctlj pw trace show | jq -r '.traces[0].acl')
grep -Eq '^list "b_in" (rule [0-9]+|default): (permit|deny|permit\+reflect)$' <<<"$acl" ||
	fail "trace's acl field: $acl"
ctl pw trace show | grep -q "acl" || fail "trace show does not print the acl step"
ok "trace: $acl"

# ---- bad input changes nothing -------------------------------------------
refused() {
	local want=$1 out
	shift
	if out=$(ctl pw "$@" 2>&1); then fail "accepted: $*"; fi
	grep -qF -- "$want" <<<"$out" || fail "$*: the error does not say '$want': $out"
	ok "refused: $out"
}
before=$(ctlj pw acl show b_in | jq -c '[.rules[] | del(.hits)]')
refused 'rule 1: "src" 10.0.0.1/8 has host bits set; use 10.0.0.0/8' acl set b_in \
	--rule '{"action":"permit"}' --rule '{"action":"deny","src":"10.0.0.1/8"}'
refused 'rule 0: "dport" 90-80 is upside down; use "80-90"' acl set b_in \
	--rule '{"action":"deny","proto":"tcp","dport":"90-80"}'
refused 'rule 0: "proto" "tcpx" is not a protocol' acl set b_in --rule '{"action":"deny","proto":"tcpx"}'
refused 'rule 0: "dport" needs "proto" tcp, udp or sctp' acl set b_in --rule '{"action":"deny","dport":22}'
python3 -c 'import json; print(json.dumps([{"action": "deny"}] * 16385))' >"$T/big.json"
refused 'has 16385 rules, the limit is 16384' acl set b_in --file "$T/big.json"
refused 'is attached to port "k1" ingress; detach it first' acl del b_in
refused 'port "nope" does not exist' acl attach b_in --port nope --direction ingress
refused 'has list "b_in" already' acl attach x_in --port k1 --direction ingress
expect_eq "b_in after the refused requests" "$before" \
	"$(ctlj pw acl show b_in | jq -c '[.rules[] | del(.hits)]')"

# ---- a large list: set, shown a page at a time -----------------------------
python3 -c '
import json
print(json.dumps([{"action": "deny", "proto": "udp", "dst": "198.51.%d.%d/32" % (i >> 8, i & 255),
                   "dport": 9} for i in range(9999)] + [{"action": "permit"}]))' >"$T/10k.json"
ctl pw acl set big --file "$T/10k.json" >/dev/null
expect_eq "rules of a 10,000-rule list" "10000 4096" \
	"$(ctlj pw acl show big | jq -r '"\(.rules_total) \(.rules | length)"')"
expect_eq "its last rule, shown with --first" '[9999,"permit"]' \
	"$(ctlj pw acl show big --first 9999 | jq -c '[.rules[0].index, .rules[0].action]')"
ctl pw acl del big >/dev/null

# ---- 1,000 replaces under traffic ------------------------------------------
ctl pw acl detach x_net_in --network xn >/dev/null
ctl pw acl detach x_in --port x1 >/dev/null
ctl pw acl set r --rule '{"action":"permit"}' >/dev/null
ctl pw acl attach r --port x1 --direction ingress >/dev/null
rx0=$(rx x1)
rm -f "$T/stop"
ip netns exec "an3$$" $MODEL flood eth0 "$T/stop" "$T/flood.n" &
BG+=($!)
sleep 0.5
$MODEL replace "$T/pw.sock" r 1000 || fail "the replace loop failed"
touch "$T/stop"
sleep 1
daemon_alive pw || fail "podwired died during the replaces"
rx1=$(rx x1)
show=$(ctlj pw acl show r)
hits=$(jq '([.rules[].hits] | add) + .default_hits + .replaced_hits' <<<"$show")
expect_eq "replaces" 1000 "$(jq .replaces <<<"$show")"
[ $((rx1 - rx0)) -gt 1000 ] || fail "the generator sent only $((rx1 - rx0)) frames"
expect_eq "frames x1 received during the replaces = hits of all versions" $((rx1 - rx0)) "$hits"

# ---- memif pods: lists decide on private copies of their frames -----------
MA=02:00:00:00:0a:01 MB=02:00:00:00:0b:01
ctl pw network add mn >/dev/null
ctl pw port add ma --network mn --type memif --socket "$T/ma.sock" --mac $MA >/dev/null
ctl pw port add mb --network mn --type memif --socket "$T/mb.sock" --mac $MB >/dev/null
pod_up pw ma a "$(vdev_memif "$T/ma.sock" $MA)" --eth-peer=0,$MB
pod_up pw mb b "$(vdev_memif "$T/mb.sock" $MB)" --eth-peer=0,$MA
pod_send b 1 # b's MAC learned
wait_for 10 "b's frames to reach a" pod_rx_ge a 32
ctl pw acl set m --default permit --rule '{"action":"deny","proto":"udp","ethertype":"0x0800"}' >/dev/null
ctl pw acl attach m --port ma --direction ingress >/dev/null
b0=$(pod_rx b)
pod_send a 4
wait_for 10 "128 frames of a denied at ma's ingress" port_stat_ge pw ma .drops.acl_deny 128
expect_eq "memif: ma's ingress list hits" 128 "$(ctlj pw acl show m | jq '.rules[0].hits')"
ctl pw acl set m --rule '{"action":"permit"}' >/dev/null
ctl pw acl set e --default permit --rule "{\"action\":\"deny\",\"src_mac\":\"$MA\"}" >/dev/null
ctl pw acl attach e --port mb --direction egress >/dev/null
pod_send a 4
wait_for 10 "128 frames of a denied at mb's egress" port_stat_ge pw mb .drops.acl_deny 128
expect_eq "memif: b received nothing of a while the lists denied" "$b0" "$(pod_rx b)"
ctl pw acl detach e --port mb >/dev/null
pod_send a 4
wait_for 10 "b to receive a's frames once the lists permit" pod_rx_ge b $((b0 + 128))
expect_eq "memif: ma's list permitted (rule 0 of its new version)" 256 \
	"$(ctlj pw acl show m | jq '.rules[0].hits')"
pod_stop a
pod_stop b

# ---- restart and a port's deletion -----------------------------------------
want=$(ctlj pw acl list | jq -c '.lists')
daemon_stop pw
daemon_start pw
expect_eq "lists and attachments after a restart" "$want" "$(ctlj pw acl list | jq -c '.lists')"
ctl pw port del x2 >/dev/null
expect_eq "x_out's attachments after x2 went" "[]" \
	"$(ctlj pw acl list | jq -c '.lists[] | select(.name == "x_out") | .attachments')"
ctl pw acl del x_out >/dev/null
ok "access lists"
