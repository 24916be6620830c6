#!/bin/bash
# podwirectl queue list/pin/unpin/balance and port add --queues/--rxq-pins
# on two workers: tables and JSON, every bad input refused with what to
# do and nothing changed, pins kept across a restart of podwired, and a
# pin moves a queue that carries frames (its new worker counts them, in
# /metrics and `top --queues`).
. "$(dirname "$0")/lib.sh"

command -v curl >/dev/null || fail "curl is not installed"
# Two workers: one shares podwired's main core (a warning), one has core 1.
WORKER_CPU=0,1
A=02:00:00:00:0a:01 N=02:00:00:00:01:01
MPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# 6 s: loads are measured in 1 s chunks, so BUSY has figures at once.
start() { daemon_start pw --rebalance-interval 6 --metrics "127.0.0.1:$MPORT"; }
start
ctl pw network add net1
ctl pw port add n1 --network net1 --type null --mac $N
ctl pw port add m1 --network net1 --type memif --socket "$T/m1.sock" --mac $A
out=$(ctl pw port add v1 --network net1 --type vhost-user --socket "$T/v1.sock" --queues 4 --rxq-pins 3:1,2:0)
grep -q '^port "v1" created' <<<"$out" || fail "port add --queues --rxq-pins: $out"
expect_eq "v1's queues in port show" 4 "$(ctlj pw port show v1 | jq .queues)"
out=$(ctl pw port show v1)
grep -qE '^queues: +4$' <<<"$out" || fail "port show v1: no queues line: $out"
grep -qE '^rxq pins: +(3:1,2:0|2:0,3:1)$' <<<"$out" || fail "port show v1: no rxq pins line: $out"

# q PORT QUEUE FIELD: one field of a queue in queue.list.
q() { ctlj pw queue list "$1" | jq -r ".queues[] | select(.queue == $2) | .$3"; }

# ---- queue list ------------------------------------------------------------------
out=$(ctl pw queue list)
head -n1 <<<"$out" | grep -qE '^PORT +QUEUE +WORKER +ENABLED +PINNED +RX/S +BUSY +RX-TOTAL +TX-TOTAL$' ||
	fail "queue list: header: $out"
sed '/^$/,$d' <<<"$out" | tail -n +2 | awk 'NF != 9 { exit 1 }' || fail "queue list: a row has not 9 columns: $out"
grep -qE '^v1 +3 +1 +off +yes ' <<<"$out" || fail "queue list: v1 queue 3 is not pinned on core 1: $out"
grep -qE '^v1 +2 +0 +off +yes ' <<<"$out" || fail "queue list: v1 queue 2 is not pinned on core 0: $out"
grep -qE '^v1 +0 +[01] +on +no ' <<<"$out" || fail "queue list: v1 queue 0: $out"
grep -qE '^n1 +0 +[01] +on +no ' <<<"$out" || fail "queue list: n1 queue 0: $out"
grep -qE '^workers, load over the last [0-9]+ s: core 0: [0-9]+ queues?, [0-9.]+% busy; core 1: [0-9]+ queues?, [0-9.]+% busy$|^workers \(no load measured yet\): core 0: [0-9]+ queues?; core 1: [0-9]+ queues?$' <<<"$out" ||
	fail "queue list: no workers' summary line: $out"
ok "queue list: a row per queue, pins of port add --rxq-pins, the workers' line"
expect_eq "rows of queue list v1" 4 "$(ctl pw queue list v1 | sed '/^$/,$d' | tail -n +2 | wc -l)"
ctlj pw queue list v1 | jq -e '(.queues | length == 4) and (.queues | all(.port == "v1"))
	and (.workers | map(.lcore) == [0, 1]) and .window_sec >= 0' >/dev/null ||
	fail "queue list --json: $(ctlj pw queue list v1)"
ok "queue list --json: v1's 4 queues and both workers"

# ---- pin and unpin --------------------------------------------------------------------
was=$(q v1 0 worker)
to=$((1 - was))
out=$(ctl pw queue pin v1 0 $to)
expect_eq "queue pin output" "port \"v1\" queue 0 pinned on the worker on core $to" "$out"
expect_eq "v1 queue 0's worker after the pin" $to "$(q v1 0 worker)"
expect_eq "v1 queue 0 pinned" true "$(q v1 0 pinned)"
ctl pw queue list v1 | grep -qE "^v1 +0 +$to +on +yes " || fail "queue list after the pin: $(ctl pw queue list v1)"
ctlj pw queue pin v1 1 $to | jq -e ".port == \"v1\" and .queue == 1 and .worker == $to" >/dev/null ||
	fail "queue pin --json: $(ctlj pw queue pin v1 1 $to)"
out=$(ctl pw queue unpin v1 1)
expect_eq "queue unpin output" "port \"v1\" queue 1 unpinned: it stays on core $to until the balancer moves it" "$out"
expect_eq "v1 queue 1 unpinned" false "$(q v1 1 pinned)"
expect_eq "v1 queue 1 stays on its worker" $to "$(q v1 1 worker)"
ok "queue pin moves the queue (core $was to $to) and pins it; unpin keeps it there"

# ---- bad input: an error that names the field and the fix, nothing changed ---------------
# refused EXIT WORDS ARGS...: podwirectl ARGS exits EXIT and its message
# has each ;-separated word of WORDS; queue.list is as before.
refused() {
	local want=$1 words=$2 out rc=0 before w
	shift 2
	before=$(ctlj pw queue list | jq -c '[.queues[] | {port, queue, worker, pinned}]')
	out=$(ctl pw "$@" 2>&1) || rc=$?
	[ "$rc" = "$want" ] || fail "$*: exit $rc, expected $want: $out"
	IFS=';' read -ra ws <<<"$words"
	for w in "${ws[@]}"; do
		grep -qF -- "$w" <<<"$out" || fail "$*: the message does not say \"$w\": $out"
	done
	[ "$before" = "$(ctlj pw queue list | jq -c '[.queues[] | {port, queue, worker, pinned}]')" ] ||
		fail "$*: the queues changed: $before, now $(ctlj pw queue list)"
	ok "$* refused ($rc): $(grep -m1 error <<<"$out")"
}
refused 1 'port "nope" does not exist;podwirectl port list' queue pin nope 0 1
refused 1 'port "v1" has 4 rx queue(s), 0-3;podwirectl queue list v1' queue pin v1 4 1
refused 1 '"queue" is 16, it must be 0-15' queue pin v1 16 1
refused 1 '"queue" is -1' queue pin v1 -1 1
refused 1 'core 7 runs no worker;lists the worker cores' queue pin v1 0 7
refused 1 'port "nope" does not exist' queue unpin nope 0
refused 1 'port "n1" has 1 rx queue(s), 0-0' queue unpin n1 1
refused 1 'port "nope" does not exist' queue list nope
refused 2 'queue pin: QUEUE "x" is not a number' queue pin v1 x 1
refused 2 'queue pin: WORKER "one" is not a number' queue pin v1 0 one
refused 2 'queue pin: missing WORKER' queue pin v1 0
refused 2 'queue pin: missing PORT' queue pin
refused 2 'queue unpin: missing QUEUE' queue unpin v1
refused 2 'queue pin: unexpected argument "2"' queue pin v1 0 1 2
refused 2 'unknown queue command "frob"; queue commands are: list, pin, unpin, balance' queue frob
refused 1 '"interval" is 0, it must be 1-86400 (seconds)' queue balance --interval 0
refused 1 '"threshold" is 101, it must be 1-100' queue balance --threshold 101
refused 1 '"improvement" is 0, it must be 1-100' queue balance --improvement 0
refused 2 '--off: conflicts with --on' queue balance --on --off
refused 2 '--on: conflicts' queue balance --off --on
refused 2 '--interval: "x" is not a number' queue balance --interval x
refused 2 'unknown queue balance option "--frob"' queue balance --frob
refused 1 'rxq_pins' port add bad --network net1 --type vhost-user --socket "$T/bad.sock" --queues 2 --rxq-pins 2:0
refused 1 'rxq_pins' port add bad --network net1 --type vhost-user --socket "$T/bad.sock" --rxq-pins 0-1
refused 1 '"queues" is 17' port add bad --network net1 --type vhost-user --socket "$T/bad.sock" --queues 17
refused 2 '--queues: "x" is not a number' port add bad --network net1 --type vhost-user --queues x
ctlj pw port list | jq -e '.ports | map(.name) == ["n1", "m1", "v1"]' >/dev/null || fail "a refused port add left a port"
ok "no refused port add left a port"
daemon_alive pw || fail "podwired died on bad input"

# ---- the balancer's settings ---------------------------------------------------------
out=$(ctl pw queue balance)
grep -q '^balancer: off, a check every 6 s: .* 70% busy or more .* by 25% or more$' <<<"$out" ||
	fail "queue balance: $out"
out=$(ctl pw queue balance --on --interval 7 --threshold 50 --improvement 10)
grep -q '^balancer: on, a check every 7 s: .* 50% busy or more .* by 10% or more$' <<<"$out" ||
	fail "queue balance --on ...: $out"
grep -q '^checks: [0-9]*, [0-9]* moved queues' <<<"$out" || fail "queue balance: no checks line: $out"
ctlj pw queue balance | jq -e '.enabled and .interval == 7 and .threshold == 50 and .improvement == 10' >/dev/null ||
	fail "queue balance --json: $(ctlj pw queue balance)"
out=$(ctl pw queue balance --off --interval 6 --threshold 70 --improvement 25 --run)
grep -q '^balancer: off, a check every 6 s' <<<"$out" || fail "queue balance --off --run: $out"
grep -qE '^this check moved (queues|nothing)$' <<<"$out" || fail "queue balance --run: no outcome: $out"
grep -q '^last check: ' <<<"$out" || fail "queue balance --run: no last check: $out"
ok "queue balance shows and changes the settings; --run checks now: $(grep '^last check' <<<"$out")"

# ---- pins survive a restart (the state file) ---------------------------------------
daemon_stop pw
start
expect_eq "v1 queue 0 after the restart: worker" $to "$(q v1 0 worker)"
expect_eq "v1 queue 0 after the restart: pinned" true "$(q v1 0 pinned)"
expect_eq "v1 queue 3 after the restart (port add --rxq-pins)" "1 true" "$(q v1 3 worker) $(q v1 3 pinned)"
expect_eq "v1 queue 1 after the restart: unpinned" false "$(q v1 1 pinned)"
ok "pins of queue pin and of port add --rxq-pins survive a restart of podwired"

# ---- a pin moves a queue that carries frames -----------------------------------------
# The pod sends on 2 memif rings: 2 rx queues of m1, to n1 (a sink).
pod_up pw m1 a "$(vdev_memif "$T/m1.sock" $A)" --rxq=2 --txq=2 --eth-peer=0,$N
wait_for 10 "m1's queues 0 and 1 to be enabled (and no others)" \
	eval '[ "$(ctlj pw queue list m1 | jq -c "[.queues[] | select(.enabled) | .queue]")" = "[0,1]" ]'
# Frames to m1 leave on its tx queues: counted per queue, by the sending
# worker (memif counts per queue).
ctl pw port add m2 --network net1 --type memif --socket "$T/m2.sock" --mac 02:00:00:00:0c:02
pod_up pw m2 b "$(vdev_memif "$T/m2.sock" 02:00:00:00:0c:02)" --eth-peer=0,$A
pod_send b 2
wait_for 10 "a to receive b's frames" pod_rx_ge a 64
expect_eq "frames sent to m1, on its tx queues in /metrics" "$(port_stat pw m1 .tx_packets)" \
	"$(curl -sf "http://127.0.0.1:$MPORT/metrics" | awk '$1 ~ /^podwire_txq_packets_total\{port="m1",/ { s += $2 } END { print s + 0 }')"
pod_stop b
pod_cmd a stop
pod_cmd a "set fwd txonly"
pod_cmd a start
wait_for 10 "frames on both of m1's queues" \
	eval '[ "$(q m1 0 rx_packets_total)" -gt 1000 ] && [ "$(q m1 1 rx_packets_total)" -gt 1000 ]'
w0=$(q m1 0 worker)
to=$((1 - w0))
# rxq WORKER-CORE: m1 queue 0's frames counted by that worker, in /metrics.
rxq() {
	curl -sf "http://127.0.0.1:$MPORT/metrics" |
		awk -v c="$1" '$1 ~ /^podwire_rxq_packets_total\{port="m1",.*queue="0",.*lcore="/ && $1 ~ "lcore=\"" c "\"" { print $2 }'
}
old_before=$(rxq "$w0")
[ "${old_before:-0}" -gt 0 ] || fail "no frames of m1 queue 0 on its worker (core $w0) in /metrics"
ctl pw queue pin m1 0 $to
expect_eq "m1 queue 0's worker after the pin" $to "$(q m1 0 worker)"
sleep 0.5
old_after=$(rxq "$w0")
new_a=$(rxq $to)
sleep 1
old_later=$(rxq "$w0")
new_b=$(rxq $to)
expect_eq "frames of m1 queue 0 on core $w0 once the queue moved away" "$old_after" "$old_later"
[ "${new_b:-0}" -gt "${new_a:-0}" ] || fail "core $to does not count m1 queue 0's frames: $new_a then $new_b"
ok "the pin moved m1 queue 0 from core $w0 to core $to: the new worker counts its frames ($new_a -> $new_b), the old one stopped at $old_later"

out=$(ctl pw top --queues --interval 0.5 --count 1)
awk -v w="$to" '$1 == "m1" && $2 == "0" && $3 == w && $4 > 0 && $5 ~ /%$/ && $6 == "pinned" { f = 1 } END { exit !f }' <<<"$out" ||
	fail "top --queues: no row for m1 queue 0 on core $to with a rate and a load: $out"
awk '$1 == "m1" && $2 == "1" && $4 > 0 { f = 1 } END { exit !f }' <<<"$out" ||
	fail "top --queues: no rate for m1 queue 1: $out"
off=$(ctlj pw queue list | jq '[.queues[] | select(.enabled | not)] | length')
grep -q "^($off rx queues no pod enabled" <<<"$out" || fail "top --queues: not the $off disabled queues: $out"
ok "top --queues: $(awk '$1 == "m1" && $2 == "0" {print "m1 queue 0 on core", $3 ",", $4, "frames/s,", $5, "busy"}' <<<"$out")"
out=$(ctl pw queue list m1)
grep -qE "^m1 +0 +$to +on +yes +[1-9][0-9]* +[0-9.]+% " <<<"$out" || fail "queue list m1: no rate for queue 0: $out"
ok "queue list m1: $(grep -E '^m1 +0 ' <<<"$out" | tr -s ' ')"
pod_cmd a stop
