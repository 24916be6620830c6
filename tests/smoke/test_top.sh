#!/bin/bash
# podwirectl top: a refreshing table of per-port rates and per-worker busy
# %, seen through tmux (a real terminal: drawn in place, q quits), and
# plain tables when stdout is not a terminal. Bad arguments are refused.
. "$(dirname "$0")/lib.sh"

command -v tmux >/dev/null || fail "tmux is not installed (apt-get install tmux)"
A=02:00:00:00:0a:01 B=02:00:00:00:0b:01
TMUX_SOCK=$T/tmux.sock
tm() { tmux -S "$TMUX_SOCK" "$@"; }
# The tmux server goes too (an on_exit step: the test's own status is
# kept, where a trap that ran tmux first once handed on tmux's).
top_exit() {
	tm kill-server 2>/dev/null
}
on_exit top_exit

daemon_start pw
ctl pw network add net1
ctl pw port add pod-a --network net1 --type vhost-user --socket "$T/a.sock" --mac $A
ctl pw port add pod-b --network net1 --type vhost-user --socket "$T/b.sock" --mac $B --mtu 1000
pod_up pw pod-a a "$(vdev_virtio "$T/a.sock" $A)" --eth-peer=0,$B
pod_up pw pod-b b "$(vdev_virtio "$T/b.sock" $B)" --eth-peer=0,$A

# ---- bad arguments ----------------------------------------------------------------
for args in "--interval 0" "--interval x" "--count 0" "--frobnicate"; do
	rc=0
	# shellcheck disable=SC2086
	out=$(ctl pw top $args 2>&1) || rc=$?
	[ $rc = 2 ] || fail "top $args: exit $rc, expected 2: $out"
	grep -q -- "${args%% *}" <<<"$out" || fail "top $args: the error does not name ${args%% *}: $out"
	ok "top $args refused: $out"
done

# a sends to b at full speed; half its frames are too large for b's MTU.
pod_cmd a stop
pod_cmd a "set txpkts 64"
pod_cmd a "set fwd txonly"
pod_cmd a start
wait_for 10 "a's frames to flow" port_stat_ge pw pod-a .rx_packets 100000

# ---- not a terminal: plain tables, --count of them -------------------------------------
out=$(ctl pw top --interval 0.3 --count 2 | cat)
! grep -q $'\033' <<<"$out" || fail "top wrote escape sequences to a pipe: $out"
expect_eq "tables printed" 2 "$(grep -c '^podwirectl top: rates over' <<<"$out")"
awk '$1 == "pod-a" && $2 > 0 { found = 1 } END { exit !found }' <<<"$out" ||
	fail "no rx rate for pod-a: $out"
awk '$1 == "pod-b" && $4 > 0 { found = 1 } END { exit !found }' <<<"$out" ||
	fail "no tx rate for pod-b: $out"
awk '$1 == "0" && $2 == "'"$WORKER_CPU"'" && $3 ~ /%$/ { found = 1 } END { exit !found }' <<<"$out" ||
	fail "no busy % for worker 0: $out"
grep -qE '^PORT +RX-PPS +RX-MBIT/S +TX-PPS +TX-MBIT/S +DROPS/S +KDROPS/S +DROPS/S BY REASON$' <<<"$out" ||
	fail "top: header: $out"
# vhost-user reads through no kernel socket: nothing the kernel could drop.
awk '$1 == "pod-a" && $7 == "-" { found = 1 } END { exit !found }' <<<"$out" ||
	fail "top: pod-a's KDROPS/S is not -: $out"
ok "plain top: $(awk '$1 == "pod-a" {print "pod-a rx", $2, "pps,", $3, "Mbit/s"; exit}' <<<"$out")"
# --queues: per rx queue, its worker's core, rate and load (the load is
# podwired's, over the balancer's window: "-" for its first 10 s).
out=$(ctl pw top --queues --interval 0.3 --count 1)
grep -qE '^PORT +QUEUE +WORKER +RX-PPS +BUSY +\(load over the last [0-9]+ s\)$' <<<"$out" ||
	fail "top --queues: no queue table: $out"
awk '$1 == "pod-a" && $2 == "0" && $3 == "'"$WORKER_CPU"'" && $4 > 0 && ($5 ~ /%$/ || $5 == "-") { found = 1 } END { exit !found }' <<<"$out" ||
	fail "top --queues: no row for pod-a queue 0 on core $WORKER_CPU with a rate: $out"
awk '$1 == "0" && $4 ~ /^[0-9]+$/ { found = 1 } END { exit !found }' <<<"$out" ||
	fail "top: no SLEEPS/S for worker 0: $out"
ok "top --queues: $(awk '$1 == "pod-a" && $2 == "0" {print "pod-a queue 0 on core", $3 ",", $4, "pps,", $5; exit}' <<<"$out")"
out=$(ctl pw stats --watch --interval 0.2 --count 1)
grep -q '^podwirectl top: rates over' <<<"$out" || fail "stats --watch: $out"
ok "stats --watch is top"

# ---- a terminal: tmux -----------------------------------------------------------------
tm new-session -d -s top -x 150 -y 30 \
	"$PODWIRECTL --socket $T/pw.sock top --interval 0.3; echo top-exited-\$?; sleep 30"
screen() { tm capture-pane -p -t top; }
drawn() {
	screen >"$T/screen.txt"
	grep -q 'podwirectl top: rates over .*q to quit' "$T/screen.txt" &&
		awk '$1 == "pod-a" && $2 > 0 { f = 1 } END { exit !f }' "$T/screen.txt"
}
wait_for 20 "top to draw pod-a's rate in tmux" drawn
cat "$T/screen.txt"
first=$(grep -o '[0-9][0-9]:[0-9][0-9]:[0-9][0-9]' "$T/screen.txt" | head -n1)
redrawn() { screen | grep -q 'podwirectl top' && [ "$(screen | grep -c 'podwirectl top')" = 1 ] &&
	[ "$(screen | grep -o '[0-9][0-9]:[0-9][0-9]:[0-9][0-9]' | head -n1)" != "$first" ]; }
wait_for 10 "top to redraw in place (one header, a new time)" redrawn
ok "top redraws in place: one table on the screen, time moved from $first"
tm send-keys -t top r
wait_for 10 "r to show the rx queues" eval 'screen | grep -qE "^pod-a +0 +$WORKER_CPU "'
tm send-keys -t top r
wait_for 10 "r again to hide them" eval '! screen | grep -q "^PORT .*QUEUE"'
ok "r shows and hides the rx queues in top"
tm send-keys -t top q
wait_for 10 "q to quit top" eval 'screen | grep -q top-exited-0'
ok "q quit top (exit 0)"
pod_cmd a stop
