#!/bin/bash
# A hostile memif peer (tests/memif/hostile.c) breaks one rule at a time:
# bad messages and fields, regions and rings podwired must not map, bad
# descriptors and ring indices, an eventfd made to block, hang-ups at every
# step; as a client of podwired's server port and as a server of its
# client port. After each: podwired is alive, that port is down with a log
# line naming the reason, the other pods' traffic goes on, and a
# well-behaved peer connects to the same port. podwired runs with small
# memif memory caps: a peer handing over more is refused, naming the cap.
. "$(dirname "$0")/lib.sh"

HOSTILE=$BUILD/memif-hostile
[ -x "$HOSTILE" ] || fail "$HOSTILE is not built"
MAC_A=02:00:00:00:0a:01
MAC_B=02:00:00:00:0b:01

# Small memory caps, so that a peer can pass them with a few memfds (the
# pods a and b map about 4 MiB each, a hostile peer 1 MiB).
daemon_start pw --memif-peer-memory-mb 16 --memif-total-memory-mb 20
ctl pw network add net1 >/dev/null
ctl pw port add pa --network net1 --type memif --socket "$T/a.sock" --mac $MAC_A >/dev/null
ctl pw port add pb --network net1 --type memif --socket "$T/b.sock" --mac $MAC_B >/dev/null
ctl pw port add hx --network net1 --type memif --socket "$T/hx.sock" >/dev/null
ctl pw port add hc --network net1 --type memif --client --socket "$T/hc.sock" >/dev/null
pod_up pw pa a "$(vdev_memif "$T/a.sock" $MAC_A)" --eth-peer=0,$MAC_B
pod_up pw pb b "$(vdev_memif "$T/b.sock" $MAC_B)" --eth-peer=0,$MAC_A
B_RX=0
LOG_SEEN=0

# traffic_goes_on: pod a's next 32 frames reach pod b.
traffic_goes_on() {
	pod_send a 1
	B_RX=$((B_RX + 32))
	wait_for 10 "pod b to receive a's frames ($1)" pod_rx_ge b $B_RX
}

# new_log: podwired's log since the last call.
new_log() {
	local n
	n=$(wc -l <"$T/pw.log")
	tail -n +$((LOG_SEEN + 1)) "$T/pw.log" | head -n $((n - LOG_SEEN))
	LOG_SEEN=$n
}

# good_peer PORT SOCKET [--server]: a well-behaved peer connects, sends a
# frame that podwired counts, and leaves.
good_peer() {
	local port=$1 sock=$2 mode=good rx out
	[ "${3:-}" = --server ] && mode=srv-good
	rx=$(port_stat pw "$port" .rx_packets)
	# It stays longer than a flap (MEMIF_FLAP_MS): the port's back-off
	# starts over after it.
	out=$("$HOSTILE" --wait 700 ${3:-} "$sock" $mode) || fail "good peer on $port: $out"
	grep -q '^connected' <<<"$out" || fail "good peer on $port: $out"
	wait_for 10 "$port to count the good peer's frame" port_stat_ge pw "$port" .rx_packets $((rx + 1))
	wait_link pw "$port" down
}

# attack PORT SOCKET MODE WORDS [--server] [--flood]: runs one hostile
# mode and checks the aftermath. --flood: pod a broadcasts while the peer
# is connected, so podwired sends to it.
attack() {
	local port=$1 sock=$2 mode=$3 words=$4 server= flood= out pid log drops
	shift 4
	for a in "$@"; do
		case $a in --server) server=--server ;; --flood) flood=1 ;; esac
	done
	new_log >/dev/null
	if [ -n "$flood" ]; then
		"$HOSTILE" --wait 10000 $server "$sock" "$mode" >"$T/hostile.out" 2>&1 &
		pid=$!
		wait_link pw "$port" up
		pod_peer a ff:ff:ff:ff:ff:ff
		pod_send a 8
		pod_peer a $MAC_B
		wait "$pid" || true
	else
		"$HOSTILE" --wait 10000 $server "$sock" "$mode" >"$T/hostile.out" 2>&1 || true
	fi
	out=$(cat "$T/hostile.out")
	daemon_alive pw || fail "$mode: podwired died; its log: $(tail -n 5 "$T/pw.log")"
	grep -qE '^(disconnected|closed|hung up|handshake refused|truncate)' <<<"$out" ||
		fail "$mode: podwired did not end the connection: $out"
	wait_link pw "$port" down
	wait_for 10 "podwired to log why ($mode)" grep -qF -- "$words" "$T/pw.log"
	log=$(new_log | grep -F -- "$words" | head -n 1 | sed 's/.*podwire\.memif: //')
	ok "$mode: $log"
	traffic_goes_on "$mode"
	good_peer "$port" "$sock" $server
}

# ---- podwired as server: the pod is the client -------------------------------
attack hx "$T/hx.sock" version "version 1.0"
attack hx "$T/hx.sock" secret "the port has none"
attack hx "$T/hx.sock" id "interface id 42"
attack hx "$T/hx.sock" mode "ethernet mode"
attack hx "$T/hx.sock" connect-first "connect message (type 6) out of order"
attack hx "$T/hx.sock" region-first "add-region message (type 4) out of order"
attack hx "$T/hx.sock" ack "ack message (type 1) out of order"
attack hx "$T/hx.sock" dup-init "init message (type 3) out of order"
attack hx "$T/hx.sock" unknown-type "unknown message (type 99)"
attack hx "$T/hx.sock" short-msg "not 128 bytes"
attack hx "$T/hx.sock" long-msg "not 128 bytes"
attack hx "$T/hx.sock" init-fd "init message carried an fd"
attack hx "$T/hx.sock" two-fds "more than one fd"
attack hx "$T/hx.sock" region-big "1024 MiB"
attack hx "$T/hx.sock" mem-peer "the 16 MiB a peer may map (podwired --memif-peer-memory-mb)"
attack hx "$T/hx.sock" mem-total "the 20 MiB all peers may map (podwired --memif-total-memory-mb)"
attack hx "$T/hx.sock" region-index "region 5 added where region 0 was due"
attack hx "$T/hx.sock" region-nofd "came without its fd"
attack hx "$T/hx.sock" region-notmem "not a memfd"
attack hx "$T/hx.sock" region-pipe "not a memfd"
attack hx "$T/hx.sock" region-short "less than the"
attack hx "$T/hx.sock" region-unsealable "cannot be sealed against shrinking"
attack hx "$T/hx.sock" ring-region "never added"
attack hx "$T/hx.sock" ring-offset "pass the end of region 0"
attack hx "$T/hx.sock" ring-log2 "size 2^15"
attack hx "$T/hx.sock" ring-nofd "without an eventfd"
attack hx "$T/hx.sock" ring-notevent "without an eventfd"
attack hx "$T/hx.sock" connect-norings "at least one each way"
attack hx "$T/hx.sock" bad-cookie "no memif cookie"
for d in desc-region desc-offset desc-len0 desc-lenbig chain-forever; do
	drops=$(port_stat pw hx .drops.bad_desc)
	attack hx "$T/hx.sock" $d "bad descriptors"
	[ "$(port_stat pw hx .drops.bad_desc)" -gt "$drops" ] || fail "$d: no bad_desc drop counted"
done
attack hx "$T/hx.sock" head-jump "is more than a ring ahead"
attack hx "$T/hx.sock" m2s-badpost "outside its regions" --flood
attack hx "$T/hx.sock" kick-block "would have blocked" --flood
attack hx "$T/hx.sock" silent "did not finish within 5 s"
for step in 0 1 2 3 4 5; do
	attack hx "$T/hx.sock" hangup$step "the peer hung up"
done

# A second peer while one is connected is turned away; the first stays.
"$HOSTILE" --wait 3000 "$T/hx.sock" hold >"$T/hold.out" 2>&1 &
HOLD=$!
wait_link pw hx up
out=$("$HOSTILE" --wait 2000 "$T/hx.sock" second) || fail "second peer: $out"
grep -q "handshake refused" <<<"$out" || fail "second peer: $out"
link_is pw hx up || fail "the first peer lost its link to a second one"
wait "$HOLD" || true
wait_link pw hx down
# The region is sealed: the peer cannot shrink it under podwired.
out=$("$HOSTILE" --wait 100 "$T/hx.sock" truncate 2>&1) || true
grep -q "^truncate" <<<"$out" || fail "truncate: $out"
grep -q "worked" <<<"$out" && fail "a peer could shrink the region podwired mapped: $out"
ok "a second peer is turned away, and a region cannot be shrunk ($out)"
daemon_alive pw || fail "podwired died"

# memif_show PORT JQ: one field of the port's memif object.
memif_show() { ctlj pw port show "$1" | jq -r ".memif$2"; }
memif_state_is() { [ "$(memif_show "$1" .state)" = "$2" ]; }
# log_count WORDS: lines of podwired's log with WORDS.
log_count() { grep -cF -- "$1" "$T/pw.log" || true; }

# Second peers, again and again, on pod a's socket while a sends to b: each
# is told first thing that the port has a peer, and counted; a's link and
# traffic never stop; the log says so once per 10 s, not once per peer.
refused0=$(memif_show pa .refused)
lines0=$(log_count 'port "pa": a second peer was turned away')
"$HOSTILE" --wait 3000 "$T/a.sock" seconds >"$T/seconds.out" 2>&1 &
SEC=$!
for i in 1 2 3; do traffic_goes_on "second peers on a's socket ($i)"; done
wait "$SEC" || fail "second peers: $(cat "$T/seconds.out")"
out=$(cat "$T/seconds.out")
grep -q "already has a peer" <<<"$out" || fail "second peers were not told why: $out"
n=$(sed -n 's/^refused \([0-9]*\) of .*/\1/p' <<<"$out")
[ "$n" -ge 50 ] || fail "only $n second peers tried: $out"
expect_eq "pa: second peers counted as refused" $((refused0 + n)) "$(memif_show pa .refused)"
link_is pw pa up || fail "pod a lost its link to the second peers"
lines=$(($(log_count 'port "pa": a second peer was turned away') - lines0))
[ "$lines" -le 2 ] || fail "$lines log lines for $n second peers"
ok "$n second peers turned away ($out), $lines log line(s), pod a's traffic went on"

# A peer that connects and leaves in a loop: the port backs off (it stops
# taking connections for 100 ms, doubled each time, at most 5 s), so
# podwired greets a few of its thousands of tries; the log says so a few
# times; the other pods' traffic goes on; then a good peer connects.
lines0=$(log_count 'port "hx":')
"$HOSTILE" --wait 4000 "$T/hx.sock" flap >"$T/flap.out" 2>&1 &
FLAP=$!
traffic_goes_on "a peer flapping on hx"
wait "$FLAP" || fail "flap: $(cat "$T/flap.out")"
out=$(cat "$T/flap.out")
read -r tries greeted <<<"$(sed -n 's/^flap: \([0-9]*\) tries, \([0-9]*\) greeted.*/\1 \2/p' <<<"$out")"
[ "$tries" -ge 200 ] || fail "the flapping peer tried only $tries times: $out"
[ "$greeted" -le 12 ] || fail "podwired greeted $greeted of the flapping peer's tries: $out"
flaps=$(memif_show hx .flaps)
[ "$flaps" -ge 3 ] || fail "hx counts $flaps flaps: $out"
lines=$(($(log_count 'port "hx":') - lines0))
[ "$lines" -le 6 ] || fail "$lines log lines about hx for $greeted short connections"
ok "flapping peer: $out; hx counts $flaps flaps, backoff $(memif_show hx .backoff_ms) ms, $lines log line(s)"
grep -F 'port "hx":' "$T/pw.log" | tail -n "$lines" | sed 's/^/    /'
daemon_alive pw || fail "podwired died"
wait_for 15 "hx to take connections again" memif_state_is hx listening
good_peer hx "$T/hx.sock"
expect_eq "hx flaps after a good peer" 0 "$(memif_show hx .flaps)"

# ---- podwired as client: the pod is the server -------------------------------
attack hc "$T/hc.sock" srv-version "versions 1.0 to 1.0" --server
attack hc "$T/hc.sock" srv-log2 "2^0" --server
attack hc "$T/hc.sock" srv-hello-fd "hello message carried an fd" --server
attack hc "$T/hc.sock" srv-early-connected "connected message (type 7) out of order" --server
attack hc "$T/hc.sock" srv-extra-ack "ack message (type 1) out of order" --server
attack hc "$T/hc.sock" srv-tail-jump "passed the head" --server
attack hc "$T/hc.sock" srv-badlen "bad descriptors" --server
attack hc "$T/hc.sock" srv-s2m-tail "ahead of the head" --server --flood
attack hc "$T/hc.sock" srv-silent "did not finish within 5 s" --server
# Hang-ups at every step of the handshake, and right after it.
for step in 0 1 2 3 4 5 6; do
	attack hc "$T/hc.sock" srv-hangup$step "the peer hung up" --server
done

# ---- and a real pod on the attacked ports -----------------------------------
ctl pw port del hc >/dev/null
pod_up pw hx x "$(vdev_memif "$T/hx.sock" 02:00:00:00:0c:01)" --eth-peer=0,$MAC_A
pod_send x 1
wait_for 10 "pod a to receive x's frames" pod_rx_ge a 32
ok "a testpmd pod connects to the attacked port and its frames arrive"
daemon_alive pw || fail "podwired died"
expect_eq "pod a/b drops other than link_down" 0 \
	"$(ctlj pw stats | jq '[.ports[] | select(.name == "pa" or .name == "pb") | .drops | del(.link_down) | add] | add')"
