#!/bin/bash
# podwirectl capture, read back by tshark: frames of a vhost-user and a
# memif port with their names, counts, lengths and rising timestamps; a
# live stream into `tshark -r -`; a filter; frames podwired drops, marked
# with the reason; a capture of a busy port next to two pods whose traffic
# must lose nothing; a client killed mid-capture; and bad input, refused
# with the field named and nothing changed.
. "$(dirname "$0")/lib.sh"

command -v tshark >/dev/null || fail "tshark is not installed (apt-get install tshark)"
A=02:00:00:00:0a:01 B=02:00:00:00:0b:01 M=02:00:00:00:0c:01 SPOOF=02:00:00:00:5f:5f
C=02:00:00:00:0d:01 D=02:00:00:00:0e:01

daemon_start pw
ctl pw network add net1
vh() { echo --network net1 --type vhost-user --socket "$T/$1.sock"; }
# shellcheck disable=SC2046
{
	ctl pw port add pod-a $(vh a) --mac $A
	ctl pw port add pod-b $(vh b) --mac $B
	ctl pw port add pod-m --network net1 --type memif --socket "$T/m.sock" --mac $M
}

# cap ARGS...: podwirectl capture in the background (on the pods' core,
# off the worker's); CAP_PID. Returns once podwired reports it running.
cap() {
	taskset -c "$POD_CPU" "$PODWIRECTL" --socket "$T/pw.sock" capture "$@" 2>>"$T/cap.err" &
	CAP_PID=$!
	wait_for 10 "the capture to start" capture_running
}
capture_running() { [ "$(ctlj pw capture list | jq '.captures | length')" -gt 0 ]; }
no_capture() { [ "$(ctlj pw capture list | jq '.captures | length')" = 0 ]; }
# cap_stop: Ctrl-C, as a user would; waits for podwirectl to write the end.
cap_stop() {
	kill -INT "$CAP_PID"
	wait "$CAP_PID" || fail "podwirectl capture exited with $?: $(tail -n 3 "$T/cap.err")"
}
cap_wait() { wait "$CAP_PID" || fail "podwirectl capture exited with $?: $(tail -n 3 "$T/cap.err")"; }
fields() { # FILE FIELDS...: one line per frame, tab separated
	local f=$1
	shift
	tshark -r "$f" -T fields $(printf -- '-e %s ' "$@") 2>"$T/tshark.err" ||
		fail "tshark cannot read $f: $(cat "$T/tshark.err")"
}

# ---- bad input: refused, naming what is wrong; nothing changes ----------------------
refused() { # EXIT FIELD-OR-TEXT podwirectl-capture-args...
	local want=$1 text=$2 out rc=0
	shift 2
	out=$("$PODWIRECTL" --socket "$T/pw.sock" capture "$@" 2>&1) || rc=$?
	[ "$rc" = "$want" ] || fail "capture $*: exit $rc, expected $want: $out"
	grep -q -- "$text" <<<"$out" || fail "capture $*: the error does not name $text: $out"
	ok "capture $* refused ($rc): $(head -n1 <<<"$out")"
}
echo keep >"$T/old.pcapng"
refused 1 'port "nope" does not exist' nope -w "$T/x.pcapng"
refused 1 'filter "udp prot 53"' pod-a --filter "udp prot 53" -w "$T/x.pcapng"
refused 1 'filter "udp prot 53"' pod-a --filter "udp prot 53" -w "$T/old.pcapng"
refused 2 'cannot write it' pod-a -w "$T/no-such-dir/x.pcapng"
refused 1 'direction' pod-a --direction up -w "$T/x.pcapng"
refused 1 'snaplen' pod-a --snaplen 5 -w "$T/x.pcapng"
refused 1 'count' pod-a --count -1 -w "$T/x.pcapng"
refused 1 'named twice' pod-a pod-a -w "$T/x.pcapng"
refused 2 '-w FILE is required' pod-a
[ ! -e "$T/x.pcapng" ] || fail "a refused capture left $T/x.pcapng behind"
expect_eq "a file a refused capture named" keep "$(cat "$T/old.pcapng")"
expect_eq "captures after the refused ones" 0 "$(ctlj pw capture list | jq '.captures | length')"
# The API itself: a field of the wrong type, an unknown field.
rpc pw capture.start '{"ports": ["pod-a"]}' | jq -e '.error.code == -32602 and .error.data.field == "ports"' >/dev/null ||
	fail "capture.start with ports an array was not refused naming ports"
ok "capture.start with \"ports\" an array: refused, naming ports"
rpc pw capture.start '{"ports": ","}' | jq -e '.error.code == -32602 and .error.data.field == "ports"' >/dev/null ||
	fail "capture.start with no port named was not refused naming ports"
ok "capture.start naming no port: refused, naming ports"

# ---- the pods -------------------------------------------------------------------------
pod_up pw pod-a a "$(vdev_virtio "$T/a.sock" $A)" --eth-peer=0,$B
pod_up pw pod-b b "$(vdev_virtio "$T/b.sock" $B)" --eth-peer=0,$A
# m is a memif pod whose frames claim another source MAC: every one is
# dropped at ingress (spoofed_src).
pod_up pw pod-m m "$(vdev_memif "$T/m.sock" $SPOOF)" --eth-peer=0,$A

# A capture already running on a port: a second one is refused.
cap pod-a -w "$T/first.pcapng"
refused 1 'already being captured' pod-b pod-a -w "$T/x.pcapng"
cap_stop
wait_for 10 "the first capture to end" no_capture
[ ! -e "$T/x.pcapng" ] || fail "the refused second capture left its file"

# ---- a's frames, as pod-a received them: count, bytes, time, name --------------------
cap pod-a --direction rx --count 128 -w "$T/a.pcapng"
pod_send a 4
cap_wait
fields "$T/a.pcapng" frame.interface_name frame.len frame.cap_len eth.src eth.dst frame.time_epoch \
	frame.comment >"$T/a.txt"
expect_eq "frames in a.pcapng" 128 "$(wc -l <"$T/a.txt")"
expect_eq "their interface, length, source, destination" "pod-a 64 64 $A $B" \
	"$(awk -F'\t' '{print $1, $2, $3, $4, $5}' "$T/a.txt" | sort -u)"
awk -F'\t' 'NR > 1 && $6 < prev { exit 1 } { prev = $6 }' "$T/a.txt" || fail "timestamps go back: $(cut -f6 "$T/a.txt" | head)"
now=$(date +%s)
awk -F'\t' -v now="$now" '$6 < now - 60 || $6 > now + 1 { exit 1 }' "$T/a.txt" ||
	fail "timestamps are not of the last minute: $(head -n1 "$T/a.txt")"
expect_eq "comments on delivered frames" "" "$(cut -f7 "$T/a.txt" | sort -u)"
ok "128 frames of pod-a, 64 bytes each, timestamps rising, named pod-a"
expect_eq "interface blocks" 1 "$(tshark -r "$T/a.pcapng" -T fields -e frame.interface_id | sort -u | wc -l)"

# ---- live into tshark: what b is sent, from two ports ------------------------------
"$PODWIRECTL" --socket "$T/pw.sock" capture pod-b pod-a --direction tx --count 64 -w - 2>>"$T/cap.err" |
	tshark -r - -T fields -e frame.interface_name -e eth.dst >"$T/live.txt" 2>"$T/tshark.err" &
LIVE=$!
wait_for 10 "the live capture to start" capture_running
pod_send a 1
pod_send b 1
wait "$LIVE" || fail "podwirectl capture | tshark failed: $(cat "$T/tshark.err" "$T/cap.err" | tail -n 5)"
expect_eq "frames tshark read live" 64 "$(wc -l <"$T/live.txt")"
expect_eq "what pod-b and pod-a were sent" "pod-a	$A
pod-b	$B" "$(sort -u "$T/live.txt")"

# ---- a filter: only what it matches ------------------------------------------------
cap pod-a --direction rx --filter "ether dst $B" -w "$T/filter.pcapng"
pod_peer a 02:00:00:00:99:99 # unknown: flooded, not matched
pod_send a 2
pod_peer a $B
pod_send a 1
wait_for 10 "the filter to take b's 32 frames" \
	eval '[ "$(ctlj pw capture list | jq ".captures[0].matched")" -ge 32 ]'
sleep 0.5
cap_stop
fields "$T/filter.pcapng" eth.dst >"$T/filter.txt"
expect_eq "frames the filter kept" 32 "$(wc -l <"$T/filter.txt")"
expect_eq "their destination" "$B" "$(sort -u "$T/filter.txt")"

# ---- frames podwired drops are marked ------------------------------------------------
# memif, at ingress: m's spoofed frames.
cap pod-m --count 32 -w "$T/m.pcapng"
pod_send m 1
cap_wait
fields "$T/m.pcapng" frame.interface_name eth.src frame.comment >"$T/m.txt"
expect_eq "m's frames, marked" "pod-m	$SPOOF	dropped: spoofed_src" "$(sort -u "$T/m.txt")"
expect_eq "m's frames captured" 32 "$(wc -l <"$T/m.txt")"
# vhost-user, on the way out: frames for b after its pod left (link_down).
cap pod-b --direction tx --count 32 -w "$T/down.pcapng"
pod_stop b
wait_link pw pod-b down
pod_send a 1
cap_wait
fields "$T/down.pcapng" frame.interface_name eth.dst frame.comment >"$T/down.txt"
expect_eq "frames for b after it left, marked" "pod-b	$B	dropped: link_down" "$(sort -u "$T/down.txt")"
expect_eq "frames for b captured" 32 "$(wc -l <"$T/down.txt")"

# ---- a busy port captured while two other pods lose nothing -------------------------
# a floods b's (down) port with as much as it can send, and that port is
# captured (every frame copied); c and d (podwire-bench, both pods in one
# process) exchange 0.2 Mpps meanwhile: none of their frames may be lost.
# Every pod shares core 0 with podwired's control thread (which drains the
# capture) and podwirectl: a runs at the lowest priority, so that c and d
# are not starved by their neighbour on the core (that would be the
# machine's loss, not podwired's), and their rings hold 20 ms of traffic.
BENCH=$BUILD/podwire-bench
ctl pw port add pod-c $(vh c) --mac $C
ctl pw port add pod-d $(vh d) --mac $D
for t in /proc/"${POD_PID[a]}"/task/*; do renice -n 19 -p "${t##*/}" >/dev/null; done
cap pod-b --direction tx -q -w "$T/busy.pcapng"
pod_cmd a stop
pod_cmd a "set fwd txonly"
pod_cmd a start
wait_for 10 "pod-b's capture to copy frames" \
	eval '[ "$(ctlj pw capture list | jq ".captures[0].matched")" -ge 100000 ]'
"$BENCH" --lcores "0@$POD_CPU" --file-prefix "pwt$$-cd" --in-memory --single-file-segments \
	--no-pci --log-level '*:notice' --vdev "$(vdev_virtio "$T/c.sock" $C queue_size=4096)" \
	--vdev "net_virtio_user1,path=$T/d.sock,mac=$D,queues=1,queue_size=4096" \
	-- --duration 5 --warmup 1 --size 64 --rate 200000 --ring 4096 --json >"$T/cd.json" 2>"$T/pod-cd.log" &
POD_PID[cd]=$!
# Counted while c and d are both exchanging: a pod's rings may hold no
# buffers for a moment when it starts, and frames in flight when it exits
# meet a queue that is gone.
wait_for 10 "c and d to exchange frames" eval '[ "$(port_stat pw pod-d .tx_packets)" -ge 20000 ] && [ "$(port_stat pw pod-c .tx_packets)" -ge 20000 ]'
ctl pw stats clear pod-c >/dev/null
ctl pw stats clear pod-d >/dev/null
wait_for 10 "c and d to exchange 200,000 more frames" eval '[ "$(port_stat pw pod-d .tx_packets)" -ge 100000 ] && [ "$(port_stat pw pod-c .tx_packets)" -ge 100000 ]'
cd_stats=$(ctlj pw stats | jq -c '[.ports[] | select(.name == "pod-c" or .name == "pod-d")]')
busy=$(ctlj pw capture list | jq -c '.captures[0] | {matched, skipped, written}')
kill -0 "${POD_PID[cd]}" || fail "podwire-bench ended before c's and d's counts were read"
wait "${POD_PID[cd]}" || fail "podwire-bench failed: $(tail -n 5 "$T/pod-cd.log")"
unset "POD_PID[cd]"
pod_cmd a stop
cap_stop
jq -e '.rx_packets > 0' "$T/cd.json" >/dev/null || fail "c and d exchanged nothing: $(cat "$T/cd.json")"
expect_eq "podwired's drops of c's and d's frames while pod-b was captured ($busy)" 0 \
	"$(jq '[.[].drops[]] | add' <<<"$cd_stats")"
echo "podwire-bench (c and d, its own count, in flight included): $(jq -c '{tx_packets, rx_packets, lost}' "$T/cd.json")"
[ "$(tshark -r "$T/busy.pcapng" -c 1 -T fields -e frame.comment 2>/dev/null)" = "dropped: link_down" ] ||
	fail "the busy capture's file is not readable: $(tshark -r "$T/busy.pcapng" -c 1 2>&1)"
ok "c<->d: $(jq '[.[].rx_packets] | add' <<<"$cd_stats") frames, none dropped, while pod-b's capture copied $busy"

# ---- a client killed mid-capture changes nothing for the datapath ---------------------
cap pod-a --direction rx -q -w "$T/killed.pcapng"
pod_send a 1
kill -KILL "$CAP_PID"
wait "$CAP_PID" 2>/dev/null || true
wait_for 10 "podwired to end the capture of the killed client" no_capture
before=$(port_stat pw pod-c .tx_packets)
pod_cmd a stop
ctl pw stats clear
pod_cmd a "set fwd rxonly"
pod_cmd a start
pod_peer a $B
pod_send a 2
wait_for 10 "a's frames after the kill to be forwarded" port_stat_ge pw pod-a .rx_packets 64
daemon_alive pw || fail "podwired died"
expect_eq "observe bits left on pod-a (capture list after the kill)" 0 "$(ctlj pw capture list | jq '.captures | length')"
tshark -r "$T/killed.pcapng" >/dev/null 2>&1 || fail "the killed client's file is not readable pcapng"
ok "a killed capture client: podwired ended the capture, forwarding goes on, its file is whole ($before)"

# ---- podwired stopped mid-capture: the capture ends with its statistics ---------------
cap pod-a --direction rx -q -w "$T/stopped.pcapng"
daemon_stop pw
cap_wait
grep -qa "podwired stopped" "$T/stopped.pcapng" ||
	fail "the capture podwired's stop ended has no statistics block saying so"
tshark -r "$T/stopped.pcapng" >/dev/null 2>&1 || fail "the stopped capture's file is not readable pcapng"
ok "podwired stopped mid-capture: the client got the statistics and exited 0"
