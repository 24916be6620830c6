#!/bin/bash
# A hostile vhost-user frontend (tests/vhost/hostile.c) breaks one rule at
# a time on a podwired server port: memory tables podwired must not let
# librte_vhost map, fds of the wrong kind, features not offered, messages
# out of order or in a flood, bad rings and descriptors, memory taken away
# under podwired, a second frontend, hang-ups at every step. After each:
# podwired is alive, the two testpmd pods on the same network still
# exchange frames, the hostile port is down and says why, and a
# well-behaved frontend connects to it again.
#
# The attacks on a running device's rings run on both data paths: hx has
# podwired's own rings (--rings podwire), hl librte_vhost's (the default). On hx each broken
# chain must be noticed: refused and counted (bad_desc) or the connection
# ended; a buffer the guest posted read-only is never written. Both must
# hand back their ring indexes when the frontend stops its rings and go
# on from them when it starts them again (base-resume).
. "$(dirname "$0")/lib.sh"

HOSTILE=$BUILD/vhost-hostile
[ -x "$HOSTILE" ] || fail "$HOSTILE is not built"
MAC_A=02:00:00:00:0a:01
MAC_B=02:00:00:00:0b:01

daemon_start pw
ctl pw network add net1 >/dev/null
ctl pw port add pa --network net1 --type vhost-user --socket "$T/a.sock" --mac $MAC_A >/dev/null
ctl pw port add pb --network net1 --type vhost-user --socket "$T/b.sock" --mac $MAC_B >/dev/null
# hx: podwired's own rings; hl: librte_vhost's data path (the default).
ctl pw port add hx --network net1 --type vhost-user --rings podwire --socket "$T/hx.sock" >/dev/null
ctl pw port add hl --network net1 --type vhost-user --rings librte --socket "$T/hl.sock" >/dev/null
pod_up pw pa a "$(vdev_virtio "$T/a.sock" $MAC_A)" --eth-peer=0,$MAC_B
pod_up pw pb b "$(vdev_virtio "$T/b.sock" $MAC_B)" --eth-peer=0,$MAC_A
B_RX=0
CASES=0

# traffic_goes_on: pod a's next 32 frames reach pod b.
traffic_goes_on() {
	pod_send a 1
	B_RX=$((B_RX + 32))
	wait_for 10 "pod b to receive a's frames ($1)" pod_rx_ge b $B_RX
}

# The port the next attack aims at: hx, or hl for the datapath attacks
# on librte_vhost's data path.
HX=hx
hx_field() { ctlj pw port show $HX | jq -r ".vhost_user.$1"; }
hx_free() { [ "$(hx_field state)" = listening ]; }
# Chains of the guest's transmit ring podwired handed back unused.
hx_bad_desc() { port_stat pw $HX '.drops.bad_desc // 0'; }

# good_frontend: a well-behaved frontend connects to hx, its frame is
# taken, it leaves. (It also ends hx's back-off: a connection that came
# up.)
good_frontend() {
	local out rx
	rx=$(port_stat pw $HX .rx_packets)
	out=$("$HOSTILE" --wait 100 "$T/$HX.sock" good 2>&1) || fail "good frontend after $1: $out"
	grep -q '^connected' <<<"$out" || fail "good frontend after $1: $out"
	wait_for 10 "$HX to count the good frontend's frame" port_stat_ge pw $HX .rx_packets $((rx + 1))
	wait_link pw $HX down
	# Its connection is gone too (or the next frontend is a second one).
	wait_for 10 "hx to be free" hx_free
}

# attack MODE OUTCOME WORDS [WAIT_MS]: runs one hostile mode. OUTCOME: what the tool
# must print ("closed": podwired ended the connection; "any": librte_vhost
# drops the harm frame by frame and the frontend leaves by itself). WORDS:
# what hx's last_disconnect must contain once the frontend is gone.
attack() {
	local mode=$1 want=$2 words=$3 wait=${4:-600} out why
	out=$("$HOSTILE" --wait "$wait" "$T/$HX.sock" "$mode" 2>&1) || fail "$mode: the tool failed: $out"
	daemon_alive pw || fail "$mode: podwired died; its log: $(tail -n 5 "$T/pw.log")"
	if [ "$want" != any ]; then
		grep -q "^$want" <<<"$out" || fail "$mode: expected \"$want\", the frontend saw: $out"
	fi
	wait_link pw $HX down
	wait_for 10 "$HX to be free" hx_free
	why=$(hx_field last_disconnect)
	# (WORDS may hold several, one a line: any of them.)
	grep -qF -- "$words" <<<"$why" || fail "$mode: $HX says \"$why\", expected \"$words\""
	ok "$mode: $(tr '\n' ' ' <<<"$out")-> $why"
	traffic_goes_on "$mode"
	sleep 0.1 # past the 50 ms back-off of a connection that never came up
	good_frontend "$mode"
	CASES=$((CASES + 1))
}

# ---- memory tables librte_vhost must never map -------------------------------
attack region-big closed "less than offset 0 + size 0x200000"
attack region-offset closed "less than offset 0x1000 + size 0x200000"
attack region-wrap closed "wraps"
attack region-zero closed "empty"
attack region-devzero closed "not a memfd, tmpfs or hugetlbfs file"
attack region-dir closed "not a memfd, tmpfs or hugetlbfs file"
attack region-pipe closed "not a memfd, tmpfs or hugetlbfs file"
attack region-overlap closed "regions 0 and 1 overlap"
attack region-overlap-ua closed "regions 0 and 1 overlap"
attack region-count closed "9 regions and 8 fds"
attack region-nofd closed "1 regions and 0 fds"
attack memtable-again-big closed "less than offset 0 + size 0x200000"
# ---- fds and features podwired does not take -----------------------------------
attack log-base closed "dirty log"
attack inflight closed "inflight"
attack call-pipe closed "not an eventfd"
attack features closed "features podwired does not offer"
attack features-offload closed "features podwired does not offer"
# ---- messages ----------------------------------------------------------------
attack out-of-order closed "before the device came up"
attack unknown closed "before the device came up"
attack bad-size closed "before the device came up"
attack fd-flood closed "before the device came up"
attack flood any "before the device came up"
attack ring-out any "before the device came up"
attack ring-num closed "before the device came up"
for step in 0 1 2 3 4 5 6 7; do
	attack hangup$step any "before the device came up"
done
# ---- rings and descriptors of a running device, on both data paths -----------------
# hx_run MODE WAIT_MS: runs the tool on $HX in the background; once it
# says "armed", pod a sends 32 frames to the tool's MAC (learnt from its
# first frame), which podwired enqueues into its receive ring.
HX_MAC=02:00:00:00:0c:01
hx_run() {
	local pid
	"$HOSTILE" --wait "$2" "$T/$HX.sock" "$1" >"$T/hx-$1.out" 2>&1 &
	pid=$!
	while kill -0 $pid 2>/dev/null && ! grep -q '^armed' "$T/hx-$1.out"; do
		sleep 0.02
	done
	if grep -q '^armed' "$T/hx-$1.out"; then
		pod_peer a $HX_MAC
		pod_send a 1
		pod_peer a $MAC_B
	fi
	wait "$pid" || fail "$1: the tool failed: $(cat "$T/hx-$1.out")"
}

# ring_attack MODE WANT: a datapath attack on $HX. WANT "refused": the
# port's own rings must notice: end the connection (a state no driver
# makes), or hand the chains back unused (the transmit ring's counted
# drops.bad_desc; the receive ring's used with length 0); "any": the
# frames are harmless or passed on. librte_vhost's data path only has to
# survive it (it drops the harm frame by frame).
ring_attack() {
	local mode=$1 want=$2 out why bad now
	bad=$(hx_bad_desc)
	hx_run "$mode" 400
	out=$(cat "$T/hx-$mode.out")
	daemon_alive pw || fail "$HX $mode: podwired died; its log: $(tail -n 5 "$T/pw.log")"
	wait_link pw $HX down
	wait_for 10 "$HX to be free" hx_free
	why=$(hx_field last_disconnect)
	now=$(hx_bad_desc)
	if [ $HX = hx ] && [ "$want" = refused ] && ! grep -q '^closed' <<<"$out" &&
		! grep -qF 'connection ended' <<<"$why" && [ "$now" -le "$bad" ] &&
		! grep -qE '^rx used [1-9][0-9]*( [0-9]+:0)+$' <<<"$out"; then
		fail "$HX $mode: neither refused nor counted (bad_desc $bad -> $now): $(tr '\n' ' ' <<<"$out")-> $why"
	fi
	if [ $HX = hx ] && [ "$mode" = rx-readonly ]; then
		grep -q '^read-only buffer untouched' <<<"$out" ||
			fail "$HX $mode: podwired wrote a buffer the guest posted read-only: $out"
	fi
	[ $HX = hx ] || grep -qF "the frontend left" <<<"$why" ||
		fail "$HX $mode: $HX says \"$why\", expected \"the frontend left\""
	ok "$HX $mode: $(tr '\n' ' ' <<<"$out")-> bad_desc $bad -> $now, $why"
	CASES=$((CASES + 1))
	# librte_vhost's path, unchanged, is checked once after all of them.
	[ $HX = hx ] || return 0
	traffic_goes_on "$HX $mode"
	sleep 0.1
	good_frontend "$HX $mode"
}

for HX in hx hl; do
	# The guest's transmit ring (podwired reads it) ...
	for mode in desc-loop desc-long desc-next-out desc-addr-out desc-addr-edge desc-len0 \
		desc-lenhuge desc-short ind-out ind-bad ind-len ind-nested head-out avail-jump; do
		ring_attack $mode refused
	done
	for mode in offload used-write memtable-again; do
		ring_attack $mode any
	done
	# ... and its receive ring (podwired writes it): the own rings'
	# code only (librte_vhost survives these too, and has not changed).
	if [ $HX = hx ]; then
			for mode in rx-addr-out rx-addr-edge rx-readonly rx-short rx-next-out rx-head-out \
			rx-ind-out rx-ind-nested rx-ind-loop rx-avail-jump; do
			ring_attack $mode refused
		done
		# A descriptor chained to itself is walked until the frame fits
		# (bounded, within the guest's buffer): harmless.
		ring_attack rx-loop any
	fi
	# A frontend that stops its rings and starts them again where they
	# were (QEMU on a driver reset): podwired must hand back the
	# indexes it reached and go on from them.
	out=$("$HOSTILE" --wait 300 "$T/$HX.sock" base-resume 2>&1) || fail "$HX base-resume: $out"
	grep -q 'handed back' <<<"$out" || fail "$HX base-resume: indexes not handed back: $out"
	grep -q '^resumed' <<<"$out" || fail "$HX base-resume: frames not taken after the restart: $out"
	ok "$HX base-resume: $(tr '\n' ' ' <<<"$out")"
	wait_link pw $HX down
	wait_for 10 "$HX to be free" hx_free
	traffic_goes_on "$HX base-resume"
	sleep 0.1
	good_frontend "$HX base-resume"
	CASES=$((CASES + 1))
done
HX=hx
# ---- memory taken away under podwired --------------------------------------------
# A memfd is sealed: it cannot be shrunk.
out=$("$HOSTILE" --wait 300 "$T/hx.sock" truncate 2>&1) || fail "truncate: $out"
grep -q "^truncate: Operation not permitted" <<<"$out" ||
	fail "a frontend could shrink the memory podwired mapped: $out"
wait_for 10 "hx to be free" hx_free
attack truncate any "the frontend left"
# A hole punched in a huge page reads back as zeros: the own rings see
# their avail index go back (a state no driver makes) and end it.
attack hugetlb-punch any "the frontend left
more than a ring ahead"
# Files that take no seals, shrunk under podwired: the SIGBUS guard ends
# that connection only, in a worker's burst or on librte_vhost's thread
# (the control thread ends it at its next housekeeping tick).
faults=$(hx_field faults)
attack truncate-noseal closed "lost pages under podwired (SIGBUS)" 3000
attack hugetlb-truncate closed "lost pages under podwired (SIGBUS)" 3000
attack truncate-handshake closed "lost pages under podwired (SIGBUS)" 3000
expect_eq "faults counted" $((faults + 3)) "$(hx_field faults)"

# ---- call eventfds -----------------------------------------------------------
# A frontend that wants interrupts (a kernel guest) gets them on both rings.
hx_run call-wait 3000
grep -q '^tx call signalled' "$T/hx-call-wait.out" ||
	fail "no interrupt after podwired took a frame: $(cat "$T/hx-call-wait.out")"
grep -q '^rx call signalled' "$T/hx-call-wait.out" ||
	fail "no interrupt after podwired sent frames: $(cat "$T/hx-call-wait.out")"
ok "call-wait: $(tr '\n' ' ' <"$T/hx-call-wait.out")"
wait_link pw hx down
wait_for 10 "hx to be free" hx_free
# A frontend that makes its call eventfds blocking and full: the write
# that would block ends its connection, never a worker (which would stop
# every port it polls).
hx_run call-fd-full 3000
daemon_alive pw || fail "call-fd-full: podwired died"
grep -q '^closed' "$T/hx-call-fd-full.out" ||
	fail "call-fd-full: expected \"closed\": $(cat "$T/hx-call-fd-full.out")"
wait_link pw hx down
wait_for 10 "hx to be free" hx_free
why=$(hx_field last_disconnect)
grep -qF "call eventfd would block" <<<"$why" || fail "call-fd-full: hx says \"$why\""
ok "call-fd-full: $(tr '\n' ' ' <"$T/hx-call-fd-full.out")-> $why"
traffic_goes_on call-fd-full
sleep 0.1
good_frontend call-fd-full
CASES=$((CASES + 2))

# ---- one frontend per port -----------------------------------------------------
"$HOSTILE" --wait 3000 "$T/hx.sock" hold >"$T/hold.out" 2>&1 &
HOLD=$!
wait_link pw hx up
refused=$(hx_field refused_connections)
out=$("$HOSTILE" --wait 1000 "$T/hx.sock" good 2>&1) && fail "a second frontend connected: $out"
expect_eq "second frontend refused and counted" $((refused + 1)) "$(hx_field refused_connections)"
link_is pw hx up || fail "the first frontend lost its link to a second one"
wait "$HOLD" || true
grep -q "^connected" "$T/hold.out" || fail "the first frontend: $(cat "$T/hold.out")"
wait_link pw hx down
traffic_goes_on "second frontend"

# A frontend that connects and drops in a loop: held off (exponential
# back-off to 2 s) and its log lines are few.
refused=$(hx_field refused_connections)
lines=$(grep -c 'port "hx": frontend' "$T/pw.log")
for i in $(seq 20); do
	"$HOSTILE" "$T/hx.sock" hangup0 >/dev/null 2>&1 || true
done
[ "$(hx_field refused_connections)" -gt "$refused" ] || fail "a frontend in a loop was never held off"
more=$(($(grep -c 'port "hx": frontend' "$T/pw.log") - lines))
[ "$more" -le 6 ] || fail "20 connections in a loop made $more log lines"
ok "20 connections in a loop: $(($(hx_field refused_connections) - refused)) refused, $more log lines"
sleep 2.1 # the longest back-off
good_frontend "the loop"
traffic_goes_on "the loop"

# ---- podwired as client: the frontend listens ---------------------------------
# librte_vhost connects to the pod's socket and again after every end (1 s
# apart); each mode takes one connection.
ctl pw port add hc --network net1 --type vhost-user --client --socket "$T/hc.sock" >/dev/null
hc_field() { ctlj pw port show hc | jq -r ".vhost_user.$1"; }
client_attack() {
	local mode=$1 want=$2 words=$3 out why
	out=$("$HOSTILE" --server --wait 3000 "$T/hc.sock" "$mode" 2>&1) ||
		fail "client role, $mode: the tool failed: $out"
	daemon_alive pw || fail "client role, $mode: podwired died; its log: $(tail -n 5 "$T/pw.log")"
	if [ "$want" != any ]; then
		grep -q "^$want" <<<"$out" || fail "client role, $mode: expected \"$want\": $out"
	fi
	wait_link pw hc down
	why=$(hc_field last_disconnect)
	grep -qF -- "$words" <<<"$why" || fail "client role, $mode: hc says \"$why\", expected \"$words\""
	ok "client role, $mode: $(tr '\n' ' ' <<<"$out")-> $why"
	traffic_goes_on "client role, $mode"
	CASES=$((CASES + 1))
}
client_attack good connected "the frontend left"
client_attack region-big closed "less than offset 0 + size 0x200000"
client_attack region-overlap closed "regions 0 and 1 overlap"
client_attack call-pipe closed "not an eventfd"
client_attack features closed "features podwired does not offer"
client_attack hangup4 any "before the device came up"
client_attack desc-loop any "the frontend left"
client_attack truncate-noseal closed "lost pages under podwired (SIGBUS)"
client_attack hugetlb-truncate closed "lost pages under podwired (SIGBUS)"
client_attack good connected "the frontend left"
expect_eq "client role: faults counted" 2 "$(hc_field faults)"

daemon_alive pw || fail "podwired died"
ok "$CASES cases; podwired alive, pods a and b exchanged $B_RX frames throughout"
expect_eq "pod a/b drops other than link_down" 0 \
	"$(ctlj pw stats | jq '[.ports[] | select(.name == "pa" or .name == "pb") | .drops | del(.link_down) | add] | add')"
