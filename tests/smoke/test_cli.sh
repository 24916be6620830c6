#!/bin/bash
# podwirectl: tables for people, JSON for scripts; many clients at once; a
# silent client blocks nobody; stats clear resets what podwired shows and
# nothing else.
. "$(dirname "$0")/lib.sh"

MAC_A=02:00:00:00:0a:01
MAC_B=02:00:00:00:0b:01
NCLIENTS=64

# table_ok WHAT HEADER-REGEX TEXT: the first line is the header and every
# other line has as many columns as it (no value contains a space).
table_ok() {
	local what=$1 header=$2 text=$3 n
	head -n1 <<<"$text" | grep -qE "$header" || fail "$what: header is not /$header/: $text"
	n=$(head -n1 <<<"$text" | wc -w)
	tail -n +2 <<<"$text" | awk -v n="$n" 'NF && NF != n { exit 1 }' ||
		fail "$what: a row has not $n columns: $text"
	ok "$what: table with header $(head -n1 <<<"$text" | tr -s ' ')"
}

# json_ok WHAT JQ-TEST ARGS...: podwirectl --json ARGS prints JSON that
# satisfies JQ-TEST.
json_ok() {
	local what=$1 test=$2 out
	shift 2
	out=$(ctlj pw "$@") || fail "$what: podwirectl --json $* failed"
	jq -e "$test" >/dev/null <<<"$out" || fail "$what: JSON fails $test: $out"
	ok "$what: --json output satisfies $test"
}

daemon_start pw
out=$(ctl pw network add net1)
expect_eq "network add output" 'network "net1" created (bridge, no vlan)' "$out"
out=$(ctl pw network add net2 --vlan 10)
expect_eq "network add --vlan output" 'network "net2" created (bridge, vlan 10)' "$out"
ctl pw port add pod-a --network net1 --type vhost-user --socket "$T/a.sock" --mac $MAC_A
ctl pw port add pod-b --network net1 --type vhost-user --socket "$T/b.sock" --mac $MAC_B
out=$(ctl pw port add n1 --network net2 --type null --mac 02:00:00:00:01:01 --mtu 9000)
expect_eq "port add output" 'port "n1" created: null mac 02:00:00:00:01:01' "$out"
pod_up pw pod-a a "$(vdev_virtio "$T/a.sock" $MAC_A)" --eth-peer=0,$MAC_B
pod_up pw pod-b b "$(vdev_virtio "$T/b.sock" $MAC_B)" --eth-peer=0,$MAC_A
pod_send b 1
wait_for 10 "a to receive b's frames" pod_rx_ge a 32
pod_send a 1
wait_for 10 "b to receive a's frames" pod_rx_ge b 32

# ---- human output --------------------------------------------------------------
out=$(ctl pw network list)
table_ok "network list" '^NAME +MODE +VLAN +PORTS$' "$out"
grep -qE '^net1 +bridge +- +pod-a,pod-b$' <<<"$out" || fail "network list: no row for net1: $out"
grep -qE '^net2 +bridge +10 +n1$' <<<"$out" || fail "network list: no row for net2: $out"

out=$(ctl pw port list)
table_ok "port list" '^NAME +NETWORK +TYPE +MODE +MAC +MTU +LINK +WORKER +SOCKET/DEVICE$' "$out"
grep -qE "^pod-a +net1 +vhost-user +server +$MAC_A +1500 +up +$WORKER_CPU +$T/a.sock$" <<<"$out" ||
	fail "port list: no row for pod-a: $out"
grep -qE "^n1 +net2 +null +- +02:00:00:00:01:01 +9000 +up +$WORKER_CPU +-$" <<<"$out" ||
	fail "port list: no row for n1: $out"
table_ok "port list --network" '^NAME +NETWORK' "$(ctl pw port list --network net2)"
expect_eq "rows of port list --network net2" 2 "$(ctl pw port list --network net2 | wc -l)"

out=$(ctl pw port show pod-a)
for l in "name: +pod-a" "network: +net1" "link: +up" "queues: +1" "rxq pins: +-" "socket/device: +$T/a.sock" "rx pkts: +32" "tx pkts: +32"; do
	grep -qE "^$l$" <<<"$out" || fail "port show: no line /$l/: $out"
done
ok "port show lists the port's fields and counters"

out=$(ctl pw stats)
table_ok "stats" '^PORT +RX-PKTS +RX-BYTES +TX-PKTS +TX-BYTES +DROPS +KDROPS$' "$(sed '/^$/,$d' <<<"$out")"
table_ok "stats workers" '^LCORE +BUSY-CYCLES +IDLE-CYCLES +BUSY +SLEEPS +SLEEP-US$' "$(sed '1,/^$/d' <<<"$out")"
grep -qE '^pod-a +32 +2048 +32 +2048 +0 +-$' <<<"$out" || fail "stats: no row for pod-a: $out"

out=$(ctl pw info)
grep -qE "^version: +$(ctlj pw info | jq -r .version)$" <<<"$out" || fail "info: no version: $out"
grep -qE "^socket: +$T/pw.sock$" <<<"$out" || fail "info: no socket: $out"
grep -qE "^main lcore: +$POD_CPU$" <<<"$out" || fail "info: no main lcore: $out"
table_ok "info workers" '^LCORE +BUSY-CYCLES +IDLE-CYCLES +BUSY +PORTS$' "$(sed '1,/^$/d' <<<"$out")"
grep -qE "^ +$WORKER_CPU +[0-9]+ +[0-9]+ +[0-9.]+% +pod-a,pod-b,n1$" <<<"$out" ||
	fail "info: no row for the worker on lcore $WORKER_CPU with its ports: $out"
ok "info shows the worker on lcore $WORKER_CPU"

out=$(ctl pw mac list net1)
# Two tables: the entries, then (after a blank line and a summary line)
# what each port has learned against its limit.
table_ok "mac list" '^MAC +PORT +AGE-SEC$' "$(sed '/^$/,$d' <<<"$out")"
grep -qE "^$MAC_A +pod-a +[0-9]+$" <<<"$out" || fail "mac list: $MAC_A not on pod-a: $out"
grep -qE '^2 of 65536 MACs learned on network "net1"$' <<<"$out" ||
	fail "mac list: no summary of the network's learning limit: $out"
table_ok "mac list limits" '^PORT +MACS-LEARNED +MAC-LIMIT +LEARN-LIMIT$' "$(sed '1,/^[0-9]* of /d' <<<"$out")"
grep -qE '^pod-a +1 +64 +0$' <<<"$out" || fail "mac list: pod-a's learning row: $out"

# ---- JSON output ---------------------------------------------------------------
json_ok "network list" '.networks | map(.name) == ["net1", "net2"]' network list
json_ok "port list" '.ports | map(.name) == ["pod-a", "pod-b", "n1"]' port list
json_ok "port list --network" '.ports | map(.name) == ["n1"]' port list --network net2
json_ok "port show" ".name == \"pod-a\" and .link == \"up\" and .worker == $WORKER_CPU and .stats.rx_packets == 32" \
	port show pod-a
json_ok "stats" '.ports | length == 3' stats
json_ok "stats PORT" '.ports | length == 1 and .[0].name == "pod-b" and .[0].rx_packets == 32' stats pod-b
json_ok "info" ".version != null and .main_core == $POD_CPU and .workers[0].lcore == $WORKER_CPU and .ports == 3" info
json_ok "mac list" ".network == \"net1\" and (.entries | map(.mac) | index(\"$MAC_B\")) != null" mac list net1
json_ok "network add" '.name == "net3" and .vlan == 7' network add net3 --vlan 7
json_ok "port add" '.name == "n3" and .network == "net3" and .type == "null" and .mtu == 1500' \
	port add n3 --network net3 --type null
out=$(ctl pw port del n3)
expect_eq "port del output" 'port "n3" deleted' "$out"
out=$(ctl pw network del net3)
expect_eq "network del output" 'network "net3" deleted' "$out"

# ---- many clients at once --------------------------------------------------------
BEFORE=$(ctlj pw port list | jq -c '[.ports[].name]')
mkdir "$T/clients"
CLIENTS=()
for i in $(seq $NCLIENTS); do
	(
		rc=0
		{ ctl pw port add c$i --network net1 --type null && ctl pw port del c$i; } \
			>"$T/clients/$i.out" 2>&1 || rc=$?
		echo $rc >"$T/clients/$i.rc"
	) &
	CLIENTS+=($!)
done
wait "${CLIENTS[@]}"
for i in $(seq $NCLIENTS); do
	[ "$(cat "$T/clients/$i.rc")" = 0 ] ||
		fail "client $i of $NCLIENTS failed: $(cat "$T/clients/$i.out")"
done
ok "$NCLIENTS concurrent clients each added and deleted a port"
expect_eq "ports after the concurrent clients" "$BEFORE" "$(ctlj pw port list | jq -c '[.ports[].name]')"

# ---- a silent client blocks nobody -------------------------------------------------
# One connects and says nothing, one sends half a request; both hold on.
python3 - "$T/pw.sock" <<-'EOF' &
	import socket, sys, time
	silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
	silent.connect(sys.argv[1])
	half = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
	half.connect(sys.argv[1])
	half.sendall(b'{"jsonrpc":"2.0","id":1,"method":"sys')
	open(sys.argv[1] + ".held", "w").close()
	time.sleep(120)
EOF
HOLDER=$!
wait_for 10 "the silent clients to connect" test -e "$T/pw.sock.held"
for cmd in "info" "port add quiet --network net1 --type null" "port del quiet" "stats"; do
	# shellcheck disable=SC2086 # cmd is split on purpose
	ctl pw --timeout 3000 $cmd >/dev/null || fail "podwirectl $cmd failed while a client was silent"
done
ok "podwirectl answers while two clients hold connections without a request"
kill "$HOLDER"
wait "$HOLDER" 2>/dev/null || true
rm -f "$T/pw.sock.held"

# ---- stats clear -------------------------------------------------------------------
out=$(ctl pw stats clear)
expect_eq "stats clear output" "counters cleared on 3 ports" "$out"
json_ok "stats after clear" '[.ports[] | .rx_packets, .tx_packets, .rx_bytes, .tx_bytes, (.drops[])] | add == 0' stats
expect_eq "pod a rx after stats clear (its own counter)" 32 "$(pod_rx a)"
expect_eq "pod a tx after stats clear (its own counter)" 32 "$(pod_tx a)"
expect_eq "pod b rx after stats clear (its own counter)" 32 "$(pod_rx b)"
pod_send a 2
wait_for 10 "b to receive 64 more frames" pod_rx_ge b 96
expect_eq "pod-a rx counted since the clear" 64 "$(port_stat pw pod-a .rx_packets)"
expect_eq "pod-b tx counted since the clear" 64 "$(port_stat pw pod-b .tx_packets)"
expect_eq "pod-b tx bytes counted since the clear" $((64 * 64)) "$(port_stat pw pod-b .tx_bytes)"
expect_eq "pod b rx (its own counter)" 96 "$(pod_rx b)"

out=$(ctl pw stats clear pod-b)
expect_eq "stats clear PORT output" 'counters of port "pod-b" cleared' "$out"
expect_eq "pod-b tx after clearing pod-b" 0 "$(port_stat pw pod-b .tx_packets)"
expect_eq "pod-a rx after clearing pod-b only" 64 "$(port_stat pw pod-a .rx_packets)"
expect_eq "port show agrees with stats" 0 "$(ctlj pw port show pod-b | jq .stats.tx_packets)"
daemon_alive pw || fail "podwired died"

# ---- kinds, declared results, API version ------------------------------------------
out=$(ctl pw kinds)
for k in vhost-user memif null af_xdp af_packet pci; do
	grep -qE "^$k " <<<"$out" || fail "kinds: no line for $k: $out"
done
grep -q -- "--type memif --socket PATH \[--server|--client\] \[--secret S\]" <<<"$out" ||
	fail "kinds: memif's options are not listed: $out"
for k in vhost-user memif; do
	grep -E "^ +port add NAME --network NET --type $k " <<<"$out" | grep -q -- "\[--queues N\]" ||
		fail "kinds: $k takes --queues, not listed: $out"
	! grep -E "^ +port add NAME --network NET --type $k " <<<"$out" | grep -q -- "--pci" ||
		fail "kinds: $k does not take --pci: $out"
done
grep -E "^ +port add NAME --network NET --type vhost-user " <<<"$out" | grep -q -- "\[--offloads on|off\]" ||
	fail "kinds: vhost-user takes --offloads, not listed: $out"
grep -qE "^ +port add NAME --network NET --type veth --iface IFNAME \[--io packet\|xdp\]" <<<"$out" ||
	fail "kinds: veth's options (--iface, --io) are not listed: $out"
ok "podwirectl kinds lists every kind with its options"
expect_eq "system.info api_version" "1.8" "$(ctlj pw info | jq -r .api_version)"
# Every answer above was checked by podwired against control/api.h.
if grep -q "does not match control/api.h" "$T/pw.log"; then
	fail "a result does not match its declaration: $(grep 'does not match' "$T/pw.log")"
fi
ok "every result podwired sent matched control/api.h"

# A daemon of a newer major API version is refused by the client, with what
# to upgrade; one of a newer minor version is served.
fake_daemon() { # SOCKET API-VERSION: answers system.info and network.list
	python3 - "$1" "$2" <<-'PY' &
		import json, os, socket, sys
		path, version = sys.argv[1], sys.argv[2]
		s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
		# Listening before the path appears: a client that finds the
		# socket is never refused between bind and listen.
		s.bind(path + ".new"); s.listen(8); os.rename(path + ".new", path)
		while True:
		    c, _ = s.accept()
		    f = c.makefile("rwb")
		    for line in f:
		        req = json.loads(line)
		        res = {"version": "9.0.0", "api_version": version} \
		            if req["method"] == "system.info" else {"networks": []}
		        f.write((json.dumps({"jsonrpc": "2.0", "id": req["id"], "result": res}) + "\n").encode())
		        f.flush()
		    c.close()
	PY
	FAKE_PID=$!
	wait_for 10 "the fake daemon" test -S "$1"
}
fake_daemon "$T/fake2.sock" 2.0
set +e
out=$("$PODWIRECTL" --socket "$T/fake2.sock" network list 2>&1)
rc=$?
set -e
kill "$FAKE_PID"
expect_eq "podwirectl against API 2.0: exit code" 1 "$rc"
for w in "speaks API version 2.0" "understands 1.x" "upgrade the client to podwire 9.0.0"; do
	grep -qF "$w" <<<"$out" || fail "podwirectl against API 2.0: \"$w\" missing: $out"
done
ok "a newer major API version is refused: $out"
fake_daemon "$T/fake1.sock" 1.9
out=$("$PODWIRECTL" --socket "$T/fake1.sock" network list) ||
	fail "podwirectl against API 1.9 failed: $out"
kill "$FAKE_PID"
ok "a newer minor API version is served"
